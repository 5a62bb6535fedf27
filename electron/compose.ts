/**
 * The composition root shared by the start-up entry points (electron/main, electron/web/cli.ts,
 * the core's test fixtures and the bench): decides which payment service the core talks to.
 * A configured POS_SERVICE_URL is a real service; without one, the embedded sandbox is
 * started here, loaded by dynamic import so that nothing else (the core above all) carries
 * the sandbox or its fixture's credentials. It also decides where the journal lives: the data
 * dir's files, or PostgreSQL when POS_DATABASE_URL names a database.
 */
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { Clock } from './shared/clock.ts';
import type { CoreConfig } from './core/config.ts';
import { Core, type CoreDeps } from './core/core.ts';
import { FileSecretStore, type SecretStore } from './core/secrets.ts';
import { remoteServiceEndpoint, type ServiceEndpoint } from './core/service-endpoint.ts';
import type { SaleRow } from './core/terminal/entries.ts';
import type { PostgresJournalSettings } from './postgres/open.ts';

/** `clock`: domain time beside a real service (real time unless a test moves it with a standalone sandbox's). */
export async function connectService(config: CoreConfig, secrets: SecretStore, clock?: Clock): Promise<ServiceEndpoint> {
  if (config.service.kind === 'remote') return remoteServiceEndpoint(config, secrets, clock);
  const { startEmbeddedSandbox } = await import('./sandbox/endpoint.ts');
  return startEmbeddedSandbox(config);
}

/**
 * Where the journal lives: PostgreSQL when the configuration names a database (loaded by
 * dynamic import, so the embedded app never loads the client), else undefined: the core's
 * file journal in the data dir.
 */
export async function journalOpener(config: CoreConfig, options: Pick<PostgresJournalSettings, 'onLease' | 'onInbox'> = {}): Promise<CoreDeps['openJournal']> {
  if (config.databaseUrl === null) return undefined;
  const { postgresJournal } = await import('./postgres/open.ts');
  // The same installation (machine and data dir) is the same core: restarted after a crash, it
  // takes its lease back at once under a new term instead of standing by until it runs out.
  // Its advertised address goes in the lease while it holds it: the standbys relay its tills there.
  return postgresJournal<SaleRow>({ url: config.databaseUrl, holder: `${hostname()}:${resolve(config.dataDir)}`, address: config.web.advertise, ...(options.onLease ? { onLease: options.onLease } : {}), ...(options.onInbox ? { onInbox: options.onInbox } : {}) });
}

/** A core on the service and the journal the configuration names; the core owns the endpoint and closes it at stop. */
export async function composeCore(config: CoreConfig, deps: Omit<CoreDeps, 'service'> & { remoteClock?: Clock } = {}): Promise<Core> {
  const { remoteClock, ...coreDeps } = deps;
  const secrets = coreDeps.secrets ?? new FileSecretStore(join(config.dataDir, 'secrets.json'));
  const openJournal = coreDeps.openJournal ?? (await journalOpener(config));
  const service = await connectService(config, secrets, remoteClock);
  const afterStart = service.mode === 'sandbox' ? printSandboxCheckout : undefined;
  return new Core(config, { ...(afterStart ? { afterStart } : {}), ...coreDeps, ...(openJournal ? { openJournal } : {}), secrets, service });
}

/**
 * Contract 7: the sandbox starts with checkout 1 of store 1 in dynamic mode and no printed
 * QR. At the first start the core's back office prints it, the way a manager's Print QR
 * poster does, so a new sandbox till charges on a printed checkout; once it has its QR this
 * does nothing (a manager's later Use dynamic QR stays).
 */
export const SANDBOX_PRINTED_CHECKOUT = { storeId: 1, checkoutId: 1 } as const;

async function printSandboxCheckout(core: Core): Promise<void> {
  await core.backOffice.ensurePrintedQr('the sandbox’s first start', SANDBOX_PRINTED_CHECKOUT);
}
