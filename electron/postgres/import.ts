/**
 * `npm run journal:import -- --data-dir D --database-url U`: moves a store computer's
 * embedded journal into a PostgreSQL database, for a merchant who moves the core to a server.
 *
 * The file journal's chain is verified first; a damaged one, one restarted over a break, or
 * a data dir with no journal is refused with a sentence and nothing is written. Entries are
 * copied as they are (seq, prev, hash, at, data: the chain verifies the same in the
 * database) and folded as appends fold them, in batches of one transaction each. Run again,
 * it finds the database already holding the journal and changes nothing; after an
 * interruption it goes on from the last batch that committed; a database holding another
 * journal is refused.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { JournalLockedError, openJournal } from '../core/journal/journal.ts';
import type { JournalDefinition, JournalEntry, JournalPort } from '../core/journal/port.ts';
import { CORE_JOURNAL } from '../core/services/parts.ts';
import type { SaleRow } from '../core/terminal/entries.ts';
import { systemClock } from '../shared/clock.ts';
import { maskedUrl, openPool } from './connect.ts';
import { openPostgresJournal } from './journal.ts';
import { migrate } from './migrate.ts';

export const IMPORT_BATCH = 1_000;

/** A journal that cannot be imported, or a database that cannot take it: `message` is the sentence. */
export class ImportRefused extends Error {
  override readonly name = 'ImportRefused';
}

export interface ImportOptions {
  dataDir: string;
  databaseUrl: string;
  /** Told after each batch: entries copied so far of the total, since the start (ms). */
  progress?: (done: number, total: number, elapsedMs: number) => void;
  batch?: number;
  env?: Readonly<Record<string, string | undefined>>;
  /** What the journal is for; the core's own by default. */
  definition?: JournalDefinition<SaleRow>;
}

export type ImportResult =
  | { outcome: 'imported'; entries: number; resumedAfter: number; ms: number }
  | { outcome: 'already_there'; entries: number };

export async function importJournal(options: ImportOptions): Promise<ImportResult> {
  const dir = join(options.dataDir, 'journal');
  if (!existsSync(dir) || !readdirSync(dir).some((f) => f.endsWith('.jsonl'))) {
    throw new ImportRefused(`There is no journal in ${dir}: give the data dir of the store computer's app (--data-dir).`);
  }
  const definition = options.definition ?? CORE_JOURNAL;
  let files: JournalPort<SaleRow>;
  try {
    files = await openJournal<SaleRow>({ ...definition, dir, clock: systemClock });
  } catch (err) {
    if (err instanceof JournalLockedError) throw new ImportRefused(`The journal in ${dir} is open in a running app: stop the app first, then import.`);
    throw err;
  }
  try {
    const verified = await files.verify();
    if (!verified.ok) {
      const at = verified.firstBroken;
      throw new ImportRefused(`The journal in ${dir} is damaged at ${at.segment} line ${at.line} (${at.reason}): nothing was imported. Repair it in the app's journal screen first.`);
    }
    if ((verified.acknowledgedBreaks ?? []).length > 0) {
      throw new ImportRefused(`The journal in ${dir} was restarted over a break: its chain cannot be carried into a database as it is. Nothing was imported.`);
    }
    const all = (await files.eventsBetween(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)).sort((a, b) => a.seq - b.seq);
    if (all.length !== verified.entries || all.some((e, i) => e.seq !== i + 1)) {
      throw new ImportRefused(`The journal in ${dir} could not be read whole (${all.length} of ${verified.entries} entries): nothing was imported.`);
    }
    return await intoDatabase(all, definition, options);
  } finally {
    await files.close();
  }
}

async function intoDatabase(all: readonly JournalEntry[], definition: JournalDefinition<SaleRow>, options: ImportOptions): Promise<ImportResult> {
  const sql = await openPool({ url: options.databaseUrl, ...(options.env ? { env: options.env } : {}) });
  try {
    await migrate(sql);
    const db = await openPostgresJournal<SaleRow>({ ...definition, sql, clock: systemClock });
    try {
      const head = db.status().lastSeq;
      if (head > 0) {
        const [there] = await sql<{ hash: string }[]>`select hash from entries where seq = ${head}`;
        const mine = all[head - 1];
        if (head > all.length || mine === undefined || there?.hash !== mine.hash) {
          throw new ImportRefused(`The database at ${maskedUrl(options.databaseUrl)} already holds another journal (${head} entries): import into an empty database.`);
        }
        if (head === all.length) return { outcome: 'already_there', entries: head };
      }
      const started = performance.now();
      const batch = options.batch ?? IMPORT_BATCH;
      const rest = all.slice(head);
      for (let i = 0; i < rest.length; i += batch) {
        await db.importEntries(rest.slice(i, i + batch));
        options.progress?.(Math.min(i + batch, rest.length), rest.length, performance.now() - started);
      }
      const verified = await db.verify();
      if (!verified.ok || verified.entries !== all.length) throw new Error(`the imported journal does not verify in the database (${JSON.stringify(verified)})`);
      return { outcome: 'imported', entries: all.length, resumedAfter: head, ms: performance.now() - started };
    } finally {
      await db.close();
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}
