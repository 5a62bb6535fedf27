import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import type { JournalPort } from './port.ts';
import { created, describeJournalPort, qr, reduce, type TestSale } from './fixtures/port-suite.ts';
import { JournalLockedError, openJournal } from './journal.ts';
import type { OpenJournalOptions } from './journal.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describeJournalPort({
  name: 'files',
  segments: 1,
  async fresh() {
    dirs.push(await mkdtemp(join(tmpdir(), 'journal-')));
  },
  open: (definition) => openJournal({ ...definition, dir: dirs.at(-1)! }),
});

let dir: string;
let clock: ManualClock;
const opened: JournalPort<TestSale>[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'journal-'));
  clock = new ManualClock(Date.UTC(2026, 10, 21, 13, 45));
});
afterEach(async () => {
  for (const j of opened.splice(0)) await j.close();
  await rm(dir, { recursive: true, force: true });
});

async function openIt(extra: Partial<OpenJournalOptions<TestSale>> = {}): Promise<JournalPort<TestSale>> {
  const j = await openJournal<TestSale>({ dir, clock, reduceSale: reduce, operatorActions: ['sale.corrected', 'sale.acknowledged'], ...extra });
  opened.push(j);
  return j;
}

describe('status and the data dir', () => {
  it('reports a torn tail repaired at open, with every acknowledged entry intact', async () => {
    let j = await openIt();
    await j.append([created('a', 1, 100), qr('a')]);
    opened.splice(opened.indexOf(j), 1);
    await j.close();
    const { appendFile } = await import('node:fs/promises');
    await appendFile(join(dir, 'journal-2026-11-21.jsonl'), '{"seq":3,"prev":"');
    j = await openIt();
    expect(j.status()).toMatchObject({ state: 'torn-tail-repaired', entries: 2, tornTail: { segment: 'journal-2026-11-21.jsonl', line: 3, bytes: 17 } });
    expect(await j.sales.get('a')).toMatchObject({ status: 'pending' });
    expect(await j.verify()).toEqual({ ok: true, entries: 2 });
  });

  it('opens a corrupt journal read-only and says where it broke', async () => {
    let j = await openIt();
    await j.append([created('a', 1, 100), qr('a'), created('b', 1, 200)]);
    opened.splice(opened.indexOf(j), 1);
    await j.close();
    const file = join(dir, 'journal-2026-11-21.jsonl');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(file, (await readFile(file, 'utf8')).replace('"pix_a"', '"pix_x"'));
    j = await openIt();
    const broken = { segment: 'journal-2026-11-21.jsonl', line: 2, seq: 2, reason: 'hash does not match the content' };
    expect(j.status()).toMatchObject({ state: 'corrupt', entries: 1, corruption: broken });
    expect(await j.sales.get('a')).toMatchObject({ status: 'created' });
    expect(await j.sales.get('b')).toBeUndefined();
    await expect(j.append([created('c', 1, 1)])).rejects.toThrow(/corrupt at journal-2026-11-21.jsonl line 2/);
    expect(await j.verify()).toEqual({ ok: false, firstBroken: broken });
  });

  it('a failed write stops the journal: status failed, appends refused, nothing acknowledged, until a write works again', async () => {
    const j = await openIt();
    // A directory where today's segment should go: opening it for append fails (EISDIR).
    const { mkdir, rmdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'journal-2026-11-21.jsonl'));
    const both = await Promise.allSettled([j.append([created('a', 1, 1)]), j.append([created('b', 1, 1)])]);
    expect(both.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(j.status()).toMatchObject({ state: 'failed', lastSeq: 0, failure: expect.stringMatching(/EISDIR/), failureProblem: 'journal_write_failed' });
    await expect(j.append([created('c', 1, 1)])).rejects.toThrow(/cannot be written.*resumes by itself/);
    expect(await j.sales.get('a')).toBeUndefined();
    // The obstacle goes away: the next append writes, with no reopen.
    await rmdir(join(dir, 'journal-2026-11-21.jsonl'));
    await expect(j.append([created('d', 1, 1)])).resolves.toMatchObject({ firstSeq: 1 });
    expect(j.status()).toMatchObject({ state: 'healthy', failure: null });
  });

  it('refuses a second journal on the same dir while the first is open', async () => {
    const j = await openIt();
    await expect(openIt()).rejects.toBeInstanceOf(JournalLockedError);
    await j.append([created('a', 1, 1)]);
    expect(j.status().lastSeq).toBe(1);
  });
});
