/**
 * The sandbox's decision where contract 5 is silent: `POST /v2/pay_in_refunds/request` honours
 * an Idempotency-Key as contract 2 does for a create (README, "Refund Idempotency-Key"). What
 * the app's refund follow-up relies on to ask again after a lost answer without refunding twice.
 */
import { describe, expect, it } from 'vitest';
import { TOKENS } from './harness.ts';
import { useSandbox } from './fixtures/sandbox.ts';

const t = useSandbox({ sandbox: { host: '127.0.0.1' }, resetEachTest: false });

async function paidCharge(amount: string): Promise<{ pix_id: string; service_id: string }> {
  const created = await t.api.post('/v2/create_dynamic_pix', { amount }, { token: TOKENS.cashier });
  expect(created.status).toBe(201);
  expect((await t.api.post('/_sandbox/pay', { emv: created.body.emv }, { token: null })).status).toBe(200);
  return created.body as { pix_id: string; service_id: string };
}

const refund = (body: unknown, key?: string) =>
  t.api.post('/v2/pay_in_refunds/request', body, { token: TOKENS.supervisor, ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }) });

describe('POST /v2/pay_in_refunds/request with an Idempotency-Key', () => {
  it('answers the same request under the same key with the first 201, refunding once', async () => {
    const charge = await paidCharge('10.00');
    const first = await refund({ service_id: charge.service_id, amount: '4.00' }, 'refund-key-1');
    const again = await refund({ service_id: charge.service_id, amount: '4.00' }, 'refund-key-1');
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // 6.00 is left: the repeat refunded nothing.
    const probe = await refund({ service_id: charge.service_id, amount: '6.01' });
    expect(probe.body.detail[0].ctx).toEqual({ le: '6.00' });
  });

  it('refuses another request under a used key with 409 and refunds nothing', async () => {
    const charge = await paidCharge('10.00');
    expect((await refund({ service_id: charge.service_id, amount: '1.00' }, 'refund-key-2')).status).toBe(201);
    const other = await refund({ service_id: charge.service_id, amount: '2.00' }, 'refund-key-2');
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ detail: 'Idempotency-Key reused with a different body' });
    expect((await refund({ service_id: charge.service_id, amount: '9.01' })).body.detail[0].ctx).toEqual({ le: '9.00' });
  });

  it('keeps refunds without a key as before: each request is a refund', async () => {
    const charge = await paidCharge('10.00');
    expect((await refund({ service_id: charge.service_id, amount: '1.00' })).status).toBe(201);
    expect((await refund({ service_id: charge.service_id, amount: '1.00' })).status).toBe(201);
    expect((await refund({ service_id: charge.service_id, amount: '8.01' })).body.detail[0].ctx).toEqual({ le: '8.00' });
  });

  it('with the ignore_key fault, a repeat under the same key is a second refund (a provider that does not honour refund keys)', async () => {
    const charge = await paidCharge('10.00');
    const armed = await t.api.post('/_sandbox/faults', { target: 'idempotency', method: 'POST', path: '/v2/pay_in_refunds/request', fault: 'ignore_key', count: 1 }, { token: null });
    expect(armed.status).toBe(201);
    expect((await refund({ service_id: charge.service_id, amount: '4.00' }, 'refund-key-3')).status).toBe(201);
    // The key was ignored the first time: nothing is remembered under it, so this is refund two.
    const again = await refund({ service_id: charge.service_id, amount: '4.00' }, 'refund-key-3');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect((await refund({ service_id: charge.service_id, amount: '2.01' })).body.detail[0].ctx).toEqual({ le: '2.00' });
    // The control API's listing says what the service refunded of the charge.
    const rows = (await t.api.get('/_sandbox/sales', { token: null })).body as { service_id: string; refunded_brl: string }[];
    expect(rows.find((r) => r.service_id === charge.service_id)?.refunded_brl).toBe('8.00');
  });
});
