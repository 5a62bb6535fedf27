import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { APPLICATION_NAME, openPool, PostgresUnreachableError } from './connect.ts';
import type { Sql } from './connect.ts';
import { freeLoopbackPort, openTestDatabase } from './fixtures/test-database.ts';
import type { TestDatabase } from './fixtures/test-database.ts';

let db: TestDatabase;
const pools: Sql[] = [];

beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end({ timeout: 5 })));
  await db?.drop();
});

async function pool(options: { max?: number; statementTimeoutMs?: number } = {}): Promise<Sql> {
  const sql = await openPool({ url: db.url, ...options });
  pools.push(sql);
  return sql;
}

describe('openPool on a real server', () => {
  it('names its connections pix-cashier and gives each the statement timeout', async () => {
    const sql = await pool({ statementTimeoutMs: 1_500 });
    const [row] = await sql`select current_setting('application_name') as app, current_setting('statement_timeout') as timeout`;
    expect(row).toEqual({ app: APPLICATION_NAME, timeout: '1500ms' });
  });

  it('has the server cancel a statement that runs past the timeout', async () => {
    const sql = await pool({ statementTimeoutMs: 200 });
    await expect(sql`select pg_sleep(2)`).rejects.toMatchObject({ code: '57014' });
    expect(await sql`select 1 as still_usable`).toEqual([{ still_usable: 1 }]);
  });

  it('opens no more connections than max', async () => {
    const sql = await openPool({ url: await db.another(), max: 2 });
    pools.push(sql);
    await Promise.all(Array.from({ length: 6 }, () => sql`select pg_sleep(0.05)`));
    // Idle connections stay open, so the server still sees every one the pool made.
    const [row] = await sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = ${APPLICATION_NAME}`;
    expect(row).toEqual({ n: 2 });
  });

  it('prints no NOTICE the server sends', async () => {
    const sql = await pool();
    const log = vi.spyOn(console, 'log');
    try {
      await sql`do $$ begin raise notice 'chatter'; end $$`;
      expect(log).not.toHaveBeenCalled();
    } finally {
      log.mockRestore();
    }
  });
});

describe('openPool without a server', () => {
  it('says it could not reach the server, with the password masked', async () => {
    const url = `postgres://postgres:s3cret-pw@127.0.0.1:${await freeLoopbackPort()}/x`;
    const opening = openPool({ url, connectTimeoutS: 2 });
    await expect(opening).rejects.toBeInstanceOf(PostgresUnreachableError);
    const message = await opening.catch((err: Error) => err.message);
    expect(message).toMatch(/^Could not reach PostgreSQL at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/x: connect ECONNREFUSED 127\.0\.0\.1:\d+\. Check POS_DATABASE_URL\.$/);
    expect(message).not.toContain('s3cret-pw');
  });

  it('says the server refused when it answers but the database is not there', async () => {
    const url = new URL(db.url);
    url.pathname = '/pos_test_no_such_database';
    url.password = 'pw-never-shown';
    const message = await openPool({ url: url.toString() }).catch((err: Error) => err.message);
    expect(message).toMatch(/^PostgreSQL at postgres:\/\/postgres:\*\*\*@[^/]+\/pos_test_no_such_database refused the connection: database "pos_test_no_such_database" does not exist\. Check POS_DATABASE_URL\.$/);
  });

  it('refuses a URL that is not postgres://, and a password given as a parameter', async () => {
    await expect(openPool({ url: 'mysql://root:pw@127.0.0.1/x' })).rejects.toThrow('POS_DATABASE_URL must be a postgres:// URL, not mysql://root:***@127.0.0.1/x.');
    await expect(openPool({ url: 'postgres://pos@127.0.0.1/x?password=pw' })).rejects.toThrow(
      "POS_DATABASE_URL carries the password as a parameter (postgres://pos@127.0.0.1/x?password=***): put it in the URL's user part or in PGPASSWORD.",
    );
  });
});
