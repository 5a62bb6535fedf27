import { describe, expect, it } from 'vitest';
import { CHECKPOINT_VERSION, checkpointText, type CheckpointFile } from './checkpoint.ts';

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
