import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { CHECKPOINT_FILE, CHECKPOINT_VERSION, checkpointText, readCheckpoint, writeCheckpoint, type CheckpointFile } from './checkpoint.ts';
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

describe('reading it back', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'journal-checkpoint-read-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Rows of about 2 KB with letters of two and three bytes, so lines and letters cross the reader's 1 MB pieces. */
  function wide(rows: number): ReturnType<typeof file> {
    const f = file(rows);
    // A checkpoint is taken at an entry: seq 1 at least, even with no sales.
    f.seq = rows * 2 + 1;
    f.sales = f.sales.map((r, i) => ({ ...r, record: { ...r.record, note: `${'ç€'.repeat(300 + (i % 7))}\n"${i}"` } }));
    f.shifts = [{ id: 'shift-1', state: 'open', opened_at: 1, opened_by: 'manager', closed_at: null, closed_by: null } as unknown as (typeof f.shifts)[number]];
    return f;
  }

  it('is laid out one list item a line, after a header line, and is still one JSON text', async () => {
    const f = wide(3);
    await writeCheckpoint(dir, f);
    const text = await readFile(join(dir, CHECKPOINT_FILE), 'utf8');
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^\{"version":2,.*,"sales":\[$/);
    expect(lines.slice(1, 4).map((l) => JSON.parse(l.replace(/,$/, '')) as unknown)).toEqual(JSON.parse(JSON.stringify(f.sales)));
    expect(lines.slice(4)).toEqual(['],"shifts":[', JSON.stringify(f.shifts[0]), '],"webhooks":[', JSON.stringify(f.webhooks[0]), ']}', '']);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(f)));
  });

  it.each([0, 1, 1_500])('reads back the file it was written from, in pieces (%i rows)', async (rows) => {
    const f = wide(rows);
    await writeCheckpoint(dir, f);
    if (rows === 1_500) expect((await readFile(join(dir, CHECKPOINT_FILE))).length).toBeGreaterThan(2 * 1024 * 1024);
    expect(await readCheckpoint(dir)).toEqual({ ok: true, file: JSON.parse(JSON.stringify(f)) });
  });

  it('still reads a checkpoint written before as one line of JSON', async () => {
    const f = wide(20);
    const { sales, ...rest } = f;
    // The earlier layout: the sales first, everything on one line.
    await writeFile(join(dir, CHECKPOINT_FILE), JSON.stringify({ sales, ...rest }));
    expect(await readCheckpoint(dir)).toEqual({ ok: true, file: JSON.parse(JSON.stringify(f)) });
  });

  it('gives a row read back one object for equal objects in its lists, as the row the fold built had', async () => {
    const f = file(2);
    const payment = { key: 'e2e:E1', amount_brl: '1.00', webhook_ids: ['msg_1'] };
    f.sales = f.sales.map((r) => ({ ...r, record: { ...r.record, payment_reports: [payment], payments: [payment] } as (typeof r)['record'] }));
    for (const write of [writeCheckpoint, async (d: string, c: typeof f) => writeFile(join(d, CHECKPOINT_FILE), JSON.stringify(c))]) {
      await write(dir, f);
      const read = await readCheckpoint<{ payment_reports: object[]; payments: object[] }>(dir);
      if (!read?.ok) throw new Error('the checkpoint was not read');
      const [row] = read.file.sales;
      expect(row!.record.payments[0]).toEqual(payment);
      expect(row!.record.payments[0]).toBe(row!.record.payment_reports[0]);
    }
  });

  const damaged: [string, (text: string) => string][] = [
    ['cut short at a line', (t) => t.split('\n').slice(0, 4).join('\n') + '\n'],
    ['cut short inside a line', (t) => t.slice(0, t.indexOf('\n', t.indexOf('\n') + 1) - 5)],
    ['a line of something else', (t) => t.replace('\n', '\n{"sale_id":\n')],
    ['a list item without its comma', (t) => t.replace(/,\n/, '\n')],
    ['a comma after a list\'s last item', (t) => t.replace('\n],"shifts"', ',\n],"shifts"')],
    ['text after its end', (t) => `${t}{"sale_id":"s9"}\n`],
  ];
  it.each(damaged)('is refused, never half read, when it is damaged: %s', async (_what, damage) => {
    await writeCheckpoint(dir, wide(3));
    await writeFile(join(dir, CHECKPOINT_FILE), damage(await readFile(join(dir, CHECKPOINT_FILE), 'utf8')));
    expect(await readCheckpoint(dir)).toMatchObject({ ok: false, reason: expect.stringMatching(/not valid JSON/) as unknown });
  });

  it('says no checkpoint when there is none', async () => {
    expect(await readCheckpoint(dir)).toBeNull();
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
