/**
 * The PostgreSQL journal as an entry point hands it to the core (CoreDeps.openJournal): one
 * pool on the URL, the schema migrated, the adapter opened on it; closing the journal ends
 * the pool. The URL's password never reaches a message: maskedUrl names the server.
 */
import type { JournalOpener } from '../core/journal/port.ts';
import { openPool } from './connect.ts';
import { openPostgresJournal } from './journal.ts';
import { migrate } from './migrate.ts';

export interface PostgresJournalSettings {
  url: string;
  env?: Readonly<Record<string, string | undefined>>;
}

export function postgresJournal<S extends object>(settings: PostgresJournalSettings): JournalOpener<S> {
  return async (definition) => {
    const sql = await openPool({ url: settings.url, ...(settings.env ? { env: settings.env } : {}) });
    try {
      const migrated = await migrate(sql);
      if (migrated.applied.length > 0) definition.log.info('database schema migrated', { applied: migrated.applied, version: migrated.version });
      return await openPostgresJournal<S>({ ...definition, sql, endPoolOnClose: true });
    } catch (err) {
      await sql.end({ timeout: 5 });
      throw err;
    }
  };
}
