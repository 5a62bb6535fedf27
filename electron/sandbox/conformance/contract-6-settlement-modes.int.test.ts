/**
 * Contract 6 (settlement modes, quotes, windows, deductions) and its control routes of
 * contract 7, through HTTP against a sandbox started in-process on loopback. Expected
 * figures are computed here with integer arithmetic from the documented fixed rates.
 */
import { describe, expect, it } from 'vitest';
import { SANDBOX_RATES } from '../quotes.ts';
import { TOKENS, paidCharge, setMode, useHarness, units, type Answer, type Harness } from './payout-settlement-harness.ts';

const h: Harness = useHarness();

function halfEven(n: bigint, d: bigint): bigint {
  let q = n / d;
  const twice = 2n * (n % d);
  if (twice > d || (twice === d && q % 2n === 1n)) q += 1n;
  return q;
}

/** contract 6: charged_amount x rate, half-even to `scale` places; returns the JSON number. */
function expectedQuote(brl: string, rate: string, scale: number): number {
  const cents = units(brl, 2);
  const rateScale = (rate.split('.')[1] ?? '').length;
  const value = halfEven(cents * BigInt(rate.replace('.', '')), 10n ** BigInt(2 + rateScale - scale));
  return Number(value) / 10 ** scale;
}

async function run(): Promise<Answer> {
  const r = await h.control('POST', '/_sandbox/settlements/run', {});
  expect(r.status).toBe(200);
  return r;
}

async function pending(): Promise<Answer> {
  return h.api('GET', '/v1/settlements/pending-charges', TOKENS.cashier);
}

async function detail(id: number): Promise<Answer> {
  return h.api('GET', `/v1/settlements/${id}`, TOKENS.cashier);
}

async function refund(serviceId: string, amount?: string): Promise<Answer> {
  const r = await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, amount === undefined ? { service_id: serviceId } : { service_id: serviceId, amount });
  expect(r.status).toBe(201);
  return r;
}

describe('PUT /_sandbox/checkouts/{store_id}/{checkout_id}/mode', () => {
  it.each(['ars_per_charge', 'ars_batched', 'blockchain_batched'])('sets %s', async (mode) => {
    const r = await h.control('PUT', '/_sandbox/checkouts/1/1/mode', { mode });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ merchant_id: 1, store_id: 1, checkout_id: 1, mode });
  });

  it('takes merchant_id for another merchant checkout', async () => {
    const r = await h.control('PUT', '/_sandbox/checkouts/1/1/mode', { mode: 'ars_batched', merchant_id: 2 });
    expect(r.body).toEqual({ merchant_id: 2, store_id: 1, checkout_id: 1, mode: 'ars_batched' });
  });

  it('refuses an unknown mode (422), an unknown checkout (404) and a non-integer path (422)', async () => {
    const bad = await h.control('PUT', '/_sandbox/checkouts/1/1/mode', { mode: 'usd_batched' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ type: 'literal_error', loc: ['body', 'mode'] })]);
    expect((await h.control('PUT', '/_sandbox/checkouts/1/9/mode', { mode: 'ars_batched' })).status).toBe(404);
    expect((await h.control('PUT', '/_sandbox/checkouts/x/1/mode', { mode: 'ars_batched' })).status).toBe(422);
  });
});

describe('quotes at charge creation (half-even, 2 places ARS, 6 places USDt)', () => {
  it.each([
    ['12.50', 3091.48], // 3091.47875: above half
    ['50.00', 12365.92], // 12365.915: half after an odd digit rounds up
    ['150.00', 37097.74], // 37097.745: half after an even digit stays
    ['0.01', 2.47],
  ])('ARS: %s BRL settles at %s', async (brl, ars) => {
    expect(expectedQuote(brl, SANDBOX_RATES.BRL_ARS, 2)).toBe(ars);
    await setMode(h, 'ars_batched');
    await paidCharge(h, brl);
    expect((await pending()).body.items[0]).toMatchObject({ charged_amount: Number(brl), settlement_amount: ars, settlement_currency: 'ARS' });
  });

  it.each([
    ['12.50', 2.279312], // 2.2793125: half after an even digit stays
    ['0.10', 0.018234], // 0.0182345: same
    ['0.30', 0.054704], // 0.0547035: half after an odd digit rounds up
    ['1000.00', 182.345],
  ])('USDt: %s BRL settles at %s', async (brl, usdt) => {
    expect(expectedQuote(brl, SANDBOX_RATES.BRL_USDT, 6)).toBe(usdt);
    await setMode(h, 'blockchain_batched');
    await paidCharge(h, brl);
    expect((await pending()).body.items[0]).toMatchObject({ settlement_amount: usdt, settlement_currency: 'USDt' });
  });

  it('keeps the mode a charge was created in, even if the checkout changes before payment', async () => {
    await setMode(h, 'ars_batched');
    const early = await paidCharge(h, '12.50', { pay: false });
    await setMode(h, 'blockchain_batched');
    const late = await paidCharge(h, '12.50', { pay: false });
    // the payer pays the newest charge first (by checkout), then the earlier one through its own QR
    await h.control('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    const sales = await h.control('GET', '/_sandbox/sales?store_id=1&checkout_id=1');
    const earlyRow = sales.body.find((s: { pix_id: string }) => s.pix_id === early.pix_id);
    await h.control('POST', '/_sandbox/pay', { emv: earlyRow.emv });
    const created = (await run()).body.created as { settlement_id: number; currency: string }[];
    expect(created.map((s) => s.currency).sort()).toEqual(['ARS', 'USDt']);
    const ars = await detail(created.find((s) => s.currency === 'ARS')!.settlement_id);
    expect(ars.body.charges.map((c: { service_id: string }) => c.service_id)).toEqual([early.service_id]);
    const usdt = await detail(created.find((s) => s.currency === 'USDt')!.settlement_id);
    expect(usdt.body.charges.map((c: { service_id: string }) => c.service_id)).toEqual([late.service_id]);
  });

  it('quotes what the payer actually paid', async () => {
    await setMode(h, 'ars_batched');
    const charge = await paidCharge(h, '12.50', { pay: false });
    await h.control('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1, amount: '50.00' });
    expect((await pending()).body.items).toEqual([expect.objectContaining({ service_id: charge.service_id, charged_amount: 50, settlement_amount: 12365.92 })]);
  });
});

describe('ars_per_charge (legacy 1:1)', () => {
  it('one settlement per charge, its id on charge.done, no settlement.settled, nothing pending', async () => {
    const a = await paidCharge(h, '12.50');
    const b = await paidCharge(h, '7.00');
    const events = await h.events();
    const idOf = (serviceId: string): number => events.find((e) => e.event === 'charge.done' && e.payload['service_id'] === serviceId)!.payload['settlement_id'] as number;
    const [idA, idB] = [idOf(a.service_id), idOf(b.service_id)];
    expect(idA).not.toBe(idB);
    expect((await detail(idA)).body).toMatchObject({ currency: 'ARS', amount: 3091.48, charges: [expect.objectContaining({ service_id: a.service_id })] });
    expect((await detail(idB)).body.charges).toEqual([expect.objectContaining({ service_id: b.service_id, settlement_amount: 1731.23 })]);
    expect((await pending()).body.totals.count).toBe(0);
    await h.advance(2 * 3600);
    expect((await detail(idA)).body.status).toBe('DONE');
    expect((await h.events()).some((e) => e.event === 'settlement.settled')).toBe(false);
  });
});

describe('batched windows (every hour of sandbox time)', () => {
  it('groups the charges done in a window into one settlement; later ones wait for the next', async () => {
    await setMode(h, 'ars_batched');
    const now = await h.now();
    const boundary = Math.ceil(now / 3_600_000) * 3_600_000;
    const a = await paidCharge(h, '1.00');
    const b = await paidCharge(h, '2.00');
    await h.advance((boundary - now) / 1000 + 1);
    const c = await paidCharge(h, '3.00');
    await h.advance(180);
    const settlements = (await h.api('GET', `/v1/settlements?start_date=${encodeURIComponent(new Date(now - 3_600_000).toISOString())}&end_date=${encodeURIComponent(new Date(now + 86_400_000).toISOString())}`, TOKENS.cashier)).body.settlements;
    expect(settlements).toHaveLength(1);
    const first = await detail(settlements[0].settlement_id);
    expect(first.body.charges.map((x: { service_id: string }) => x.service_id)).toEqual([a.service_id, b.service_id]);
    expect(Date.parse(first.body.created_at)).toBe(boundary);
    expect((await pending()).body.items.map((x: { service_id: string }) => x.service_id)).toEqual([c.service_id]);
    await h.advance(3600);
    expect((await pending()).body.items).toEqual([]);
  });

  it('a window with a non-positive net leaves everything pending; a full refund cancels its charge exactly', async () => {
    await setMode(h, 'ars_batched');
    const charge = await paidCharge(h, '12.50');
    await refund(charge.service_id);
    expect((await run()).body.created).toEqual([]);
    expect((await pending()).body.totals).toEqual({ count: 1, settlement_amount: 3091.48, refund_count: 1, refund_deduction: 3091.48, net_settlement_amount: 0 });
    await h.advance(3 * 3600);
    expect((await pending()).body.totals.count).toBe(1);
    const next = await paidCharge(h, '7.00');
    const created = (await run()).body.created;
    expect(created).toHaveLength(1);
    const s = await detail(created[0].settlement_id);
    expect(s.body.charges.map((x: { service_id: string }) => x.service_id)).toEqual([charge.service_id, next.service_id]);
    expect(s.body.refunds).toHaveLength(1);
    // what is left is exactly the new charge's quote
    expect(s.body.amount).toBe(1731.23);
    expect((await pending()).body.totals).toMatchObject({ count: 0, refund_count: 0 });
  });

  it('prorates partial refunds at the charge own rate; the parts add up to the charge, one per window', async () => {
    await setMode(h, 'ars_batched');
    const charge = await paidCharge(h, '10.00'); // 2473.18 ARS
    await paidCharge(h, '100.00');
    const r1 = await refund(charge.service_id, '3.33');
    const r2 = await refund(charge.service_id, '3.33');
    // at most one pending deduction per refunded charge
    expect((await pending()).body.pending_refunds.map((r: { service_refund_id: string }) => r.service_refund_id)).toEqual([r1.body.service_refund_id]);
    const deductions: number[] = [];
    const s1 = await detail((await run()).body.created[0].settlement_id);
    deductions.push(...s1.body.refunds.map((r: { deduction_amount: number }) => r.deduction_amount));
    expect(s1.body.refunds.map((r: { service_refund_id: string }) => r.service_refund_id)).toEqual([r1.body.service_refund_id]);
    const r3 = await refund(charge.service_id); // the rest: 3.34
    expect(r3.body.refunded_amount).toBe('3.34');
    expect((await pending()).body.pending_refunds.map((r: { service_refund_id: string }) => r.service_refund_id)).toEqual([r2.body.service_refund_id]);
    for (let i = 0; i < 2; i++) {
      await paidCharge(h, '100.00');
      const s = await detail((await run()).body.created[0].settlement_id);
      deductions.push(...s.body.refunds.map((r: { deduction_amount: number }) => r.deduction_amount));
    }
    // 2473.18 x 333/1000 = 823.56894 -> 823.57; cumulative 666 -> 1647.14; all -> 2473.18
    expect(deductions).toEqual([823.57, 823.57, 826.04]);
    expect(deductions.reduce((t, d) => t + units(d, 2), 0n)).toBe(units(2473.18, 2));
  });

  it('deducts in USDt for blockchain batched', async () => {
    await setMode(h, 'blockchain_batched');
    const charge = await paidCharge(h, '12.50');
    await paidCharge(h, '5.00');
    await refund(charge.service_id, '6.25');
    expect((await pending()).body.pending_refunds[0]).toMatchObject({ deduction_amount: 1.139656, deduction_currency: 'USDt' });
  });
});
