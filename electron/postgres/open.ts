/**
 * The PostgreSQL journal as an entry point hands it to the core (CoreDeps.openJournal): one
 * pool on the URL, the schema migrated, the merchant's lease taken (standing by while another
 * core holds it), the adapter opened on it under that lease's term; closing the journal lets
 * the lease go and ends the pool. The URL's password never reaches a message: maskedUrl names
 * the server.
 *
 * While it stands by, the core is handed the webhook inbox (definition.standingBy) to keep the
 * webhooks it receives; once it holds the lease, the journal says so (JournalPort.shared: the
 * term, this core's name, the holder before it, the inbox to apply).
 */
import type { JournalOpener } from '../core/journal/port.ts';
import { openPool } from './connect.ts';
import { openPostgresJournal } from './journal.ts';
import { PostgresWebhookInbox } from './inbox.ts';
import { CoreLease } from './lease.ts';

/** What happens to a core's lease, as an entry point may show it (the console, a health address). */
export type LeaseEvent = { kind: 'standby'; holder: string; address?: string | null } | { kind: 'taken'; term: number } | { kind: 'renewed'; reachable: boolean } | { kind: 'lost'; term: number };
import { migrate } from './migrate.ts';

export interface PostgresJournalSettings {
  url: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** How long the lease lasts unless renewed (lease.ts DEFAULT_LEASE_MS). */
  leaseMs?: number;
  /** Names this core in the lease: the same name takes the lease back at once (a restart), another stands by. */
  holder?: string;
  /** Where this core serves its tills, published in the lease while it holds it (lease.ts). */
  address?: string | null;
  /** Told what happens to this core's lease: it stands by (again when the active core or its address changes), takes it, renews it or loses it. */
  onLease?: (event: LeaseEvent) => void;
  /** Told, once the pool is open, how to count the webhook inbox's rows not applied yet (a health address shows it). */
  onInbox?: (depth: () => Promise<number>) => void;
}

export function postgresJournal<S extends object>(settings: PostgresJournalSettings): JournalOpener<S> {
  return async (definition) => {
    const sql = await openPool({ url: settings.url, ...(settings.env ? { env: settings.env } : {}) });
    try {
      const migrated = await migrate(sql);
      if (migrated.applied.length > 0) definition.log.info('database schema migrated', { applied: migrated.applied, version: migrated.version });
      const lease = new CoreLease({ sql, log: definition.log, ...(settings.leaseMs === undefined ? {} : { leaseMs: settings.leaseMs }), ...(settings.holder === undefined ? {} : { holder: settings.holder }), address: settings.address ?? null });
      const tell = settings.onLease ?? (() => undefined);
      const inbox = new PostgresWebhookInbox(sql, lease.holder);
      settings.onInbox?.(() => inbox.depth());
      const { standingBy, ...journalDefinition } = definition;
      // Told again when the active core or its address changes; the inbox is handed over once.
      let inboxOpen = false;
      const term = await lease.acquire((active) => {
        tell({ kind: 'standby', ...active });
        if (inboxOpen) return;
        inboxOpen = true;
        standingBy?.(inbox);
      });
      tell({ kind: 'taken', term });
      try {
        const journal = await openPostgresJournal<S>({
          ...journalDefinition,
          sql,
          endPoolOnClose: true,
          fence: { term, holder: lease.holder },
          shared: { term, holder: lease.holder, previousHolder: lease.previousHolder, inbox },
          onClose: () => releaseQuietly(lease, definition.log),
        });
        // A lost lease is found by the next append too (pos_fence); the log says so at once.
        lease.keep(
          () => tell({ kind: 'lost', term }),
          (reachable) => tell({ kind: 'renewed', reachable }),
        );
        return journal;
      } catch (err) {
        await releaseQuietly(lease, definition.log);
        throw err;
      }
    } catch (err) {
      await sql.end({ timeout: 5 });
      throw err;
    }
  };
}

/** Lets the lease go; if the database does not answer, it runs out by itself within a lease. */
async function releaseQuietly(lease: CoreLease, log: { warn: (msg: string, fields?: Record<string, unknown>) => void }): Promise<void> {
  try {
    await lease.release();
  } catch (err) {
    log.warn('the lease could not be let go; it runs out by itself', { error: err instanceof Error ? err.message : String(err) });
  }
}
