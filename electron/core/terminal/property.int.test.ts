import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { FIXTURE_TOKENS } from '../../sandbox/fixture.ts';
import type { TxStatus } from '../api/routes/sales.ts';
import type { EntryInput } from '../journal/port.ts';
import { memoryLogger } from '../log.ts';
import type { SaleStatus } from '../sales/lifecycle.ts';
import type { WebhookDelivery } from '../webhooks/receiver.ts';
import { factData } from './entries.ts';
import { startServiceForTerminals, terminalOnJournal, type ServiceForTerminals, type TerminalOnJournal } from './fixtures/journal-terminal.ts';
import { shiftTotals } from './shift-report.ts';
import { saleSummary } from './views.ts';
import { mulberry32 } from '../../shared/prng.ts';

/**
 * Any order, any repetition, any crash gives the same book: the property the terminal's
 * intake must have, since webhooks come at least once in no promised order (contract 4),
 * Tx Status races them, and the process may die between any two steps.
 *
 * First a day at a printed checkout is played against the sandbox by a terminal on a real
 * journal: charges, corrections that displace, payments, a late payment for a displaced
 * sale, a wrong amount, a payment for a sale this terminal never made, a refund, with the
 * service's webhooks handed to that terminal as they come. That gives the sale facts the
 * terminal journaled (sale.* entries) and every report the service has for them:
 * its webhook events and its Tx Status answers. Then each report is handed to fresh
 * terminals over fresh journals: once in order, and in random orders with repeats and
 * crashes (the journal closed and reopened under a new Terminal that load()s) between
 * steps. The sale facts keep their own order (one terminal wrote them), the reports fall
 * anywhere around them. Every book must be the in-order one.
 */
const log = memoryLogger(systemClock);
let service: ServiceForTerminals;

beforeAll(async () => {
  service = await startServiceForTerminals(log);
  await service.svc.printCheckout(1, 2);
});
afterAll(() => service?.close());

const pick = <T,>(rnd: () => number, items: readonly T[]): T | undefined => items[Math.floor(rnd() * items.length)];

type Found = Extract<TxStatus, { found: true }>;
type Report = { kind: 'webhook'; delivery: WebhookDelivery } | { kind: 'tx_status'; answer: Found };
interface Day {
  /** What the terminal journaled about its sales, in its order. */
  saleFacts: EntryInput[];
  reports: Report[];
}

const payNewest = (amount?: string) => service.svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1, ...(amount === undefined ? {} : { amount }) });

async function refund(serviceId: string): Promise<void> {
  const res = await fetch(`${service.sandbox.url}/v2/pay_in_refunds/request`, {
    method: 'POST',
    headers: { authorization: `Bearer ${FIXTURE_TOKENS.manager}`, 'content-type': 'application/json' },
    body: JSON.stringify({ service_id: serviceId }),
  });
  if (res.status !== 201) throw new Error(`the refund answered ${res.status}`);
}

/** A sale on checkout 2 that this terminal never rang up, paid: its reports name ids no sale of ours holds. */
async function foreignPayment(): Promise<void> {
  const res = await fetch(`${service.sandbox.url}/v2/create_dynamic_pix`, {
    method: 'POST',
    headers: { authorization: `Bearer ${FIXTURE_TOKENS.manager}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: '7.00', store_id: 1, checkout_id: 2 }),
  });
  if (res.status !== 201) throw new Error(`the foreign sale answered ${res.status}`);
  const made = (await res.json()) as { emv: string };
  expect((await service.svc('POST', '/_sandbox/pay', { emv: made.emv })).status).toBe(200);
}

/** Plays the day, in its own journal; the service keeps every report of it. */
async function playDay(seed: number): Promise<Day> {
  const rnd = mulberry32(seed);
  const before = new Set((await service.webhookEvents()).map((e) => e.webhookId));
  const t = await terminalOnJournal(service, await service.dataDir('property-day'), log);
  // The day's terminal hears each payment as it happens, as at the counter: a sale it knows
  // is paid is not displaced by the next charge.
  const delivered = new Set(before);
  const hear = async (): Promise<void> => {
    for (const delivery of await service.webhookEvents()) {
      if (delivered.has(delivery.webhookId)) continue;
      delivered.add(delivery.webhookId);
      await t.terminal.acceptWebhook(delivery);
    }
  };
  const charge = async (amountCents: number) => {
    await hear();
    await t.terminal.charge({ storeId: 1, checkoutId: 1, amountCents, by: 'ana' });
  };
  const displacedUnpaid = async () => (await service.svc.sales(1, 1)).filter((s) => s.displaced && s.status === 'pending');
  // Every kind of report at least once, then the seed's own steps.
  await charge(1000);
  await payNewest();
  await charge(1250);
  await charge(990); // a correction: the 12,50 sale is displaced unpaid
  const [late] = await displacedUnpaid();
  if (late) expect((await service.svc('POST', '/_sandbox/pay', { late_for: late.pix_id })).status).toBe(200);
  await payNewest('5.00'); // the wrong amount
  await foreignPayment();
  await charge(3000);
  const refunded = await payNewest();
  await refund(refunded.body.service_id);
  for (let step = 0; step < 8; step++) {
    const r = rnd();
    if (r < 0.4) await charge(pick(rnd, [1000, 1250, 990, 4200]) ?? 1000);
    else if (r < 0.7) await payNewest(rnd() < 0.25 ? '1.00' : undefined);
    else if (r < 0.85) {
      const displaced = pick(rnd, await displacedUnpaid());
      if (displaced) await service.svc('POST', '/_sandbox/pay', { late_for: displaced.pix_id });
    } else await foreignPayment();
  }
  // Ends with a sale displaced and never paid, and the one that displaced it still open.
  await charge(2000);
  await charge(2100);
  const entries = await t.journal.eventsBetween(0, Number.MAX_SAFE_INTEGER);
  const saleFacts = entries.filter((e) => e.type.startsWith('sale.') && factData(e) !== null).map((e) => ({ type: e.type, data: e.data }));
  const pixIds = (await t.journal.sales.createdBetween(0, Number.MAX_SAFE_INTEGER)).flatMap((row) => (row.sale.pix_id ? [row.sale.pix_id] : []));
  await t.close();

  const reports: Report[] = (await service.webhookEvents())
    .filter((e) => !before.has(e.webhookId) && (e.payload.event === 'charge.paid' || e.payload.event === 'charge.done'))
    .map((delivery) => ({ kind: 'webhook', delivery }));
  for (const pixId of pixIds) {
    const answer = await service.client.txStatus(pixId);
    if (answer.found && (answer.status === 'paid' || answer.status === 'refunded')) reports.push({ kind: 'tx_status', answer });
  }
  return { saleFacts, reports };
}

type Step = { kind: 'fact'; entry: EntryInput } | { kind: 'report'; report: Report } | { kind: 'crash' };

async function run(steps: readonly Step[], dir: string): Promise<Book> {
  let t: TerminalOnJournal = await terminalOnJournal(service, dir, log);
  for (const step of steps) {
    if (step.kind === 'fact') await t.journal.append([step.entry]);
    else if (step.kind === 'report') {
      const { report } = step;
      if (report.kind === 'webhook') await t.terminal.acceptWebhook(report.delivery);
      else await t.terminal.payments.recordTxStatus(report.answer);
    } else {
      await t.close();
      t = await terminalOnJournal(service, dir, log);
    }
  }
  // The day ends with a start, as the next day does: what load() ties then is part of the book.
  await t.close();
  t = await terminalOnJournal(service, dir, log);
  const book = await bookOf(t);
  await t.close();
  return book;
}

/** The sale facts in their order, the reports shuffled around them with repeats, crashes anywhere. */
function scramble(rnd: () => number, day: Day): Step[] {
  const reports: Step[] = day.reports.flatMap((report) => Array.from({ length: rnd() < 0.3 ? 2 + Math.floor(rnd() * 2) : 1 }, () => ({ kind: 'report' as const, report })));
  for (let i = reports.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [reports[i], reports[j]] = [reports[j] as Step, reports[i] as Step];
  }
  const facts: Step[] = day.saleFacts.map((entry) => ({ kind: 'fact', entry }));
  const steps: Step[] = [];
  while (facts.length > 0 || reports.length > 0) {
    const fromFacts = reports.length === 0 || (facts.length > 0 && rnd() < facts.length / (facts.length + reports.length));
    steps.push((fromFacts ? facts.shift() : reports.shift()) as Step);
    if (rnd() < 0.12) steps.push({ kind: 'crash' });
  }
  return steps;
}

interface Book {
  sales: Array<{ sale_id: string; status: SaleStatus; payments: string[]; dones: string[]; attention: string[]; issues: string[] }>;
  totals: ReturnType<typeof shiftTotals>;
  unmatched: string[];
}

/** What must not depend on order: each sale's status, payments and alerts, the money, the payments kept apart. Times of arrival may. */
async function bookOf(t: TerminalOnJournal): Promise<Book> {
  const sales = (await t.journal.sales.createdBetween(0, Number.MAX_SAFE_INTEGER)).map((row) => row.sale).sort((a, b) => a.seq - b.seq);
  const unmatched = t.terminal.unmatchedPayments();
  return {
    sales: sales.map((s) => ({
      sale_id: s.sale_id,
      status: s.status,
      payments: s.payments.map((p) => `${p.key} ${p.received_cents} ${p.refunded ? 'refunded' : 'kept'} ${p.sources.join('+')}`),
      dones: s.dones.map((d) => `${d.key} ${d.received_cents}`),
      attention: s.attention.map((a) => `${a.reason} ${a.subject}`),
      issues: s.issues.map((i) => i.code),
    })),
    totals: shiftTotals(
      sales.map((s) => saleSummary(s, sales)),
      unmatched.filter((u) => u.kind === 'payment'),
    ),
    unmatched: unmatched.map((u) => `${u.kind} ${u.pix_id} ${u.service_id} ${u.amount_cents} ${u.reason}`).sort(),
  };
}

const SEEDS = [11, 29, Number(process.env.POS_PROPERTY_SEED ?? Math.floor(Math.random() * 1_000_000))];

describe('property: any order, any repetition, any crash between steps gives the same book', () => {
  it.each(SEEDS)('seed %i (replay with POS_PROPERTY_SEED)', async (seed) => {
    console.info(`property seed ${seed}`);
    const day = await playDay(seed);
    const inOrder = await run(
      [...day.saleFacts.map((entry): Step => ({ kind: 'fact', entry })), ...day.reports.map((report): Step => ({ kind: 'report', report }))],
      await service.dataDir('property-in-order'),
    );
    // The day is worth the trial: it holds every outcome the reports can make.
    const statuses = new Set(inOrder.sales.map((s) => s.status));
    for (const status of ['paid', 'amount_mismatch', 'paid_late', 'refunded', 'displaced'] as const) expect(statuses, status).toContain(status);
    expect(inOrder.unmatched.length).toBeGreaterThan(0);
    expect(inOrder.totals.refunded_cents).toBeGreaterThan(0);

    const rnd = mulberry32(seed * 7919);
    for (let trial = 0; trial < 4; trial++) {
      const steps = scramble(rnd, day);
      const book = await run(steps, await service.dataDir('property-scrambled'));
      expect(book, `seed ${seed}, trial ${trial}`).toEqual(inOrder);
    }
  });
});
