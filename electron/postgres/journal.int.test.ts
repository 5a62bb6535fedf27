import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.ts';
import { describeJournalPort, created, qr, reduce, type TestSale } from '../core/journal/fixtures/port-suite.ts';
import type { JournalPort } from '../core/journal/port.ts';
import { JournalUnavailableError } from '../core/journal/port.ts';
import { openPool, type Sql } from './connect.ts';
import { openTestDatabase, type TestDatabase } from './fixtures/test-database.ts';
import { openPostgresJournal, type OpenPostgresJournalOptions } from './journal.ts';
import { migrate } from './migrate.ts';

let db: TestDatabase;
let sql: Sql;
/** A second pool on the same database: the test's hand from outside the core. */
let admin: Sql;

beforeAll(async () => {
  db = await openTestDatabase();
  sql = await openPool({ url: db.url, max: 4 });
  admin = await openPool({ url: db.url, max: 2 });
  await migrate(sql);
}, 120_000);
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await admin?.end({ timeout: 5 });
  await db?.drop();
});

async function empty(): Promise<void> {
  await admin`truncate entries, entry_sales, sales, shifts, projections, webhook_ids, settlement_ids, idempotency_keys`;
  await admin`update journal_state set reducer_failures = 0`;
}

describeJournalPort({
  name: 'PostgreSQL',
  segments: 0,
  fresh: empty,
  open: (definition) => openPostgresJournal({ ...definition, sql }),
});

describe('the PostgreSQL journal’s own guarantees', () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 13, 45));
  const open = (extra: Partial<OpenPostgresJournalOptions<TestSale>> = {}): Promise<JournalPort<TestSale>> =>
    openPostgresJournal<TestSale>({ sql, clock, reduceSale: reduce, operatorActions: ['sale.corrected'], ...extra });

  it('keeps money in bigint columns and the entry as the canonical text its hash covers', async () => {
    await empty();
    const j = await open();
    try {
      await j.append([created('a', 3, 9_007_199_254_740_991), qr('a')]);
      await j.append([{ type: 'note', data: { sale_id: 'a', text: 'a NUL \u0000 and an é' } }]);
      const [row] = await admin`select amount_cents, pg_typeof(amount_cents)::text as type, store_id, checkout_id, pix_id, status from sales where sale_id = 'a'`;
      expect(row).toEqual({ amount_cents: '9007199254740991', type: 'bigint', store_id: 1, checkout_id: 3, pix_id: 'pix_a', status: 'pending' });
      const [entry] = await admin`select data from entries where seq = 3`;
      expect(entry!.data).toBe('{"sale_id":"a","text":"a NUL \\u0000 and an é"}');
      expect((await j.eventsForSale('a')).at(-1)?.data.text).toBe('a NUL \u0000 and an é');
      expect(await j.verify()).toEqual({ ok: true, entries: 3 });
    } finally {
      await j.close();
    }
  });

  it('commits appends that arrive together in one transaction, each caller getting its own entries', async () => {
    await empty();
    const j = await open();
    try {
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => j.append([created(`s${i}`, 1 + (i % 4), 100 + i), qr(`s${i}`)])));
      results.forEach((r, i) => expect(r.entries.map((e) => e.data.sale_id)).toEqual([`s${i}`, `s${i}`]));
      const seqs = results.flatMap((r) => r.entries.map((e) => e.seq)).sort((a, b) => a - b);
      expect(seqs).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
      const { commits } = j.status();
      expect(commits.committedEntries).toBe(80);
      expect(commits.commits).toBeLessThan(40);
      expect(await j.verify()).toEqual({ ok: true, entries: 80 });
    } finally {
      await j.close();
    }
  });

  it('refuses an Idempotency-Key taken by another request with the UNIQUE constraint, and only that append', async () => {
    await empty();
    const keyed = (saleId: string, key: string) => ({ type: 'sale.requested', data: { sale_id: saleId, idempotency_key: key } });
    const j = await open({ claimedKeys: (e) => (typeof e.data.idempotency_key === 'string' ? { idempotencyKeys: [{ key: e.data.idempotency_key, saleId: String(e.data.sale_id) }] } : {}) });
    try {
      await j.append([keyed('a', 'key-1')]);
      const [again, other] = await Promise.allSettled([j.append([keyed('b', 'key-1')]), j.append([keyed('c', 'key-2')])]);
      expect(again.status).toBe('rejected');
      expect((again as PromiseRejectedResult).reason).toBeInstanceOf(TypeError);
      expect(String((again as PromiseRejectedResult).reason)).toMatch(/Idempotency-Key already journaled/);
      expect(other).toMatchObject({ status: 'fulfilled' });
      expect((await admin`select idempotency_key, sale_id from idempotency_keys order by idempotency_key`).map((r) => ({ ...r }))).toEqual([
        { idempotency_key: 'key-1', sale_id: 'a' },
        { idempotency_key: 'key-2', sale_id: 'c' },
      ]);
      expect(j.status().state).toBe('healthy');
      expect(await j.verify()).toEqual({ ok: true, entries: 2 });
    } finally {
      await j.close();
    }
  });

  it('keeps the first entry that announced a settlement', async () => {
    await empty();
    const j = await open({ claimedKeys: (e) => (e.type === 'settlement.settled' ? { settlementId: Number(e.data.settlement_id) } : {}) });
    try {
      await j.recordWebhook('wh-1', { type: 'settlement.settled', data: { settlement_id: 77 } });
      await j.recordWebhook('wh-2', { type: 'settlement.settled', data: { settlement_id: 77 } });
      expect((await admin`select settlement_id, seq from settlement_ids`).map((r) => ({ ...r }))).toEqual([{ settlement_id: '77', seq: '1' }]);
    } finally {
      await j.close();
    }
  });

  it('one webhook-id delivered to two cores at once is journaled once', async () => {
    await empty();
    const first = await open();
    const second = await open();
    try {
      const paid = { type: 'charge.paid', data: { sale_id: 'a' } };
      const [a, b] = await Promise.allSettled([first.recordWebhook('wh-1', paid), second.recordWebhook('wh-1', paid)]);
      const values = [a, b].map((r) => (r.status === 'fulfilled' ? r.value : 'refused'));
      // One journals it; the other is told duplicate, or (its seq taken by the first) is refused and the service delivers again.
      expect(values).toContain('recorded');
      expect(values.filter((v) => v === 'recorded')).toHaveLength(1);
      expect((await admin`select count(*)::int as n from webhook_ids where webhook_id = 'wh-1'`)[0]!.n).toBe(1);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('a second core writing to the same database is refused with a sentence, and writes nothing', async () => {
    await empty();
    const first = await open();
    const second = await open();
    try {
      await first.append([created('a', 1, 100)]);
      const refused = second.append([created('b', 1, 200)]);
      await expect(refused).rejects.toBeInstanceOf(JournalUnavailableError);
      await expect(refused).rejects.toThrow(/Another core wrote to this database at the same time/);
      expect(second.status()).toMatchObject({ state: 'failed', failureProblem: 'journal_write_failed' });
      expect(await first.sales.get('b')).toBeUndefined();
      expect(await first.verify()).toEqual({ ok: true, entries: 1 });
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('refuses to write past entries the database lost (an older backup, a replica promoted without the last commits), and writes nothing', async () => {
    await empty();
    const j = await open();
    try {
      await j.append([created('a', 1, 100)]);
      await j.append([created('b', 1, 200)]);
      // The database comes back without the last commit the core saw acknowledged.
      await admin`delete from entry_sales where seq = 2`;
      await admin`delete from sales where sale_id = 'b'`;
      await admin`delete from entries where seq = 2`;
      const refused = j.append([created('c', 1, 300)]);
      await expect(refused).rejects.toBeInstanceOf(JournalUnavailableError);
      await expect(refused).rejects.toThrow("The database's journal does not end where this core's does: entry 2 is not in it as written.");
      expect(j.status()).toMatchObject({ state: 'failed', failureProblem: 'journal_write_failed' });
      expect((await admin`select seq from entries order by seq`).map((r) => Number(r.seq))).toEqual([1]);
    } finally {
      await j.close();
    }
  });

  it('finds a tampered row: verify names the entry, and appends are refused', async () => {
    await empty();
    const j = await open();
    try {
      await j.append([created('a', 1, 100), created('b', 1, 200), created('c', 1, 300)]);
      await admin`update entries set data = ${'{"amount_cents":1,"checkout_id":1,"sale_id":"b","store_id":1}'} where seq = 2`;
      expect(await j.verify()).toEqual({ ok: false, firstBroken: { segment: 'postgresql', line: 2, seq: 2, reason: 'it does not hash to the hash it carries' } });
      expect(j.status().state).toBe('corrupt');
      await expect(j.append([created('d', 1, 1)])).rejects.toThrow(/damaged at entry 2.*restore the database from its backup/);
    } finally {
      await j.close();
    }
  });

  it('a connection cut before the commit: the append is sent once more and lands once', async () => {
    await empty();
    let cut = true;
    const j = await open({
      faults: {
        beforeCommit: async () => {
          if (!cut) return;
          cut = false;
          await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'pix-cashier' and pid <> pg_backend_pid() and state = 'idle in transaction'`;
        },
      },
    });
    try {
      const result = await j.append([created('a', 1, 100), qr('a')]);
      expect(result).toMatchObject({ firstSeq: 1, lastSeq: 2 });
      expect(cut).toBe(false);
      expect((await admin`select count(*)::int as n from entries`)[0]!.n).toBe(2);
      expect(await j.sales.get('a')).toMatchObject({ status: 'pending', history: ['created@1', 'qr@2'] });
      expect(j.status().state).toBe('healthy');
    } finally {
      await j.close();
    }
  });

  it('a commit whose answer is lost: the append is found landed and not written again', async () => {
    await empty();
    let lose = true;
    const j = await open({
      faults: {
        afterCommit: async () => {
          if (!lose) return;
          lose = false;
          throw Object.assign(new Error('write CONNECTION_CLOSED'), { code: 'CONNECTION_CLOSED' });
        },
      },
    });
    try {
      const result = await j.append([created('a', 1, 100)]);
      expect(result).toMatchObject({ firstSeq: 1, lastSeq: 1 });
      await j.append([qr('a')]);
      expect((await admin`select seq from entries order by seq`).map((r) => Number(r.seq))).toEqual([1, 2]);
      expect(await j.sales.get('a')).toMatchObject({ history: ['created@1', 'qr@2'] });
      expect(await j.verify()).toEqual({ ok: true, entries: 2 });
    } finally {
      await j.close();
    }
  });

  it('a projection new to the definition is folded over the whole journal once, then kept', async () => {
    await empty();
    const count = { initial: 0, reduce: (n: number) => n + 1 };
    let j = await open();
    await j.append([created('a', 1, 100), created('b', 1, 100)]);
    await j.close();
    j = await open({ projections: { count } });
    try {
      expect(j.projection<number>('count')).toBe(2);
      await j.append([created('c', 1, 100)]);
      expect(j.projection<number>('count')).toBe(3);
      expect((await admin`select state from projections where name = 'count'`)[0]!.state).toBe('3');
    } finally {
      await j.close();
    }
  });
});
