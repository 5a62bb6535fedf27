import { describe, expect, it } from 'vitest';
import { saleSummary } from '../terminal/views.ts';
import { shiftTotals, salesCsv } from '../terminal/shift-report.ts';
import { reduceSale, type PaymentReceived, type Sale, type SaleEvent } from './lifecycle.ts';
import { KEY_WINDOW_MARGIN_MS, mayAskAgain, planRefund, refundableCents, REFUND_REASON_MAX } from './refunds.ts';

const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);
const S = 'sale-r';

const requested: SaleEvent = { type: 'sale.requested', sale_id: S, idempotency_key: 'k', store_id: 1, checkout_id: 1, seq: 1, amount_cents: 1000, requested_by: 'ana', at: T0 };
const created: SaleEvent = {
  type: 'sale.created',
  sale_id: S,
  pix_id: 'pix_r',
  service_id: 'svc_r',
  qr_type: 'printed_dynamic',
  emv: 'E',
  pqr_emv: 'P',
  created_at: T0 + 1,
  expires_at: T0 + 300_000,
  at: T0 + 1,
};
const paid = (amount: string): PaymentReceived => ({ type: 'payment.received', source: 'webhook', webhook_id: 'w', pix_id: 'pix_r', service_id: 'svc_r', amount_brl: amount, paid_at: T0 + 2, e2e_id: 'E1', at: T0 + 2 });
const displaced: SaleEvent = { type: 'sale.displaced', sale_id: S, by: 'sale-2', by_seq: 2, evidence: 'newer_sale_created', at: T0 + 1_500 };
const txRefunded: PaymentReceived = { ...paid('10.00'), source: 'tx_status', webhook_id: undefined, refunded: true, at: T0 + 9_000 };

let n = 0;
/** A refund asked for (and, unless `open`, answered) through the reducer itself. */
function refund(cents: number, outcome: 'made' | 'refused' | 'uncertain' | 'open' = 'made'): SaleEvent[] {
  const id = `r${++n}`;
  const ask: SaleEvent = { type: 'refund.requested', sale_id: S, refund_id: id, idempotency_key: `k-${id}`, amount_cents: cents, requested_by: 'sue', at: T0 + 10 * n };
  if (outcome === 'open') return [ask];
  if (outcome === 'uncertain') return [ask, { type: 'refund.uncertain', sale_id: S, refund_id: id, reason: 'timeout', attempts: 1, at: T0 + 10 * n + 1 }];
  if (outcome === 'refused') return [ask, { type: 'refund.refused', sale_id: S, refund_id: id, error: { status: 422, code: 'refund_less_left' }, at: T0 + 10 * n + 1 }];
  return [ask, { type: 'refund.made', sale_id: S, refund_id: id, pay_in_refund_request_id: `rpir_${id}`, service_refund_id: `rpi_${id}`, refunded_cents: cents, at: T0 + 10 * n + 1 }];
}

function build(events: readonly SaleEvent[]): Sale {
  let sale: Sale | undefined;
  for (const e of events) sale = reduceSale(sale, e);
  if (!sale) throw new Error('no sale');
  return sale;
}

const paidSale = [requested, created, paid('10.00')];

describe('refund arithmetic and the status it gives', () => {
  // [case, events, status, refunded, kept (received_total), left to refund]
  const rows: [string, () => SaleEvent[], Sale['status'], number, number, number][] = [
    ['paid, nothing refunded', () => paidSale, 'paid', 0, 1000, 1000],
    ['part refunded', () => [...paidSale, ...refund(400)], 'partly_refunded', 400, 600, 600],
    ['part, then the rest', () => [...paidSale, ...refund(400), ...refund(600)], 'refunded', 1000, 0, 0],
    ['all at once', () => [...paidSale, ...refund(1000)], 'refunded', 1000, 0, 0],
    ['two parts, one cent left', () => [...paidSale, ...refund(333), ...refund(666)], 'partly_refunded', 999, 1, 1],
    ['a refused refund changes nothing', () => [...paidSale, ...refund(400, 'refused')], 'paid', 0, 1000, 1000],
    ['an unanswered refund holds back its amount, not the status', () => [...paidSale, ...refund(400, 'uncertain')], 'paid', 0, 1000, 0],
    ['a refund asked and not answered yet', () => [...paidSale, ...refund(400, 'open')], 'paid', 0, 1000, 0],
    ['an answer arriving twice counts once', () => { const r = refund(400); return [...paidSale, ...r, ...r]; }, 'partly_refunded', 400, 600, 600],
    ['answered late after uncertain', () => { const [ask, unc] = refund(300, 'uncertain'); const made = refund(300)[1] as SaleEvent; return [...paidSale, ask as SaleEvent, unc as SaleEvent, { ...made, refund_id: (ask as { refund_id: string }).refund_id } as SaleEvent]; }, 'partly_refunded', 300, 700, 700],
    ['Tx Status refunded (outside the app)', () => [...paidSale, txRefunded], 'refunded', 1000, 0, 0],
    ['part here, then Tx Status refunded', () => [...paidSale, ...refund(400), txRefunded], 'refunded', 1000, 0, 0],
    ['amount mismatch, part refunded', () => [requested, created, paid('12.00'), ...refund(200)], 'partly_refunded', 200, 1000, 1000],
    ['late payment, refunded in full', () => [requested, created, displaced, paid('10.00'), ...refund(1000)], 'refunded', 1000, 0, 0],
    ['pending: nothing to refund', () => [requested, created], 'pending', 0, 0, 0],
  ];
  it.each(rows)('%s', (_name, events, status, refunded, kept, left) => {
    const sale = build(events());
    const view = saleSummary(sale, [sale]);
    expect(sale.status).toBe(status);
    expect(view.refunded_cents).toBe(refunded);
    expect(view.received_total_cents).toBe(kept);
    expect(refundableCents(sale)).toBe(left);
    expect(view.refundable_cents).toBe(left);
    // Received money is either kept or given back, never both, never lost.
    if (sale.paid) expect(view.received_total_cents + view.refunded_cents).toBe(sale.paid.received_cents);
  });

  it('keeps a late payment in front of a person after a partial refund', () => {
    const sale = build([requested, created, displaced, paid('10.00'), ...refund(300)]);
    expect(sale.status).toBe('partly_refunded');
    expect(sale.attention.map((a) => a.reason)).toEqual(['paid_late']);
  });

  it('gives the same sale whatever order the facts are replayed in', () => {
    const r1 = refund(400);
    const r2 = refund(600);
    const a = build([...paidSale, ...r1, ...r2]);
    const b = build([...paidSale, r2[0] as SaleEvent, r1[0] as SaleEvent, r2[1] as SaleEvent, r1[1] as SaleEvent]);
    expect(b.status).toBe(a.status);
    expect(saleSummary(b, [b]).refunded_cents).toBe(saleSummary(a, [a]).refunded_cents);
  });
});

describe('planRefund: what a supervisor may ask for', () => {
  const ask = { refund_id: 'new', idempotency_key: 'key-new', by: 'sue', at: T0 + 99 };
  // [case, events, amount, reason, refusal or null]
  const rows: [string, SaleEvent[], number, string | undefined, string | null][] = [
    ['part of a paid sale', paidSale, 400, 'damaged', null],
    ['exactly what is left', [...paidSale, ...refund(400)], 600, undefined, null],
    ['one cent over what is left', [...paidSale, ...refund(400)], 601, undefined, 'amount_too_large'],
    ['more than the sale', paidSale, 1001, undefined, 'amount_too_large'],
    ['zero', paidSale, 0, undefined, 'amount_invalid'],
    ['negative', paidSale, -100, undefined, 'amount_invalid'],
    ['a fraction of a cent', paidSale, 10.5, undefined, 'amount_invalid'],
    ['while another is unanswered', [...paidSale, ...refund(100, 'uncertain')], 100, undefined, 'refund_open'],
    ['after the rest was refunded', [...paidSale, ...refund(1000)], 1, undefined, 'nothing_left'],
    ['after Tx Status said refunded', [...paidSale, txRefunded], 1, undefined, 'nothing_left'],
    ['a pending sale', [requested, created], 100, undefined, 'not_paid'],
    ['a reason too long', paidSale, 100, 'x'.repeat(REFUND_REASON_MAX + 1), 'reason_too_long'],
    ['a reason of the longest length', paidSale, 100, 'x'.repeat(REFUND_REASON_MAX), null],
  ];
  it.each(rows)('%s', (_name, events, amount, reason, refusal) => {
    const plan = planRefund(build(events), { ...ask, amount_cents: amount, ...(reason === undefined ? {} : { reason }) });
    if (refusal === null) {
      expect(plan).toEqual({ ok: true, event: { type: 'refund.requested', sale_id: S, refund_id: 'new', idempotency_key: 'key-new', amount_cents: amount, ...(reason === undefined ? {} : { reason }), requested_by: 'sue', at: T0 + 99 } });
    } else {
      expect(plan).toMatchObject({ ok: false, reason: refusal });
    }
  });
});

describe('shift totals and CSV of refunded sales', () => {
  it('counts refunds apart from what was received and kept', () => {
    const full = build([...paidSale, ...refund(1000)]);
    const part = build([...paidSale, ...refund(250)].map((e) => ({ ...e, sale_id: 'sale-p' }) as SaleEvent).map((e) => (e.type === 'sale.created' ? { ...e, pix_id: 'pix_p', service_id: 'svc_p' } : e.type === 'payment.received' ? { ...e, pix_id: 'pix_p', service_id: 'svc_p' } : e)));
    const kept = build(paidSale.map((e) => ({ ...e, sale_id: 'sale-k' }) as SaleEvent));
    const views = [full, part, kept].map((s) => saleSummary(s, [s]));
    expect(shiftTotals(views)).toMatchObject({ count: 3, paid: 1, refunded: 1, partly_refunded: 1, received_cents: 750 + 1000 + 1250, refunded_cents: 1250, net_cents: 750 + 1000 });
    const rows = salesCsv(views).split('\r\n');
    expect(rows.find((r) => r.startsWith('sale-p'))?.split(',')).toEqual(expect.arrayContaining(['partly_refunded', '2.50']));
    expect(rows.find((r) => r.startsWith(S))?.split(',')).toEqual(expect.arrayContaining(['refunded', '10.00']));
  });
});

describe('a refund whose answer was lost: who may ask again', () => {
  const DAY = 24 * 3_600_000;
  it('asks again by itself only while the provider honours refund keys and the key is inside its window', () => {
    const fact = { key_at: T0 };
    expect(mayAskAgain(fact, T0 + 1, { honoured: false, windowMs: DAY })).toBe('keys_not_honoured');
    expect(mayAskAgain(fact, T0 + 1, { honoured: true, windowMs: DAY })).toBe(true);
    expect(mayAskAgain(fact, T0 + DAY - KEY_WINDOW_MARGIN_MS - 1, { honoured: true, windowMs: DAY })).toBe(true);
    // The service's clock and ours may differ: the app stops an hour before the key is forgotten.
    expect(mayAskAgain(fact, T0 + DAY - KEY_WINDOW_MARGIN_MS, { honoured: true, windowMs: DAY })).toBe('key_expired');
    expect(mayAskAgain(fact, T0 + 2 * DAY, { honoured: true, windowMs: DAY })).toBe('key_expired');
  });

  it('unconfirmed waits for a supervisor: on the attention list, not acknowledged away, one refund at a time', () => {
    const [ask, lost] = refund(400, 'uncertain');
    const id = (ask as { refund_id: string } | undefined)?.refund_id ?? '';
    const unconfirmed: SaleEvent = { type: 'refund.unconfirmed', sale_id: S, refund_id: id, reason: 'keys_not_honoured', at: T0 + 5_000 };
    const ack: SaleEvent = { type: 'sale.acknowledged', sale_id: S, reason: 'refund_not_confirmed', subject: id, by: 'ana', at: T0 + 6_000 };
    const sale = build([requested, created, paid('10.00'), ask!, lost!, unconfirmed, ack]);
    expect(sale.refunds?.[0]).toMatchObject({ state: 'unconfirmed', unconfirmed: { reason: 'keys_not_honoured' } });
    expect(sale.attention).toEqual([{ reason: 'refund_not_confirmed', subject: id }]);
    expect(refundableCents(sale)).toBe(0);
    expect(planRefund(sale, { refund_id: 'x', idempotency_key: 'kx', amount_cents: 100, by: 'sue', at: T0 + 7_000 })).toMatchObject({ ok: false, reason: 'refund_open' });
    // A late uncertain or a repeated unconfirmed changes nothing.
    expect(reduceSale(sale, lost!)?.refunds).toEqual(sale.refunds);
  });

  it('Send again: a new key, its window from now, the sender named; It was refunded: made by the supervisor’s word', () => {
    const [ask, lost] = refund(400, 'uncertain');
    const id = (ask as { refund_id: string } | undefined)?.refund_id ?? '';
    const unconfirmed: SaleEvent = { type: 'refund.unconfirmed', sale_id: S, refund_id: id, reason: 'keys_not_honoured', at: T0 + 5_000 };
    const resent: SaleEvent = { type: 'refund.resent', sale_id: S, refund_id: id, idempotency_key: 'k-new', by: 'lia', at: T0 + 9_000 };
    const base = [requested, created, paid('10.00'), ask!, lost!, unconfirmed];
    const again = build([...base, resent]);
    expect(again.refunds?.[0]).toMatchObject({ state: 'requested', idempotency_key: 'k-new', key_at: T0 + 9_000, resent: [{ by: 'lia', at: T0 + 9_000 }] });
    expect(again.attention).toEqual([]);
    // Only an unconfirmed refund is sent again: a repeat of the same Send again changes nothing.
    expect(reduceSale(again, resent)?.refunds).toEqual(again.refunds);

    const made: SaleEvent = { type: 'refund.made', sale_id: S, refund_id: id, pay_in_refund_request_id: null, service_refund_id: null, refunded_cents: 400, confirmed_by: 'lia', at: T0 + 9_500 };
    const confirmed = build([...base, made]);
    expect(confirmed.refunds?.[0]).toMatchObject({ state: 'made', made: { refunded_cents: 400, confirmed_by: 'lia' } });
    expect(confirmed.status).toBe('partly_refunded');
    expect(confirmed.attention).toEqual([]);
  });
});
