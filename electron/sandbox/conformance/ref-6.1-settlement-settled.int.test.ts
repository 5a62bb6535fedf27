/**
 * Reference 6.1 (`settlement.settled`) with contract 4 (delivery, signature) and contract 8
 * (the invariant per mode), through HTTP: a sandbox started in-process on loopback delivers
 * to a receiver on loopback; figures are checked with integer arithmetic of their own.
 */
import { describe, expect, it } from 'vitest';
import { SANDBOX_RATES } from '../quotes.ts';
import { TOKENS, addCheckout, paidCharge, setMode, useHarness, units, type Delivery, type Harness } from './payout-settlement-harness.ts';

const TOP_LEVEL = [
  'amount',
  'charges',
  'currency_id',
  'event',
  'external_settlement_id',
  'provider_settlement_id',
  'refunds',
  'settled_at',
  'settlement_id',
  'source_amount',
  'source_currency_id',
  'source_net_price',
];
const CHARGE_ENTRY = ['charged_amount', 'charged_currency', 'external_id', 'service_id', 'service_request_id', 'settlement_amount', 'settlement_currency'];
const REFUND_ENTRY = ['deduction_amount', 'deduction_currency', 'external_id', 'refunded_amount', 'refunded_currency', 'service_id', 'service_refund_id', 'service_request_id'];

const h: Harness = useHarness();

type Entry = Record<string, number | string | null>;

function settledOf(deliveries: Delivery[], settlementId?: number): Delivery[] {
  return deliveries.filter((d) => d.event === 'settlement.settled' && (settlementId === undefined || d.payload['settlement_id'] === settlementId));
}

async function runAndReceive(): Promise<{ id: number; payload: Record<string, unknown> }> {
  const run = await h.control('POST', '/_sandbox/settlements/run', {});
  expect(run.body.created).toHaveLength(1);
  const id = run.body.created[0].settlement_id as number;
  const deliveries = await h.waitForDeliveries((d) => settledOf(d, id).length > 0);
  const [delivery] = settledOf(deliveries, id);
  expect(delivery).toBeDefined();
  expect(delivery!.signatureValid).toBe(true);
  return { id, payload: delivery!.payload };
}

function sum(entries: Entry[], field: string, scale: number): bigint {
  return entries.reduce((t, e) => t + units(e[field] as number, scale), 0n);
}

/** Half-even rounding of n / d, for an independent check of the conversions. */
function halfEven(n: bigint, d: bigint): bigint {
  let q = n / d;
  const twice = 2n * (n % d);
  if (twice > d || (twice === d && q % 2n === 1n)) q += 1n;
  return q;
}

/** ARS (2 places) to USDt (6 places) at the documented fixed rate. */
function arsToUsdt(arsCents: bigint): bigint {
  const [, fraction = ''] = SANDBOX_RATES.ARS_USDT.split('.');
  const rate = BigInt(SANDBOX_RATES.ARS_USDT.replace('.', ''));
  const productScale = 2 + fraction.length;
  return halfEven(arsCents * rate, 10n ** BigInt(productScale - 6));
}

describe('ARS batched', () => {
  it('carries every field, the ARS invariant of contract 8 and the USDt source side', async () => {
    await setMode(h, 'ars_batched');
    const earlier = await paidCharge(h, '12.50', { externalId: 'order-a' });
    await runAndReceive();
    const b = await paidCharge(h, '50.00', { externalId: 'order-b' });
    await h.advance(1);
    const c = await paidCharge(h, '7.00');
    const refundEarlier = await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: earlier.service_id, amount: '5.00' });
    const refundB = await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: b.service_id, amount: '3.33' });
    const { id, payload } = await runAndReceive();

    expect(Object.keys(payload).sort()).toEqual(TOP_LEVEL);
    expect(payload).toMatchObject({ event: 'settlement.settled', settlement_id: id, currency_id: 1, source_currency_id: 3 });
    const charges = payload['charges'] as Entry[];
    const refunds = payload['refunds'] as Entry[];
    // ordered by the time each charge was added, oldest first
    expect(charges.map((e) => e['service_id'])).toEqual([b.service_id, c.service_id]);
    expect(charges[1]!['external_id']).toBeNull();
    for (const e of charges) {
      expect(Object.keys(e).sort()).toEqual(CHARGE_ENTRY);
      expect(e).toMatchObject({ charged_currency: 'BRL', settlement_currency: 'ARS' });
    }
    // refunds: the earlier batch's charge and one of this batch; no pay_in_refund_request_id
    expect(refunds.map((e) => e['service_refund_id']).sort()).toEqual([refundEarlier.body.service_refund_id, refundB.body.service_refund_id].sort());
    for (const e of refunds) {
      expect(Object.keys(e).sort()).toEqual(REFUND_ENTRY);
      expect(e['deduction_currency']).toBe('ARS');
    }
    expect(refunds.find((e) => e['service_id'] === earlier.service_id)).toMatchObject({ external_id: 'order-a', refunded_amount: 5, deduction_amount: 1236.59 });

    const gross = sum(charges, 'settlement_amount', 2);
    const deducted = sum(refunds, 'deduction_amount', 2);
    const amount = units(payload['amount'] as number, 2);
    // contract 8: in ARS batched, amount (ARS) = charges - deductions (ARS)
    expect(amount).toBe(gross - deducted);
    // reference 6.1: amount differs from the gross by exactly the deductions
    expect(gross - amount).toBe(deducted);
    // source side in USDt: what was moved, and the gross before deductions
    expect(units(payload['source_amount'] as number, 6)).toBe(arsToUsdt(amount));
    expect(units(payload['source_net_price'] as number, 6)).toBe(arsToUsdt(gross));
    // 12365.92 + 1731.23 - 1236.59 - 823.57 (3.33/50.00 of 12365.92 = 823.570272)
    expect(payload['amount']).toBe(12036.99);
  });

  it('is the same data as GET /v1/settlements/{settlement_id}', async () => {
    await setMode(h, 'ars_batched');
    const a = await paidCharge(h, '12.50', { externalId: 'x' });
    await paidCharge(h, '20.00', { externalId: 'y' });
    await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: a.service_id, amount: '1.00' });
    const { id, payload } = await runAndReceive();
    const detail = (await h.api('GET', `/v1/settlements/${id}`, TOKENS.cashier)).body;
    expect(detail).toMatchObject({
      settlement_id: id,
      amount: payload['amount'],
      settled_at: payload['settled_at'],
      provider_settlement_id: payload['provider_settlement_id'],
      external_settlement_id: payload['external_settlement_id'],
      status: 'DONE',
      currency: 'ARS',
    });
    const pick = (entries: Entry[], fields: string[]): Entry[] => entries.map((e) => Object.fromEntries(fields.map((f) => [f, e[f] ?? null])));
    expect(pick(detail.charges, CHARGE_ENTRY)).toEqual(pick(payload['charges'] as Entry[], CHARGE_ENTRY));
    expect(pick(detail.refunds, REFUND_ENTRY)).toEqual(pick(payload['refunds'] as Entry[], REFUND_ENTRY));
  });

  it('is emitted after the per-charge done events of every charge it lists, and once', async () => {
    await setMode(h, 'ars_batched');
    const charges = [await paidCharge(h, '1.00', { externalId: 'p' }), await paidCharge(h, '2.00', { externalId: 'q' })];
    const { id } = await runAndReceive();
    // emission order: the outbox (GET /_sandbox/events)
    const events = await h.events();
    const settledAt = events.findIndex((e) => e.event === 'settlement.settled' && e.payload['settlement_id'] === id);
    for (const c of charges) {
      const doneAt = events.findIndex((e) => e.event === 'charge.done' && e.payload['service_id'] === c.service_id);
      expect(doneAt).toBeGreaterThanOrEqual(0);
      expect(doneAt).toBeLessThan(settledAt);
      // batched: the per-charge done is acknowledged with no settlement id (contract 4)
      expect(events[doneAt]!.payload['settlement_id']).toBeNull();
    }
    // arrival order at a healthy receiver too
    const deliveries = await h.waitForDeliveries((d) => d.filter((x) => x.event === 'charge.done').length >= 2);
    const arrival = deliveries.map((d) => `${d.event}:${String(d.payload['service_id'] ?? d.payload['settlement_id'])}`);
    for (const c of charges) expect(arrival.indexOf(`charge.done:${c.service_id}`)).toBeLessThan(arrival.indexOf(`settlement.settled:${id}`));
    // more windows pass: no second announcement of the same settlement
    await h.advance(3 * 3600);
    await h.control('POST', '/_sandbox/settlements/run', {});
    expect((await h.events()).filter((e) => e.event === 'settlement.settled' && e.payload['settlement_id'] === id)).toHaveLength(1);
  });

  it('goes out by itself when the hourly window closes, stamped with the window time', async () => {
    await setMode(h, 'ars_batched');
    await paidCharge(h, '12.50');
    const now = await h.now();
    const boundary = Math.ceil(now / 3_600_000) * 3_600_000;
    await h.advance((boundary - now) / 1000 + 121);
    const deliveries = await h.waitForDeliveries((d) => settledOf(d).length > 0);
    const [settled] = settledOf(deliveries);
    expect(settled).toBeDefined();
    const detail = (await h.api('GET', `/v1/settlements/${settled!.payload['settlement_id'] as number}`, TOKENS.cashier)).body;
    expect(Date.parse(detail.created_at)).toBe(boundary);
    expect(Date.parse(settled!.payload['settled_at'] as string)).toBe(boundary + 120_000);
  });
});

describe('blockchain batched', () => {
  it('with no refunds, amount, source_amount and source_net_price are equal; USDt only', async () => {
    await setMode(h, 'blockchain_batched');
    await paidCharge(h, '12.50');
    await paidCharge(h, '0.30');
    const { payload } = await runAndReceive();
    expect(payload).toMatchObject({ currency_id: 3, source_currency_id: 3, amount: 2.334016, source_amount: 2.334016, source_net_price: 2.334016 });
    expect(payload['external_settlement_id']).toMatch(/^0x[0-9a-f]{64}$/);
    for (const e of payload['charges'] as Entry[]) expect(e['settlement_currency']).toBe('USDt');
    // reference 6.1: "no ARS field anywhere"
    expect(JSON.stringify(payload)).not.toContain('ARS');
  });

  it('with refunds, charges minus deductions equals source_amount exactly (reference 6.1 invariant)', async () => {
    await setMode(h, 'blockchain_batched');
    const a = await paidCharge(h, '12.50');
    await paidCharge(h, '33.33');
    await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: a.service_id, amount: '4.17' });
    const { payload } = await runAndReceive();
    const charges = payload['charges'] as Entry[];
    const refunds = payload['refunds'] as Entry[];
    expect(refunds).toEqual([expect.objectContaining({ deduction_currency: 'USDt' })]);
    const gross = sum(charges, 'settlement_amount', 6);
    const deducted = sum(refunds, 'deduction_amount', 6);
    expect(units(payload['source_amount'] as number, 6)).toBe(gross - deducted);
    expect(units(payload['amount'] as number, 6)).toBe(gross - deducted);
    expect(units(payload['source_net_price'] as number, 6)).toBe(gross);
  });
});

describe('who gets it', () => {
  it('one per settlement: two checkouts in two modes settle apart, each with its own currency', async () => {
    const second = await addCheckout(h);
    await setMode(h, 'ars_batched', 1, 1);
    await setMode(h, 'blockchain_batched', 1, second);
    await paidCharge(h, '10.00');
    await paidCharge(h, '10.00', { checkoutId: second });
    const run = await h.control('POST', '/_sandbox/settlements/run', {});
    expect(run.body.created).toHaveLength(2);
    const deliveries = await h.waitForDeliveries((d) => settledOf(d).length >= 2);
    expect(settledOf(deliveries).map((d) => d.payload['currency_id']).sort()).toEqual([1, 3]);
    expect(new Set(settledOf(deliveries).map((d) => d.payload['settlement_id'])).size).toBe(2);
  });

  it('legacy 1:1 never sends it: charge.done carries the settlement id instead', async () => {
    const charge = await paidCharge(h, '12.50');
    await h.advance(3 * 3600);
    await h.control('POST', '/_sandbox/settlements/run', {});
    const events = await h.events();
    expect(events.filter((e) => e.event === 'settlement.settled')).toEqual([]);
    const done = events.find((e) => e.event === 'charge.done' && e.payload['service_id'] === charge.service_id);
    const id = done?.payload['settlement_id'] as number;
    expect((await h.api('GET', `/v1/settlements/${id}`, TOKENS.cashier)).body.status).toBe('DONE');
  });

  it('goes to the merchant of the settlement only', async () => {
    await setMode(h, 'ars_batched', 1, 1, 2);
    await paidCharge(h, '12.50', { token: TOKENS.otherMerchant });
    await h.control('POST', '/_sandbox/settlements/run', {});
    const events = await h.events();
    expect(events.filter((e) => e.event === 'settlement.settled').map((e) => e.merchant_id)).toEqual([2]);
  });
});
