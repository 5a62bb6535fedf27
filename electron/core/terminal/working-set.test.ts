import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sales } from '../../bench/working-set.ts';
import { openJournal } from '../journal/journal.ts';
import type { EntryInput, JournalPort } from '../journal/port.ts';
import { SALE_LIFETIME_MS, SALE_STATUSES, type SaleEvent } from '../sales/lifecycle.ts';
import { ManualClock } from '../../shared/clock.ts';
import { paymentFact, saleFact, type SaleRow } from './entries.ts';
import { TERMINAL_JOURNAL } from './terminal.ts';

/**
 * The working set holds most of its sales packed (journal/packed.ts, issue 28): a checkout's
 * newest, its displaceable sales and those that need a person stay as they are. Packing is a
 * matter of memory only: every query answers what a working set holding every row as objects
 * answers, before a restart and after one (read packed from the checkpoint).
 */

const NOW = Date.UTC(2026, 10, 27, 12);
/** 64 checkouts, about 39 sales each: more than twice the newest a checkout keeps unpacked. */
const SALES = 2_500;
const SHIFT = `shift-${new Date(NOW - 6 * 3_600_000).toISOString().slice(0, 10)}`;

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** Sales no generated one is like: only requested, paid the wrong amount, ids outside the BMP. */
function oddSales(): EntryInput[] {
  const at = NOW - 60_000;
  const requested = (sale_id: string, checkout_id: number, seq: number, extra: Partial<Extract<SaleEvent, { type: 'sale.requested' }>> = {}): SaleEvent => ({
    type: 'sale.requested', sale_id, idempotency_key: `key-${sale_id}`, store_id: 1, checkout_id, seq, amount_cents: 9_999_999_999, requested_by: 'cashier-1', at, ...extra,
  });
  const created = (sale_id: string, checkout_id: number, pix_id: string): SaleEvent => ({
    type: 'sale.created', sale_id, pix_id, service_id: `svc-${pix_id}`, qr_type: 'printed_dynamic', emv: `0002${pix_id}6304ABCD`, pqr_emv: null, amount_brl: '99999999.99', store_id: 1, checkout_id, created_at: at + 40, expires_at: at + 40 + SALE_LIFETIME_MS, at: at + 40,
  });
  const emoji = 'venda-🧾-𝔘-😀';
  return [
    saleFact([requested('only-requested', 1, 100_000)], { shift_id: SHIFT }),
    saleFact([requested('wrong-amount', 2, 100_001)], { shift_id: SHIFT }),
    saleFact([created('wrong-amount', 2, 'pix_wrong')]),
    paymentFact({ type: 'payment.received', source: 'webhook', webhook_id: 'msg-wrong', pix_id: 'pix_wrong', service_id: 'svc-pix_wrong', amount_brl: '1.00', paid_at: at + 100, e2e_id: 'E-wrong', at: at + 150 }, 'wrong-amount'),
    saleFact([requested(emoji, 3, 100_002, { external_id: `pedido-${emoji}` })], { shift_id: SHIFT }),
    saleFact([created(emoji, 3, `pix_${emoji}`)]),
    paymentFact({ type: 'payment.received', source: 'webhook', webhook_id: `msg-${emoji}`, pix_id: `pix_${emoji}`, service_id: `svc-pix_${emoji}`, amount_brl: '99999999.99', paid_at: at + 100, e2e_id: null, at: at + 150 }, emoji),
  ];
}

async function open(dir: string, packRows: boolean, unpackSlice?: number): Promise<JournalPort<SaleRow>> {
  return openJournal<SaleRow>({ ...TERMINAL_JOURNAL, dir, clock: new ManualClock(NOW), packRows, ...(unpackSlice === undefined ? {} : { unpackSlice }) });
}

async function fill(journal: JournalPort<SaleRow>): Promise<void> {
  let chunk: EntryInput[] = [];
  const flush = async () => {
    if (chunk.length > 0) await journal.append(chunk);
    chunk = [];
  };
  for (const { type, data } of sales(SALES, NOW - 6 * 3_600_000, NOW - 120_000, 3)) {
    if (type === 'shift.opened') {
      await flush();
      await journal.openShift(String(data.shift_id), 'manager');
    } else if (chunk.push({ type, data }) === 64) await flush();
  }
  await flush();
  await journal.append(oddSales());
}

/** Every query a till, the back office or a report asks of the sales, answered. */
async function answers(j: JournalPort<SaleRow>): Promise<Record<string, unknown>> {
  const all = await j.sales.createdBetween(0, NOW + 1);
  const ids = all.map((r) => r.sale.sale_id);
  const out: Record<string, unknown> = { all, count: (await j.storeStats()).workingSetSales };
  out.get = await Promise.all(ids.map((id) => j.sales.get(id)));
  out.byPixId = await Promise.all(all.map((r) => j.sales.byPixId(r.sale.pix_id ?? 'none')));
  out.byServiceId = await Promise.all(all.map((r) => j.sales.byServiceId(r.sale.service_id ?? 'none')));
  out.byExternalId = await Promise.all(all.filter((_, i) => i % 7 === 0).map((r) => j.sales.byExternalId(r.sale.external_id ?? 'none')));
  const checkouts = Array.from({ length: 64 }, (_, i) => i + 1);
  out.byCheckout = await Promise.all(checkouts.map((c) => j.sales.byCheckout(1, c)));
  out.byCheckoutRange = await Promise.all(checkouts.map((c) => j.sales.byCheckout(1, c, { fromMs: NOW - 3 * 3_600_000, toMs: NOW - 3_600_000 })));
  out.recent = await Promise.all(checkouts.map((c) => j.sales.recentOnCheckout(1, c, 10)));
  out.recentSince = await Promise.all(checkouts.map((c) => j.sales.recentOnCheckout(1, c, 30, NOW - 2 * 3_600_000)));
  out.latest = await Promise.all(checkouts.map((c) => j.sales.latestOnCheckout(1, c)));
  out.needingPerson = await Promise.all(checkouts.map((c) => j.sales.needingPerson(1, c)));
  out.displaceable = await Promise.all(checkouts.map((c) => j.sales.displaceable(1, c)));
  out.needingPersonAnywhere = await j.sales.needingPersonAnywhere();
  out.byStatus = await Promise.all(SALE_STATUSES.map((s) => j.sales.byStatus(s)));
  out.byShift = await j.sales.byShift(SHIFT);
  out.createdBetween = await j.sales.createdBetween(NOW - 4 * 3_600_000, NOW - 2 * 3_600_000);
  return out;
}

describe('a working set held packed', () => {
  // A query of many rows unpacks them a slice at a time (view.ts UNPACK_SLICE, 500): `all`, a
  // status's and the shift's sales are thousands here, so each crosses several slices' ends.
  it('answers every sale query as one holding every row as objects, before and after a restart', async () => {
    const packedDir = await mkdtemp(join(tmpdir(), 'working-set-packed-'));
    const wholeDir = await mkdtemp(join(tmpdir(), 'working-set-whole-'));
    dirs.push(packedDir, wholeDir);
    const packed = await open(packedDir, true);
    const whole = await open(wholeDir, false);
    await fill(packed);
    await fill(whole);
    const before = await answers(whole);
    // The odd sales are there, and what needs a person and what is displaceable is found.
    expect((before.get as (SaleRow | undefined)[]).map((r) => r?.sale.sale_id)).toContain('venda-🧾-𝔘-😀');
    expect((before.needingPersonAnywhere as SaleRow[]).map((r) => r.sale.sale_id)).toContain('wrong-amount');
    expect((before.displaceable as SaleRow[][])[0]!.map((r) => r.sale.sale_id)).toContain('only-requested');
    expect(before.count).toBe(SALES + 3);
    expect(await answers(packed)).toStrictEqual(before);
    await packed.close();
    await whole.close();

    const packedAgain = await open(packedDir, true);
    const wholeAgain = await open(wholeDir, false);
    try {
      expect(packedAgain.status().opened.checkpointSeq).not.toBeNull();
      expect(await answers(wholeAgain)).toStrictEqual(before);
      expect(await answers(packedAgain)).toStrictEqual(before);
    } finally {
      await packedAgain.close();
      await wholeAgain.close();
    }
  }, 60_000);

  it('answers a query of many rows as the working set was when it began, whatever is appended between its slices', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'working-set-sliced-'));
    dirs.push(dir);
    // One packed row a turn: the query takes thousands of turns, and an append lands inside it.
    const journal = await open(dir, true, 1);
    try {
      await fill(journal);
      const before = await journal.sales.createdBetween(0, NOW + 1);
      expect(before.length).toBe(SALES + 3);
      // An old sale (packed) of the middle of the answer gets a payment; a new sale is rung up.
      const changed = before[1_000]!.sale;
      const at = NOW - 30_000;
      const newSale: SaleEvent = { type: 'sale.requested', sale_id: 'rung-up-meanwhile', idempotency_key: 'key-meanwhile', store_id: 1, checkout_id: 5, seq: 200_000, amount_cents: 1_234, requested_by: 'cashier-1', at };
      const order: string[] = [];
      const query = journal.sales.createdBetween(0, NOW + 1).then((rows) => {
        order.push('query');
        return rows;
      });
      const append = journal
        .append([
          paymentFact({ type: 'payment.received', source: 'webhook', webhook_id: 'msg-meanwhile', pix_id: changed.pix_id!, service_id: changed.service_id!, amount_brl: '0.01', paid_at: at, e2e_id: null, at }, changed.sale_id),
          saleFact([newSale], { shift_id: SHIFT }),
        ])
        .then(() => order.push('append'));
      const [during] = await Promise.all([query, append]);
      // The append was done before the query's answer: it landed between two slices.
      expect(order).toEqual(['append', 'query']);
      expect(during).toStrictEqual(before);
      const after = await journal.sales.createdBetween(0, NOW + 1);
      expect(after.map((r) => r.sale.sale_id)).toContain('rung-up-meanwhile');
      // The payment reached the row: the next query answers it changed.
      expect(after.find((r) => r.sale.sale_id === changed.sale_id)).not.toStrictEqual(before[1_000]);
    } finally {
      await journal.close();
    }
  }, 60_000);
});
