import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { CHECKPOINT_VERSION, checkpointText, type CheckpointFile } from './checkpoint.ts';
import { GENERATED_OPEN_STATUSES, generatedSaleReducer, type GeneratedSale } from '../../bench/generate-history.ts';
import type { JournalPort } from './port.ts';
import { CHECKPOINT_ENTRIES_PER_SALE, CHECKPOINT_EVERY, openJournal } from './journal.ts';

function file(rows: number): CheckpointFile<{ sale_id: string; amount_cents: number; note: string }> {
  return {
    version: CHECKPOINT_VERSION,
    seq: rows * 2,
    hash: 'h'.repeat(64),
    segment: 'journal-2026-11-24.jsonl',
    segments: [],
    acknowledgedBreaks: [],
    tails: [],
    sales: Array.from({ length: rows }, (_, i) => ({
      sale_id: `s${i}`,
      store_id: 1,
      checkout_id: 1 + (i % 64),
      status: 'paid',
      created_at: i,
      record: { sale_id: `s${i}`, amount_cents: 100 + i, note: 'a "quoted", text\n' },
      touched_seq: i,
      touched_at: i,
    })),
    shifts: [],
    webhooks: [{ webhook_id: 'msg_1', seq: 1, at: 1 }],
    projections: { 'settlements.book': { settlements: {} } },
    reducerFailures: 0,
  };
}

describe('the checkpoint’s text', () => {
  it.each([0, 1, 1_201])('reads back as the file it was made of (%i rows)', async (rows) => {
    const f = file(rows);
    expect(JSON.parse(await checkpointText(f))).toEqual(JSON.parse(JSON.stringify(f)));
  });

  it('lets the event loop run between a few hundred rows, so a large working set never holds it long', async () => {
    let turns = 0;
    let done = false;
    const tick = () => {
      if (done) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    await checkpointText(file(2_000));
    done = true;
    expect(turns).toBeGreaterThanOrEqual(3);
  });

  it('refuses a record JSON would change, as canonical JSON does', async () => {
    const f = file(3);
    f.sales[1] = { ...f.sales[1]!, record: { ...f.sales[1]!.record, amount_cents: Number.NaN } };
    await expect(checkpointText(f)).rejects.toThrow();
  });
});

describe('how often the journal writes one', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'journal-checkpoint-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const sale = (n: number) => ({ type: 'sale.created', data: { sale_id: `s${n}`, store_id: 1, checkout_id: 1 + (n % 8), amount_cents: 100, external_id: `o${n}`, shift_id: 'x', by: 'c' } });
  const touch = (n: number) => ({ type: 'sale.qr_issued', data: { sale_id: `s${n}`, pix_id: `pix_${n}`, service_id: `svc_${n}` } });
  const written = async (j: JournalPort<GeneratedSale>) => (await j.storeStats()).checkpointsWritten;

  it('waits CHECKPOINT_ENTRIES_PER_SALE entries a sale once the working set holds more than CHECKPOINT_EVERY of them', async () => {
    const j = await openJournal<GeneratedSale>({ dir, clock: new ManualClock(Date.UTC(2026, 10, 26, 9)), reduceSale: generatedSaleReducer, openStatuses: GENERATED_OPEN_STATUSES });
    try {
      const sales = 2_000;
      const every = CHECKPOINT_ENTRIES_PER_SALE * sales;
      expect(every).toBeGreaterThan(CHECKPOINT_EVERY);
      const start = await written(j);
      await j.append(Array.from({ length: sales }, (_, n) => sale(n)));
      // CHECKPOINT_EVERY entries and more: not yet, the working set holds a quarter as many sales as that.
      await j.append(Array.from({ length: every - sales - 1 }, (_, n) => touch(n % sales)));
      expect(await written(j)).toBe(start);
      await j.append([touch(0)]);
      expect(await written(j)).toBe(start + 1);
    } finally {
      await j.close();
    }
  });
});
