import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import type { TxStatus } from '../api/routes/sales.ts';
import { memoryLogger } from '../log.ts';
import type { WebhookDelivery } from '../webhooks/receiver.ts';
import { startServiceForTerminals, terminalOnJournal, type ServiceForTerminals, type TerminalOnJournal } from './fixtures/journal-terminal.ts';

/**
 * One payment, one truth (reference 4.5: a sale is the charge for one payer): its charge.paid
 * webhook and its Tx Status answer are one payment whether either carries the e2e_id or not,
 * in either order; only two different e2e_ids are two payments. Every pairing goes through
 * the terminal the app runs, on a real journal, with the service's own webhook payload and
 * Tx Status answer for a sale the terminal rang up on the sandbox.
 */
const log = memoryLogger(systemClock);
let service: ServiceForTerminals;
const open: TerminalOnJournal[] = [];

beforeAll(async () => {
  service = await startServiceForTerminals(log);
});
afterAll(async () => {
  for (const t of open) await t.close();
  await service?.close();
});

type Found = Extract<TxStatus, { found: true }>;

/** A sale rung up by a fresh terminal and paid by a payer: the service's webhook and Tx Status answer for it. */
async function paidSale(amountCents: number): Promise<{ t: TerminalOnJournal; saleId: string; webhook: WebhookDelivery; answer: Found }> {
  const t = await terminalOnJournal(service, await service.dataDir('identity'), log);
  open.push(t);
  const view = await t.terminal.charge({ storeId: 1, checkoutId: 1, amountCents, by: 'ana' });
  const saleId = view.newest?.sale_id ?? '';
  const paid = await service.svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
  expect(paid.status).toBe(200);
  const webhook = (await service.webhookEvents()).find((e) => e.payload.event === 'charge.paid' && e.payload.pix_id === paid.body.pix_id);
  const answer = await service.client.txStatus(paid.body.pix_id);
  if (!webhook || !answer.found || answer.status !== 'paid' || answer.e2e_id === null) throw new Error('the service did not report the payment');
  return { t, saleId, webhook, answer };
}

const withoutE2e = (w: WebhookDelivery): WebhookDelivery => ({ ...w, payload: { ...w.payload, e2e_id: null } });

describe('a charge.paid webhook and a Tx Status answer of one payment', () => {
  const cases = [true, false].flatMap((webhookE2e) =>
    [true, false].flatMap((pollE2e) => (['webhook first', 'Tx Status first'] as const).map((order) => ({ webhookE2e, pollE2e, order }))),
  );

  it.each(cases)('webhook with e2e_id: $webhookE2e, Tx Status with e2e_id: $pollE2e, $order: one payment, counted once', async ({ webhookE2e, pollE2e, order }) => {
    const { t, saleId, webhook, answer } = await paidSale(1000);
    const delivery = webhookE2e ? webhook : withoutE2e(webhook);
    const poll: Found = pollE2e ? answer : { ...answer, e2e_id: null };
    const steps = [() => t.terminal.acceptWebhook(delivery), () => t.terminal.payments.recordTxStatus(poll)];
    for (const step of order === 'webhook first' ? steps : steps.reverse()) expect(await step()).toBe('recorded');

    const detail = await t.terminal.saleDetail(saleId);
    const row = await t.journal.sales.get(saleId);
    expect(detail?.sale).toMatchObject({ status: 'paid', received_cents: 1000, received_total_cents: 1000, refunded_cents: 0 });
    expect(row?.sale.payments).toHaveLength(1);
    expect(row?.sale.payments[0]?.sources).toEqual(['tx_status', 'webhook']);
    expect(row?.sale.attention).toEqual([]);
    if (webhookE2e || pollE2e) expect(detail?.sale.e2e_id).toBe(answer.e2e_id);
  });

  it.each(['webhook first', 'Tx Status first'] as const)('two different e2e_ids are two payments, the second one for a person (%s)', async (order) => {
    const { t, saleId, webhook, answer } = await paidSale(1200);
    const other = { ...webhook, payload: { ...webhook.payload, e2e_id: 'E99999999202611231200OTHERPAYMT1' } };
    const steps = [() => t.terminal.acceptWebhook(other), () => t.terminal.payments.recordTxStatus(answer)];
    for (const step of order === 'webhook first' ? steps : steps.reverse()) await step();

    const row = await t.journal.sales.get(saleId);
    expect(row?.sale.payments.map((p) => p.e2e_id).sort()).toEqual([answer.e2e_id, 'E99999999202611231200OTHERPAYMT1'].sort());
    expect(row?.sale.attention.map((a) => a.reason)).toEqual(['extra_payment']);
    expect((await t.terminal.saleDetail(saleId))?.sale.received_total_cents).toBe(2400);
  });
});
