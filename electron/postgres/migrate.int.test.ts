import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPool } from './connect.ts';
import type { Sql } from './connect.ts';
import { openTestDatabase } from './fixtures/test-database.ts';
import type { TestDatabase } from './fixtures/test-database.ts';
import { migrate, MIGRATIONS_DIR, readMigrations } from './migrate.ts';

let db: TestDatabase;
const pools: Sql[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end({ timeout: 5 })));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await db?.drop();
});

/** A pool on a fresh, empty database of this file's server. */
async function freshPool(): Promise<Sql> {
  const pool = await openPool({ url: await db.another(), max: 3 });
  pools.push(pool);
  return pool;
}

/** A migrations dir: this app's first file (the journal) plus `extra` (name → SQL), so the versions after 1 are the test's. */
function migrationsDir(extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'pos-migrations-'));
  dirs.push(dir);
  cpSync(join(MIGRATIONS_DIR, '0001_journal.sql'), join(dir, '0001_journal.sql'));
  for (const [name, text] of Object.entries(extra)) writeFileSync(join(dir, name), text);
  return dir;
}

async function recorded(sql: Sql) {
  return sql<{ version: number; name: string; checksum: string }[]>`select version, name, checksum from schema_migrations order by version`;
}

/** Advisory locks held on the server: a refused or failed run must not leave its lock behind. */
async function advisoryLocks(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`;
  return row?.n ?? -1;
}

async function tables(sql: Sql): Promise<string[]> {
  const rows = await sql<{ table_name: string }[]>`select table_name from information_schema.tables where table_schema = 'public' order by table_name`;
  return rows.map((r) => r.table_name);
}

describe('migrate', () => {
  let sql: Sql;

  it("applies this app's files in order, each recorded with its file's sha256", async () => {
    sql = await freshPool();
    const dir = migrationsDir({ '0002_second.sql': 'create table second (id integer primary key);', '0003_third.sql': 'alter table second add column note text;' });
    const result = await migrate(sql, { dir });
    expect(result).toEqual({ applied: ['0001_journal.sql', '0002_second.sql', '0003_third.sql'], version: 3 });
    const files = await readMigrations(dir);
    expect(await recorded(sql)).toEqual(files.map((m) => ({ version: m.version, name: m.name, checksum: m.checksum })));
    expect(files[0]?.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(await tables(sql)).toEqual(
      ['entries', 'entry_sales', 'idempotency_keys', 'journal_state', 'projections', 'sales', 'schema_migrations', 'second', 'settlement_ids', 'shifts', 'webhook_ids'],
    );
  });

  it('changes nothing when run again', async () => {
    sql = await freshPool();
    await migrate(sql);
    const before = await sql`select version, name, checksum, applied_at from schema_migrations order by version`;
    expect(await migrate(sql)).toEqual({ applied: [], version: (await readMigrations()).at(-1)!.version });
    expect(await sql`select version, name, checksum, applied_at from schema_migrations order by version`).toEqual(before);
  });

  it('applies each migration exactly once when two cores start at once on a fresh database', async () => {
    const url = await db.another();
    const [a, b] = await Promise.all([openPool({ url, max: 2 }), openPool({ url, max: 2 })]);
    pools.push(a, b);
    const dir = migrationsDir({ '0002_counted.sql': "create table counted (n integer); insert into counted values (1);" });
    const results = await Promise.all([migrate(a, { dir }), migrate(b, { dir })]);
    expect(results.map((r) => r.applied).sort((x, y) => y.length - x.length)).toEqual([['0001_journal.sql', '0002_counted.sql'], []]);
    expect(results.map((r) => r.version)).toEqual([2, 2]);
    expect((await recorded(a)).map((r) => r.version)).toEqual([1, 2]);
    expect(await a`select count(*)::int as n from counted`).toEqual([{ n: 1 }]);
  });

  it('refuses a file changed after it was applied, with a sentence', async () => {
    sql = await freshPool();
    const dir = migrationsDir();
    await migrate(sql, { dir });
    const file = join(dir, '0001_journal.sql');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\ncreate table sneaked_in (id integer);\n`);
    await expect(migrate(sql, { dir })).rejects.toThrow(
      /^Migration 0001_journal\.sql was changed after it was applied to this database \(sha256 [0-9a-f]{12}… then, [0-9a-f]{12}… now\): put the file back as it was, and make the change in a new migration\.$/,
    );
    expect(await tables(sql)).not.toContain('sneaked_in');
  });

  it("refuses a database whose schema is newer than this app's, with a sentence", async () => {
    sql = await freshPool();
    const dir = migrationsDir({ '0002_b.sql': 'select 1;', '0003_c.sql': 'select 1;' });
    await migrate(sql, { dir });
    await sql`insert into schema_migrations (version, name, checksum) values (7, 'from_a_newer_app', ${'0'.repeat(64)})`;
    await expect(migrate(sql, { dir })).rejects.toThrow(
      "This database's schema is version 7, newer than this app's 3: start the newer app, or restore a database made by this version.",
    );
    expect(await advisoryLocks(sql)).toBe(0);
  });

  it('refuses a database with a migration this app does not have', async () => {
    sql = await freshPool();
    const dir = migrationsDir({ '0002_b.sql': 'select 1;', '0003_c.sql': 'select 1;' });
    await migrate(sql, { dir });
    rmSync(join(dir, '0002_b.sql'));
    await expect(migrate(sql, { dir })).rejects.toThrow(
      'This database has migration 0002_b.sql applied, which this app does not have: start the app that made this database, or restore a database made by this version.',
    );
  });

  it('rolls back a migration that fails midway, records nothing of it, and names the file', async () => {
    sql = await freshPool();
    const dir = migrationsDir({
      '0002_half_done.sql': 'create table half_done (id integer primary key);\ninsert into half_done values (1);\nalter table entries add column note text;\nselect 1 / 0;\n',
      '0003_never.sql': 'create table never (id integer);',
    });
    await expect(migrate(sql, { dir })).rejects.toThrow('Migration 0002_half_done.sql failed and was rolled back, so nothing of it was applied: division by zero.');
    expect((await recorded(sql)).map((r) => r.version)).toEqual([1]);
    expect(await advisoryLocks(sql)).toBe(0);
    const present = await tables(sql);
    expect(present).toContain('entries');
    expect(present).not.toContain('half_done');
    expect(present).not.toContain('never');
    const columns = await sql`select column_name from information_schema.columns where table_name = 'entries' and column_name = 'note'`;
    expect(columns).toHaveLength(0);
    // Once the file is fixed, the run goes on from where it stopped.
    writeFileSync(join(dir, '0002_half_done.sql'), 'create table half_done (id integer primary key);\n');
    expect(await migrate(sql, { dir })).toEqual({ applied: ['0002_half_done.sql', '0003_never.sql'], version: 3 });
  });

  it('refuses a migration that ends its own transaction, and does not record it', async () => {
    sql = await freshPool();
    const dir = migrationsDir({ '0002_commits.sql': 'create table before_commit (id integer);\ncommit;\ncreate table after_commit (id integer);\n' });
    await expect(migrate(sql, { dir })).rejects.toThrow(
      'Migration 0002_commits.sql ends the transaction it runs in (a COMMIT or ROLLBACK in the file), so it cannot be applied as one: take those statements out, and check what of it is already in the database before starting again.',
    );
    expect((await recorded(sql)).map((r) => r.version)).toEqual([1]);
    expect(await advisoryLocks(sql)).toBe(0);
  });

  it('refuses a migration file that is not named NNNN_name.sql', async () => {
    const dir = migrationsDir({ '2_quick.sql': 'select 1;' });
    await expect(readMigrations(dir)).rejects.toThrow('Migration file 2_quick.sql is not named like 0001_name.sql (four digits, an underscore, lower-case letters, digits and underscores).');
  });

  it("gives the pool's connection its statement timeout back after a run", async () => {
    const pool = await openPool({ url: await db.another(), max: 1, statementTimeoutMs: 1_234 });
    pools.push(pool);
    await migrate(pool);
    expect(await pool`select current_setting('statement_timeout') as timeout`).toEqual([{ timeout: '1234ms' }]);
  });
});

describe('the journal schema (0001)', () => {
  let sql: Sql;
  beforeAll(async () => {
    sql = await freshPool();
    await migrate(sql);
  });

  const hex = (c: string) => c.repeat(64);
  async function entry(seq: number): Promise<void> {
    await sql`insert into entries (seq, prev, hash, at, type, data) values (${seq}, ${hex(String(seq - 1))}, ${hex(String(seq))}, ${1_764_000_000_000 + seq}, 'test.entry', ${sql.json({ n: seq })})`;
  }

  it('keeps money in bigint columns: integer minor units, never a float', async () => {
    const money = await sql`
      select table_name, column_name, data_type from information_schema.columns
      where table_schema = 'public' and (column_name like '%cents%' or column_name like '%amount%')`;
    expect(money.length).toBeGreaterThan(0);
    expect(money.map((c) => c.data_type)).toEqual(money.map(() => 'bigint'));
    const floats = await sql`select table_name, column_name from information_schema.columns where table_schema = 'public' and data_type in ('real', 'double precision', 'numeric', 'money')`;
    expect(floats).toEqual([]);
  });

  it('refuses a second webhook-id with the constraint named for it', async () => {
    await entry(1);
    await entry(2);
    await sql`insert into webhook_ids (webhook_id, seq) values ('wh_1', 1)`;
    const second = sql`insert into webhook_ids (webhook_id, seq) values ('wh_1', 2)`;
    await expect(second).rejects.toMatchObject({ code: '23505', constraint_name: 'webhook_ids_once' });
  });

  it('refuses a second settlement-id and a second Idempotency-Key the same way', async () => {
    await entry(3);
    await entry(4);
    await sql`insert into settlement_ids (settlement_id, seq) values (9001, 3)`;
    await expect(sql`insert into settlement_ids (settlement_id, seq) values (9001, 4)`).rejects.toMatchObject({ code: '23505', constraint_name: 'settlement_ids_once' });
    await sql`insert into idempotency_keys (idempotency_key, sale_id, seq) values ('key-1', 'sale-1', 3)`;
    await expect(sql`insert into idempotency_keys (idempotency_key, sale_id, seq) values ('key-1', 'sale-2', 4)`).rejects.toMatchObject({ code: '23505', constraint_name: 'idempotency_keys_once' });
  });

  it('refuses a dedupe row for an entry that is not in the journal', async () => {
    await expect(sql`insert into webhook_ids (webhook_id, seq) values ('wh_orphan', 999)`).rejects.toMatchObject({ code: '23503' });
  });

  it('refuses a second entry at one seq and a hash that is not sha256 hex', async () => {
    await entry(5);
    await expect(entry(5)).rejects.toMatchObject({ code: '23505', constraint_name: 'entries_pkey' });
    await expect(sql`insert into entries (seq, prev, hash, at, type, data) values (6, ${hex('5')}, 'not-a-hash', 1, 'test.entry', '{}')`).rejects.toMatchObject({ code: '23514' });
  });
});
