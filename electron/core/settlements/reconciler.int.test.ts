import { describe, expect, it } from 'vitest';
import { FIXTURE_TOKENS, FIXTURE_WEBHOOK_SECRET } from '../../sandbox/fixture.ts';
import { systemClock } from '../../shared/clock.ts';
import { webhookHeaders } from '../../shared/standard-webhooks.ts';
import type { Core } from '../core.ts';
import { memoryLogger } from '../log.ts';
import { dispatcherAs, sessionAs } from '../operators/fixtures/sign-in.ts';
import type { PendingRow, SettlementListRow, SettlementView } from './reconciler.ts';
import { coreOnSandboxForFile } from '../terminal/fixtures/core.ts';
import { waitFor, type ServiceControl } from '../terminal/fixtures/service.ts';
import type { Reconciliation } from './reconcile.ts';
import { SETTLEMENT_RECONCILED } from './reconciler.ts';

/**
 * Issue 11, first part, against the embedded sandbox over HTTP: sales charged and paid
 * through the core on a batched checkout, the window run, the signed `settlement.settled`
 * journaled and then reconciled against the journal and the REST detail; a webhook
 * delivered twice reconciles once.
 */
const log = memoryLogger(systemClock);
let core: Core;
let svc: ServiceControl;
coreOnSandboxForFile('settlements', log, (app) => ({ core, svc } = app), { secondCheckout: false });

async function paidSale(amountCents: number, externalId: string): Promise<string> {
  const saleId = (await core.charge({ by: 'Caio', amountCents, externalId })).newest?.sale_id ?? '';
  expect((await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 })).status).toBe(200);
  await waitFor(async () => ((await core.terminal.saleDetail(saleId))?.sale.status === 'paid' ? true : undefined), 'the sale to be paid');
  return saleId;
}

async function results(): Promise<Array<{ settlement_id: number; result: Reconciliation }>> {
  return (await core.journal.eventsOfType(SETTLEMENT_RECONCILED)).map((e) => ({ settlement_id: e.data['settlement_id'] as number, result: e.data['result'] as unknown as Reconciliation }));
}

/** The settlements of the two batched modes' sales (1250 and 990 cents each). */
const settledByMode: number[] = [];

describe.each(['blockchain_batched', 'ars_batched'] as const)('a %s checkout', (mode) => {
  it('its settlement is journaled once and Reconciled: every charge matched, the invariants hold, webhook and detail agree', async () => {
    expect((await svc('PUT', '/_sandbox/checkouts/1/1/mode', { mode })).status).toBe(200);
    const before = (await results()).length;
    const sales = [await paidSale(1250, `${mode}-a`), await paidSale(990, `${mode}-b`)];
    const run = await svc('POST', '/_sandbox/settlements/run', {});
    expect(run.status).toBe(200);
    const settled = (run.body as { settled: number[] }).settled;
    expect(settled).toHaveLength(1);
    const [id] = settled as [number];
    settledByMode.push(id);
    const mine = await waitFor(async () => (await results()).find((r) => r.settlement_id === id), 'the settlement to be reconciled');
    expect(mine.result.status).toBe('reconciled');
    expect(mine.result.charges.map((c) => c.check)).toEqual(sales.map((saleId) => ({ kind: 'matched', sale_id: saleId })));
    expect(mine.result.invariants.length).toBeGreaterThan(1);
    expect(mine.result.invariants.every((l) => l.holds)).toBe(true);
    expect(mine.result.differs).toEqual([]);
    expect((await results()).length).toBe(before + 1);
  });
});

/** Delivers a signed webhook to the core's receiver, as the service would. */
async function deliver(webhookId: string, payload: object): Promise<number> {
  const endpoints = (await svc('GET', '/_sandbox/webhook')).body as Record<string, { url: string | null }>;
  const body = JSON.stringify(payload);
  const res = await fetch(endpoints['1']!.url as string, {
    method: 'POST',
    headers: { ...webhookHeaders(FIXTURE_WEBHOOK_SECRET, webhookId, Math.floor(core.clock.now() / 1000), body), 'content-type': 'application/json' },
    body,
  });
  return res.status;
}

describe('what waits for the next settlement', () => {
  it('a batched checkout’s charges wait with their totals; a refund of an earlier batch alone makes the net negative', async () => {
    const call = await dispatcherAs(core, await sessionAs(core, 'supervisor', 'Bia'));
    expect((await svc('PUT', '/_sandbox/checkouts/1/1/mode', { mode: 'ars_batched' })).status).toBe(200);
    const sale = await paidSale(2000, 'pending-a');
    const waiting = (await call('settlements.pending', undefined)) as { ok: true; result: PendingRow[] };
    expect(waiting.result).toEqual([expect.objectContaining({ checkout_id: 1, net_negative: false })]);
    expect(waiting.result[0]!.pending.items.map((i) => i.external_id)).toEqual(['pending-a']);
    expect((await svc('POST', '/_sandbox/settlements/run', {})).status).toBe(200);
    // The sale, now settled, is refunded in full: its deduction waits alone, more than nothing.
    expect((await call('sale.refund', { saleId: sale, amountCents: 2000, reason: 'returned' })).ok).toBe(true);
    const after = (await call('settlements.pending', undefined)) as { ok: true; result: PendingRow[] };
    expect(after.result).toEqual([expect.objectContaining({ checkout_id: 1, net_negative: true })]);
    expect(after.result[0]!.pending.items).toEqual([]);
    expect(after.result[0]!.pending.pending_refunds).toHaveLength(1);
  });
});

describe('a signed settlement.settled that does not add up', () => {
  it('ends Needs attention and says which line: a charge the journal does not know, the net one micro-USDt off', async () => {
    const id = 990_001;
    const status = await deliver('msg_settle_bad', {
      event: 'settlement.settled',
      settlement_id: id,
      provider_settlement_id: null,
      external_settlement_id: '0xfeed',
      amount: 10.000001,
      currency_id: 3,
      source_amount: 10,
      source_currency_id: 3,
      source_net_price: 10,
      settled_at: new Date(core.clock.now()).toISOString(),
      charges: [{ service_id: 'svc_unknown', external_id: 'nobody', service_request_id: 'pix_unknown', charged_amount: 52.5, charged_currency: 'BRL', settlement_amount: 10, settlement_currency: 'USDt' }],
      refunds: [],
    });
    expect(status).toBe(200);
    const mine = await waitFor(async () => (await results()).find((r) => r.settlement_id === id), 'the settlement to be reconciled');
    expect(mine.result.status).toBe('needs_attention');
    expect(mine.result.charges).toEqual([{ service_id: 'svc_unknown', check: { kind: 'not_in_journal' } }]);
    expect(mine.result.invariants.filter((l) => !l.holds).map((l) => l.rule)).toEqual(['net', 'no_refunds_equal']);
    // The service has no such settlement: that is a difference of its own (issue 24 point 4).
    expect(mine.result.differs).toEqual(['missing: detail']);
    // Delivered again: still one result.
    expect(await deliver('msg_settle_bad_again', { event: 'settlement.settled', settlement_id: id, amount: 1 })).toBe(200);
    expect((await results()).filter((r) => r.settlement_id === id)).toHaveLength(1);
  });
});

describe('issue 24 point 4: a settlement the app knows is on its list', () => {
  it('a signed settlement.settled the service does not have (a forged delivery) is listed with Needs attention and what differs, and opens from its webhook', async () => {
    const id = 990_002;
    const settledAt = new Date(core.clock.now()).toISOString();
    // Figures that add up: nothing but the service's silence about it differs.
    const body = { event: 'settlement.settled', settlement_id: id, provider_settlement_id: 'prov-forged', external_settlement_id: null, amount: 0, currency_id: 3, source_amount: 0, source_currency_id: 3, source_net_price: 0, settled_at: settledAt, charges: [], refunds: [] };
    expect(await deliver('msg_settle_forged', body)).toBe(200);
    const mine = await waitFor(async () => (await results()).find((r) => r.settlement_id === id), 'the settlement to be reconciled');
    expect(mine.result.status).toBe('needs_attention');
    expect(mine.result.differs).toEqual(['missing: detail']);
    const call = await dispatcherAs(core, await sessionAs(core, 'supervisor', 'Lia'));
    const now = core.clock.now();
    const listed = (await call('settlements.list', { fromMs: now - 86_400_000, toMs: now + 60_000 })) as { ok: true; result: SettlementListRow[] };
    const row = listed.result.find((r) => r.settlement.settlement_id === id);
    expect(row).toMatchObject({ reconciled: 'needs_attention', missing_from: 'list', settlement: { status: null, amount: { minor: 0, scale: 6, currency: 'USDt' }, settled_at: settledAt } });
    const detail = (await call('settlements.detail', { settlementId: id })) as { ok: true; result: SettlementView };
    expect(detail.ok).toBe(true);
    expect(detail.result.from).toBe('webhook');
    expect(detail.result.status).toBe('needs_attention');
    expect(detail.result.differences.map((d) => `${d.key} ${d.what}`)).toEqual(['missing:detail not_at_service']);
    expect((await core.attention()).settlements.find((n) => n.settlement_id === id)).toMatchObject({ open: 1 });
    // Opening it again journals nothing new.
    expect((await results()).filter((r) => r.settlement_id === id)).toHaveLength(1);
  });
});

describe('a supervisor reads the settlements', () => {
  it('over a range longer than the 31 days the service allows, newest first, each with its result; a detail with its sales', async () => {
    const call = await dispatcherAs(core, await sessionAs(core, 'supervisor', 'Rui'));
    const now = core.clock.now();
    const listed = await call('settlements.list', { fromMs: now - 90 * 86_400_000, toMs: now + 60_000 });
    expect(listed.ok).toBe(true);
    const rows = (listed as { result: SettlementListRow[] }).result;
    const ours = rows.filter((r) => settledByMode.includes(r.settlement.settlement_id));
    expect(ours.map((r) => r.settlement.settlement_id)).toEqual([...settledByMode].reverse());
    expect(ours.every((r) => r.reconciled === 'reconciled' && r.settlement.status === 'DONE')).toBe(true);
    const id = ours[0]!.settlement.settlement_id;
    const detail = (await call('settlements.detail', { settlementId: id })) as { ok: true; result: SettlementView };
    expect(detail.result.result.status).toBe('reconciled');
    const saleIds = detail.result.result.charges.map((c) => (c.check as { sale_id: string }).sale_id);
    expect(saleIds.map((saleId) => detail.result.sales[saleId]?.received_cents)).toEqual([1250, 990]);
    // A range that ends before it starts is refused with the field.
    expect(await call('settlements.list', { fromMs: now, toMs: now - 1 })).toMatchObject({ ok: false, error: { code: 'invalid_argument', params: { field: 'to' } } });
  });
});

describe('settlements no webhook brought', () => {
  it('a settlement whose webhook was dropped is found by the follow-up and Reconciled through its detail', async () => {
    expect((await svc('PUT', '/_sandbox/checkouts/1/1/mode', { mode: 'blockchain_batched' })).status).toBe(200);
    const sale = await paidSale(777, 'dropped-a');
    // The next webhook is the settlement's (the sale's charge.paid and charge.done came already).
    await waitFor(async () => ((await core.journal.sales.get(sale))?.sale.dones.length ? true : undefined), 'the sale’s charge.done');
    expect((await svc('POST', '/_sandbox/faults', { target: 'webhooks', fault: 'drop', event: 'settlement.settled' })).status).toBe(201);
    const [id] = ((await svc('POST', '/_sandbox/settlements/run', {})).body as { settled: number[] }).settled as [number];
    expect((await results()).some((r) => r.settlement_id === id)).toBe(false);
    expect(await core.terminal.reconciler.followUp()).toContain(id);
    const mine = (await results()).find((r) => r.settlement_id === id);
    expect(mine?.result).toMatchObject({ status: 'reconciled', charges: [{ check: { kind: 'matched', sale_id: sale } }] });
    // Asked again, it is not reconciled twice.
    expect(await core.terminal.reconciler.followUp()).not.toContain(id);
  });

  it('a legacy 1:1 checkout (no settlement.settled) is reconciled through its done events and the detail', async () => {
    expect((await svc('PUT', '/_sandbox/checkouts/1/1/mode', { mode: 'ars_per_charge' })).status).toBe(200);
    const sale = await paidSale(1500, 'legacy-a');
    const done = await waitFor(async () => (await core.journal.sales.get(sale))?.sale.dones.find((d) => d.settlement_id !== null), 'the charge.done with its settlement');
    const id = done.settlement_id as number;
    // The provider confirms the transfer (the sandbox's window run confirms what is in flight).
    expect((await svc('POST', '/_sandbox/settlements/run', {})).status).toBe(200);
    await waitFor(async () => ((await core.terminal.reconciler.followUp()).includes(id) || (await results()).some((r) => r.settlement_id === id) ? true : undefined), 'the legacy settlement to be reconciled');
    const mine = (await results()).find((r) => r.settlement_id === id);
    expect(mine?.result).toMatchObject({ status: 'reconciled', charges: [{ check: { kind: 'matched', sale_id: sale } }] });
  });
});

/** Runs the window now and waits for each settlement it closed to be reconciled. */
async function runWindow(): Promise<Array<{ settlement_id: number; result: Reconciliation }>> {
  const run = await svc('POST', '/_sandbox/settlements/run', {});
  expect(run.status).toBe(200);
  const ids = (run.body as { settled: number[] }).settled;
  return Promise.all(ids.map((id) => waitFor(async () => (await results()).find((r) => r.settlement_id === id), `settlement ${id} to be reconciled`)));
}

const saleOf = async (saleId: string) => (await core.journal.sales.get(saleId))!.sale;

describe('refunds inside settled batches (ARS batched)', () => {
  it('a partial and a full refund of an earlier batch, and a partial one in the same batch, are each matched to their sale; every settlement Reconciled; each sale learns its settlement', async () => {
    const call = await dispatcherAs(core, await sessionAs(core, 'supervisor', 'Duda'));
    expect((await svc('PUT', '/_sandbox/checkouts/1/1/mode', { mode: 'ars_batched' })).status).toBe(200);
    const a = await paidSale(3000, 'batch-a');
    const b = await paidSale(2000, 'batch-b');
    const first = await runWindow();
    const s1 = first.find((r) => r.result.charges.some((c) => 'sale_id' in c.check && c.check.sale_id === a));
    expect(s1?.result.status).toBe('reconciled');
    // A partly, B in full: refunds of the batch just settled.
    expect((await call('sale.refund', { saleId: a, amountCents: 1000, reason: 'one item returned' })).ok).toBe(true);
    expect((await call('sale.refund', { saleId: b, amountCents: 2000, reason: 'returned' })).ok).toBe(true);
    const c = await paidSale(5000, 'batch-c');
    const d = await paidSale(4000, 'batch-d');
    expect((await call('sale.refund', { saleId: d, amountCents: 1500, reason: 'price corrected' })).ok).toBe(true);
    const second = await runWindow();
    expect(second).toHaveLength(1);
    const s2 = second[0]!;
    expect(s2.result.status).toBe('reconciled');
    expect(s2.result.charges.map((x) => x.check)).toEqual([c, d].map((saleId) => ({ kind: 'matched', sale_id: saleId })));
    const refunded = s2.result.refunds.map((r) => (r.check.kind === 'matched' ? r.check.sale_id : null));
    expect(refunded).toEqual(expect.arrayContaining([a, b, d]));
    expect(s2.result.invariants.find((l) => l.rule === 'net')?.holds).toBe(true);

    // Each sale knows which settlement took its charge and which its refund.
    const lines = async (saleId: string) => ((await saleOf(saleId)).settlements ?? []).map((f) => `${f.line}:${f.settlement_id}`).sort();
    expect(await lines(a)).toEqual([`charge:${s1!.settlement_id}`, `refund:${s2.settlement_id}`]);
    expect(await lines(b)).toEqual([`charge:${s1!.settlement_id}`, `refund:${s2.settlement_id}`]);
    expect(await lines(d)).toEqual([`charge:${s2.settlement_id}`, `refund:${s2.settlement_id}`]);
    expect((await saleOf(a)).settlements?.[0]?.settled_at).toEqual(expect.any(Number));

    // The report and its CSV say it too: the sale's settlement, and where the money went.
    const report = (await call('journal.shiftReport', {})) as { ok: true; result: { sales: Array<{ sale_id: string; settlement: { settlement_id: number } | null }>; settlement: Record<string, number> } };
    expect(report.ok).toBe(true);
    expect(report.result.sales.find((s) => s.sale_id === a)?.settlement?.settlement_id).toBe(s1!.settlement_id);
    const trail = report.result.settlement;
    expect(trail['settled_cents']! + trail['awaiting_cents']!).toBe(trail['received_cents']);
    expect(trail['refunded_cents']).toBeGreaterThanOrEqual(4500);
    const csv = (await call('journal.exportCsv', {})) as { ok: true; result: { csv: string } };
    const row = csv.result.csv.split('\r\n').find((l) => l.startsWith(`${a},`));
    expect(row?.split(',').slice(-2)[0]).toBe(String(s1!.settlement_id));
  });
});

describe('issue 24 point 1: each refund deduction against the app’s own refunds', () => {
  it('a refund made at the service but not by this app is a deduction this journal does not know: Needs attention on that line', async () => {
    expect((await svc('PUT', '/_sandbox/checkouts/1/1/mode', { mode: 'ars_batched' })).status).toBe(200);
    const sale = await paidSale(2500, 'elsewhere-a');
    await runWindow();
    const serviceId = (await saleOf(sale)).service_id as string;
    // Someone refunds part of it with the merchant's token, outside this app (no journal entry).
    const res = await fetch(`${core.status().service.baseUrl ?? ''}/v2/pay_in_refunds/request`, {
      method: 'POST',
      headers: { authorization: `Bearer ${FIXTURE_TOKENS.manager}`, 'content-type': 'application/json' },
      body: JSON.stringify({ service_id: serviceId, amount: '5.00', reason: 'at the back office' }),
    });
    expect(res.status).toBe(201);
    const made = (await res.json()) as { service_refund_id: string };
    await paidSale(4000, 'elsewhere-b');
    const [next] = await runWindow();
    const line = next!.result.refunds.find((r) => r.service_refund_id === made.service_refund_id);
    expect(line?.check).toEqual({ kind: 'unknown_refund', sale_id: sale, refunded_cents: 500 });
    expect(next!.result.status).toBe('needs_attention');
    expect((await core.terminal.reconciler.notices()).find((n) => n.settlement_id === next!.settlement_id)).toMatchObject({ open: 1 });
  });
});

describe('settlement webhooks delivered twice and out of order', () => {
  it('two settlements, the newer delivered first, each twice: each journaled once and Reconciled', async () => {
    expect((await svc('PUT', '/_sandbox/checkouts/1/1/mode', { mode: 'blockchain_batched' })).status).toBe(200);
    expect((await svc('POST', '/_sandbox/faults', { target: 'webhooks', fault: 'reorder', event: 'settlement.settled', count: 2 })).status).toBe(201);
    expect((await svc('POST', '/_sandbox/faults', { target: 'webhooks', fault: 'duplicate', event: 'settlement.settled', count: 2 })).status).toBe(201);
    const e = await paidSale(1111, 'order-e');
    const [older] = ((await svc('POST', '/_sandbox/settlements/run', {})).body as { settled: number[] }).settled as [number];
    const f = await paidSale(2222, 'order-f');
    const [newer] = ((await svc('POST', '/_sandbox/settlements/run', {})).body as { settled: number[] }).settled as [number];
    for (const id of [older, newer]) await waitFor(async () => (await results()).find((r) => r.settlement_id === id), `settlement ${id} to be reconciled`);
    // Let the second deliveries land too.
    await waitFor(async () => {
      const attempts = (await svc('GET', '/_sandbox/webhooks')).body as Array<{ event: string; status: number | null }>;
      return attempts.filter((w) => w.event === 'settlement.settled' && w.status === 200).length >= 4 ? true : undefined;
    }, 'both deliveries of both settlements');
    const journaled = (await core.journal.eventsOfType('settlement.settled')).filter((x) => x.data['settlement_id'] === older || x.data['settlement_id'] === newer);
    // One entry each, the newer first: the order they came in.
    expect(journaled.map((x) => x.data['settlement_id'])).toEqual([newer, older]);
    const mine = (await results()).filter((r) => r.settlement_id === older || r.settlement_id === newer);
    expect(mine).toHaveLength(2);
    expect(mine.every((r) => r.result.status === 'reconciled')).toBe(true);
    expect(mine.find((r) => r.settlement_id === older)?.result.charges.map((c) => c.check)).toEqual([{ kind: 'matched', sale_id: e }]);
    expect(mine.find((r) => r.settlement_id === newer)?.result.charges.map((c) => c.check)).toEqual([{ kind: 'matched', sale_id: f }]);
  });
});

describe('a person acknowledges each difference, in their name', () => {
  it('the settlement that did not add up: each line acknowledged by the signed-in supervisor, then Acknowledged; an unknown line is refused', async () => {
    const id = 990_001;
    const iara = await dispatcherAs(core, await sessionAs(core, 'supervisor', 'Iara'));
    const joel = await dispatcherAs(core, await sessionAs(core, 'supervisor', 'Joel'));
    const ack = (call: typeof iara, difference: string, note?: string) => call('settlements.acknowledge', { settlementId: id, difference, ...(note === undefined ? {} : { note }) });
    // Until then, it is on every supervisor's attention list with what is still open.
    expect((await core.attention()).settlements.find((n) => n.settlement_id === id)).toMatchObject({ open: 4 });
    const one = (await ack(iara, 'charge:svc_unknown', 'not ours: asked the provider')) as { ok: true; result: Pick<SettlementView, 'status' | 'differences'> };
    expect(one.result.status).toBe('needs_attention');
    expect(one.result.differences.map((d) => [d.key, d.acknowledged?.by ?? null])).toEqual([
      ['charge:svc_unknown', 'Iara'],
      ['invariant:net', null],
      ['invariant:no_refunds_equal', null],
      ['missing:detail', null],
    ]);
    // Acknowledged twice: the first person stays.
    await ack(joel, 'charge:svc_unknown');
    await ack(joel, 'invariant:net');
    await ack(joel, 'invariant:no_refunds_equal');
    const last = (await ack(joel, 'missing:detail', 'forged: no such transfer')) as { ok: true; result: Pick<SettlementView, 'status' | 'differences'> };
    expect(last.result.status).toBe('acknowledged');
    expect((await core.attention()).settlements.some((n) => n.settlement_id === id)).toBe(false);
    expect(last.result.differences.map((d) => d.acknowledged?.by)).toEqual(['Iara', 'Joel', 'Joel', 'Joel']);
    expect(last.result.differences[0]?.acknowledged?.note).toBe('not ours: asked the provider');
    // Journaled in each person's name; the result itself is never changed.
    const acks = (await core.journal.eventsOfType('settlement.acknowledged')).filter((x) => x.data['settlement_id'] === id);
    expect(acks.map((x) => x.data['by'])).toEqual(['Iara', 'Joel', 'Joel', 'Joel']);
    expect((await core.terminal.reconciler.result(id))?.status).toBe('needs_attention');
    expect(await ack(iara, 'charge:svc_other')).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    expect(await iara('settlements.acknowledge', { settlementId: 424_242, difference: 'decode' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});

describe('paid sales no settlement took in time', () => {
  it('a sale whose settlement webhook was dropped is listed two windows after its payment, and no longer once the follow-up found it', async () => {
    const call = await dispatcherAs(core, await sessionAs(core, 'supervisor', 'Nina'));
    expect((await svc('PUT', '/_sandbox/checkouts/1/1/mode', { mode: 'ars_batched' })).status).toBe(200);
    const sale = await paidSale(3300, 'late-settle');
    await waitFor(async () => ((await saleOf(sale)).dones.length > 0 ? true : undefined), 'the sale’s charge.done');
    const unsettled = async () => ((await call('settlements.unsettled', undefined)) as { ok: true; result: Array<{ sale_id: string }> }).result.map((s) => s.sale_id);
    expect(await unsettled()).not.toContain(sale);
    expect((await svc('POST', '/_sandbox/faults', { target: 'webhooks', fault: 'drop', event: 'settlement.settled', count: 5 })).status).toBe(201);
    // Two hours of the service's time: its windows ran, the webhook never came.
    expect((await svc('POST', '/_sandbox/clock/advance', { seconds: 2 * 3600 + 60 })).status).toBe(200);
    expect(await unsettled()).toContain(sale);
    await core.terminal.reconciler.followUp();
    expect((await saleOf(sale)).settlements?.map((f) => f.line)).toEqual(['charge']);
    expect(await unsettled()).not.toContain(sale);
  });
});

describe('issue 24 point 3: pending and "paid, not settled" are keyed by store and checkout', () => {
  it('checkout 1 of store 2 is not checkout 1 of store 1: each pool listed with its store, each late sale checked against its own', async () => {
    const call = await dispatcherAs(core, await sessionAs(core, 'supervisor', 'Otto'));
    const store2 = (await core.backOffice.createStore('Otto', { store_name: 'Loja Norte', address: '', phone_number: '', email: '' })).store_id;
    expect((await core.backOffice.addCheckout('Otto', { storeId: store2, description: 'Caixa 1', walletId: 101 })).checkout_id).toBe(1);
    for (const store of [1, store2]) expect((await svc('PUT', `/_sandbox/checkouts/${store}/1/mode`, { mode: 'ars_batched' })).status).toBe(200);
    const here = await paidSale(1200, 'store1-checkout1');
    const there = (await core.charge({ by: 'Caio', amountCents: 3400, externalId: 'store2-checkout1', storeId: store2, checkoutId: 1 })).newest?.sale_id ?? '';
    expect((await svc('POST', '/_sandbox/pay', { store_id: store2, checkout_id: 1 })).status).toBe(200);
    await waitFor(async () => ((await saleOf(there)).status === 'paid' ? true : undefined), 'the store 2 sale to be paid');

    const pending = (await call('settlements.pending', undefined)) as { ok: boolean; result: PendingRow[] };
    expect(pending.ok).toBe(true);
    const pool = (store: number) => pending.result.find((r) => r.store_id === store && r.checkout_id === 1)?.pending.items.map((i) => i.external_id);
    expect(pool(1)).toContain('store1-checkout1');
    expect(pool(1)).not.toContain('store2-checkout1');
    expect(pool(store2)).toEqual(['store2-checkout1']);

    // Both windows run with their webhooks lost: each sale is late, asked of its own pool.
    await waitFor(async () => ((await saleOf(there)).dones.length > 0 && (await saleOf(here)).dones.length > 0 ? true : undefined), 'both charge.done');
    expect((await svc('POST', '/_sandbox/faults', { target: 'webhooks', fault: 'drop', event: 'settlement.settled', count: 5 })).status).toBe(201);
    expect((await svc('POST', '/_sandbox/clock/advance', { seconds: 2 * 3600 + 60 })).status).toBe(200);
    const late = (await call('settlements.unsettled', undefined)) as { ok: boolean; result: Array<{ sale_id: string; store_id: number; checkout_id: number }> };
    expect(late.ok).toBe(true);
    expect(late.result.filter((s) => s.sale_id === here || s.sale_id === there).map((s) => [s.sale_id, s.store_id, s.checkout_id])).toEqual([
      [here, 1, 1],
      [there, store2, 1],
    ]);
  });
});
