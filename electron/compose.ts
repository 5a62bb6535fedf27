/**
 * The composition root shared by the start-up entry points (electron/main, electron/web/cli.ts,
 * the core's test fixtures and the bench): decides which payment service the core talks to.
 * A configured POS_SERVICE_URL is a real service; without one, the embedded sandbox is
 * started here, loaded by dynamic import so that nothing else (the core above all) carries
 * the sandbox or its fixture's credentials.
 */
import { join } from 'node:path';
import type { Clock } from './shared/clock.ts';
import type { CoreConfig } from './core/config.ts';
import { Core, type CoreDeps } from './core/core.ts';
import { FileSecretStore, type SecretStore } from './core/secrets.ts';
import { remoteServiceEndpoint, type ServiceEndpoint } from './core/service-endpoint.ts';

/** `clock`: domain time beside a real service (real time unless a test moves it with a standalone sandbox's). */
export async function connectService(config: CoreConfig, secrets: SecretStore, clock?: Clock): Promise<ServiceEndpoint> {
  if (config.service.kind === 'remote') return remoteServiceEndpoint(config, secrets, clock);
  const { startEmbeddedSandbox } = await import('./sandbox/endpoint.ts');
  return startEmbeddedSandbox(config);
}

/** A core on the service the configuration names; the core owns the endpoint and closes it at stop. */
export async function composeCore(config: CoreConfig, deps: Omit<CoreDeps, 'service'> & { remoteClock?: Clock } = {}): Promise<Core> {
  const { remoteClock, ...coreDeps } = deps;
  const secrets = coreDeps.secrets ?? new FileSecretStore(join(config.dataDir, 'secrets.json'));
  const service = await connectService(config, secrets, remoteClock);
  return new Core(config, { ...coreDeps, secrets, service });
}
