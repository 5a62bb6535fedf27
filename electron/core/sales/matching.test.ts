import { describe, expect, it } from 'vitest';
import { applySaleEvent, contradictsIdentity, reduceSale, SALE_LIFETIME_MS, type PaymentReport, type Sale, type SaleEvent } from './lifecycle.ts';
import { matchReport, type MatchCandidates } from './matching.ts';

const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);

function sale(id: string, ids: { pix_id: string; service_id: string } | null): Sale {
  const events: SaleEvent[] = [{ type: 'sale.requested', sale_id: id, idempotency_key: `k-${id}`, store_id: 1, checkout_id: 1, seq: 1, amount_cents: 1000, requested_by: 'ana', at: T0 }];
  if (ids) events.push({ type: 'sale.created', sale_id: id, ...ids, qr_type: 'printed_dynamic', emv: 'E', pqr_emv: 'P', created_at: T0, expires_at: T0 + SALE_LIFETIME_MS, at: T0 });
  let s: Sale | undefined;
  for (const e of events) s = reduceSale(s, e);
  if (!s) throw new Error('no sale');
  return s;
}

const A = sale('a', { pix_id: 'pix_a', service_id: 'svc_a' });
const B = sale('b', { pix_id: 'pix_b', service_id: 'svc_b' });
/** A second sale holding A's pix_id: only a damaged or merged journal, or a service bug, makes one. */
const A2 = sale('a2', { pix_id: 'pix_a', service_id: 'svc_a2' });
const A3 = sale('a3', { pix_id: 'pix_a3', service_id: 'svc_a' });
const UNCREATED = sale('u', null);

const paid = (ids: { pix_id?: string; service_id?: string }): PaymentReport => ({ type: 'payment.received', source: 'webhook', webhook_id: 'w', ...ids, amount_brl: '10.00', paid_at: T0, e2e_id: 'E1', at: T0 });
const done = (ids: { pix_id?: string; service_id?: string }): PaymentReport => ({ type: 'charge.done', webhook_id: 'd', ...ids, amount_brl: '10.00', settlement_id: null, at: T0 });

/** The candidates as an index lookup would find them among `sales`. */
function lookup(report: PaymentReport, sales: readonly Sale[]): MatchCandidates {
  return { byPixId: sales.filter((s) => s.pix_id !== undefined && s.pix_id === report.pix_id), byServiceId: sales.filter((s) => s.service_id !== undefined && s.service_id === report.service_id) };
}

describe('matchReport (reference 4.5 rule 6)', () => {
  it.each([
    ['both ids of one sale', paid({ pix_id: 'pix_a', service_id: 'svc_a' }), [A, B], 'sale a'],
    ['pix_id alone', paid({ pix_id: 'pix_b' }), [A, B], 'sale b'],
    ['service_id alone', done({ service_id: 'svc_a' }), [A, B], 'sale a'],
    ['no ids at all', paid({}), [A, B], 'no_ids []'],
    ['empty ids are no ids', paid({ pix_id: '', service_id: '' }), [A, B], 'no_ids []'],
    ['ids nobody holds', paid({ pix_id: 'pix_z', service_id: 'svc_z' }), [A, B, UNCREATED], 'unknown_ids []'],
    ['pix_id of one sale, service_id of another', paid({ pix_id: 'pix_a', service_id: 'svc_b' }), [A, B], 'ids_conflict [a,b]'],
    ['pix_id of a sale whose service_id is another', paid({ pix_id: 'pix_a', service_id: 'svc_z' }), [A, B], 'ids_conflict [a]'],
    ['service_id of a sale whose pix_id is another', done({ pix_id: 'pix_z', service_id: 'svc_b' }), [A, B], 'ids_conflict [b]'],
    ['a pix_id two sales hold', paid({ pix_id: 'pix_a' }), [A, A2, B], 'ambiguous [a,a2]'],
    ['a service_id two sales hold', done({ service_id: 'svc_a' }), [A, A3], 'ambiguous [a,a3]'],
    ['both ids, one of them held twice', paid({ pix_id: 'pix_a', service_id: 'svc_a' }), [A, A2], 'ambiguous [a,a2]'],
    ['the same sale listed twice is one sale', paid({ pix_id: 'pix_a', service_id: 'svc_a' }), [A, A], 'sale a'],
  ] as const)('%s', (_name, report, sales, expected) => {
    const outcome = matchReport(report, lookup(report, sales));
    const got = outcome.kind === 'sale' ? `sale ${outcome.sale.sale_id}` : `${outcome.reason} [${outcome.candidates.join(',')}]`;
    expect(got).toBe(expected);
  });

  it('trusts no candidate an index hands over that does not hold the id: a stale index never decides', () => {
    const report = paid({ pix_id: 'pix_z' });
    expect(matchReport(report, { byPixId: [A], byServiceId: [B] })).toEqual({ kind: 'unmatched', reason: 'unknown_ids', candidates: [] });
  });

  it('gives the same outcome whatever order the candidates come in', () => {
    const report = paid({ pix_id: 'pix_a', service_id: 'svc_b' });
    expect(matchReport(report, { byPixId: [A], byServiceId: [B] })).toEqual(matchReport(report, { byPixId: [A], byServiceId: [B] }));
    const two = paid({ pix_id: 'pix_a' });
    expect(matchReport(two, { byPixId: [A2, A], byServiceId: [] })).toEqual(matchReport(two, { byPixId: [A, A2], byServiceId: [] }));
  });

  it("asks the lifecycle's own identity rule: what it calls a contradiction is what applying the report rejects", () => {
    const ids = [undefined, '', 'pix_a', 'svc_a', 'pix_b', 'svc_b', 'pix_z', 'svc_z'];
    for (const target of [A, B, A2, A3, UNCREATED]) {
      for (const pix_id of ids) {
        for (const service_id of ids) {
          const given = { ...(pix_id === undefined ? {} : { pix_id }), ...(service_id === undefined ? {} : { service_id }) };
          for (const report of [paid(given), done(given)]) {
            expect(contradictsIdentity(target, report)).toBe(applySaleEvent(target, report).report.effect === 'rejected');
          }
        }
      }
    }
  });
});
