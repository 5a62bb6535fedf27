/**
 * The schema, from the plain SQL files in migrations/: each applied once, in file-name order,
 * in ONE transaction of its own, and recorded in schema_migrations with the sha256 of the
 * file, at every start. Cores starting at once take turns on an advisory lock, so each file
 * is applied once. A file changed after it was applied, and a database whose schema is newer
 * than this app's, are refused with a sentence: the app never guesses about a schema it did
 * not make.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sql } from './connect.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/**
 * The advisory lock every migration run holds (a fixed number: "pix-cashier migrations" in
 * no particular encoding); a second core waits on it until the first has finished.
 */
export const MIGRATION_LOCK = 7_073_616_269_786;

export interface Migration {
  version: number;
  /** The file's name without version and extension, e.g. journal. */
  name: string;
  /** The file's name, e.g. 0001_journal.sql: what a sentence names. */
  file: string;
  text: string;
  /** sha256 of the file's bytes, hex. */
  checksum: string;
}

export interface MigrateResult {
  /** The files this run applied, in order (none when the schema was up to date). */
  applied: string[];
  /** The schema's version now: the newest applied file's. */
  version: number;
}

/** A schema this app must not run on, or a migration that failed; `message` is the sentence. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/** The migration files of `dir`, in order; a .sql file not named NNNN_name.sql is refused. */
export async function readMigrations(dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = FILE_NAME.exec(file);
    if (!match) throw new MigrationError(`Migration file ${file} is not named like 0001_name.sql (four digits, an underscore, lower-case letters, digits and underscores).`);
    const bytes = await readFile(join(dir, file));
    const version = Number(match[1]);
    const twin = migrations.find((m) => m.version === version);
    if (twin) throw new MigrationError(`Migration files ${twin.file} and ${file} have the same version ${version}: give one of them the next free number.`);
    migrations.push({ version, name: match[2] ?? '', file, text: bytes.toString('utf8'), checksum: createHash('sha256').update(bytes).digest('hex') });
  }
  return migrations;
}

interface AppliedRow {
  version: number;
  name: string;
  checksum: string;
}

/**
 * Brings the database's schema up to this app's: refuses one it must not run on, then applies
 * the files not applied yet. Runs on one reserved connection of the pool, which holds the
 * advisory lock for the whole run; the pool's other connections are free meanwhile.
 */
export async function migrate(sql: Sql, options: { dir?: string } = {}): Promise<MigrateResult> {
  const migrations = await readMigrations(options.dir);
  const conn = await sql.reserve();
  try {
    // A migration may take longer than a sale's statement timeout, and the wait for another
    // core's run certainly may; RESET at the end gives the connection its own timeout back.
    await conn`set statement_timeout = 0`;
    await conn`select pg_advisory_lock(${MIGRATION_LOCK})`;
    try {
      return await migrateLocked(conn, migrations);
    } finally {
      await conn`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
    }
  } finally {
    await conn`reset statement_timeout`.catch(() => {});
    conn.release();
  }
}

async function migrateLocked(conn: Sql, migrations: readonly Migration[]): Promise<MigrateResult> {
  // applied_at is the server's time: bookkeeping for the people who run the database.
  await conn`
    create table if not exists schema_migrations (
      version    integer primary key,
      name       text not null,
      checksum   text not null,
      applied_at timestamptz not null default now()
    )`;
  const rows = await conn<AppliedRow[]>`select version, name, checksum from schema_migrations order by version`;
  refuseForeignSchema(rows, migrations);
  const done = new Set(rows.map((r) => r.version));
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.version)) continue;
    await applyOne(conn, m);
    applied.push(m.file);
  }
  return { applied, version: Math.max(0, ...rows.map((r) => r.version), ...migrations.map((m) => m.version)) };
}

function refuseForeignSchema(rows: readonly AppliedRow[], migrations: readonly Migration[]): void {
  const newestApplied = Math.max(0, ...rows.map((r) => r.version));
  const newestHere = Math.max(0, ...migrations.map((m) => m.version));
  if (newestApplied > newestHere) {
    throw new MigrationError(`This database's schema is version ${newestApplied}, newer than this app's ${newestHere}: start the newer app, or restore a database made by this version.`);
  }
  for (const row of rows) {
    const file = migrations.find((m) => m.version === row.version);
    const recorded = `${String(row.version).padStart(4, '0')}_${row.name}.sql`;
    if (!file) {
      throw new MigrationError(`This database has migration ${recorded} applied, which this app does not have: start the app that made this database, or restore a database made by this version.`);
    }
    if (file.checksum !== row.checksum || file.name !== row.name) {
      throw new MigrationError(
        `Migration ${file.file} was changed after it was applied to this database (sha256 ${row.checksum.slice(0, 12)}… then, ${file.checksum.slice(0, 12)}… now): put the file back as it was, and make the change in a new migration.`,
      );
    }
  }
}

/**
 * One file and its record in one transaction: after a failure, nothing of it is left. A file
 * that ends that transaction itself (a COMMIT or ROLLBACK in it) would leave half of itself
 * applied and unrecorded: the transaction id before and after the file tells, and it is refused.
 */
async function applyOne(conn: Sql, m: Migration): Promise<void> {
  await conn`begin`;
  try {
    const [began] = await conn<{ xid: string }[]>`select pg_current_xact_id()::text as xid`;
    // The file is trusted SQL from the repository, several statements: the simple protocol.
    await conn.unsafe(m.text);
    const [after] = await conn<{ xid: string | null }[]>`select pg_current_xact_id_if_assigned()::text as xid`;
    if (after?.xid === began?.xid) {
      await conn`insert into schema_migrations (version, name, checksum) values (${m.version}, ${m.name}, ${m.checksum})`;
      await conn`commit`;
      return;
    }
  } catch (err) {
    await conn`rollback`.catch(() => {});
    const reason = err instanceof Error ? err.message : String(err);
    throw new MigrationError(`Migration ${m.file} failed and was rolled back, so nothing of it was applied: ${reason}.`, { cause: err });
  }
  await conn`rollback`.catch(() => {});
  throw new MigrationError(
    `Migration ${m.file} ends the transaction it runs in (a COMMIT or ROLLBACK in the file), so it cannot be applied as one: take those statements out, and check what of it is already in the database before starting again.`,
  );
}
