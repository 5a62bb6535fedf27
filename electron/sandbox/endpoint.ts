/**
 * The embedded sandbox as a service endpoint for the core (electron/core/service-endpoint.ts):
 * started on loopback with its state in the data dir, its default fixture's manager token
 * and webhook secret, and its clock shared with the core. Only the start-up entry points
 * load this module (electron/compose.ts, by dynamic import), so the core and a build that
 * never starts the sandbox carry none of the fixture's credentials.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CoreConfig } from '../core/config.ts';
import type { Logger } from '../core/log.ts';
import type { ServiceEndpoint } from '../core/service-endpoint.ts';
import { OffsetClock, systemClock } from '../shared/clock.ts';
import { FIXTURE_WEBHOOK_SECRET, SANDBOX_APP_TOKEN } from './fixture.ts';
import { startSandbox } from './server.ts';

export interface EmbeddedSandboxEndpoint extends ServiceEndpoint {
  readonly mode: 'sandbox';
  readonly clock: OffsetClock;
}

export async function startEmbeddedSandbox(config: CoreConfig): Promise<EmbeddedSandboxEndpoint> {
  if (config.service.kind !== 'sandbox') throw new Error('the embedded sandbox is for a configuration without POS_SERVICE_URL');
  // The sandbox's clock moves forward when a test or a person says so; the core shares it,
  // or webhooks signed in sandbox time would look stale to the receiver.
  const clock = new OffsetClock(systemClock);
  // The sandbox keeps its state beside the journal: the data dir is this user's only.
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const webhookSecret = config.webhook.secret ?? FIXTURE_WEBHOOK_SECRET;
  // Until the core's logger is attached, what the sandbox says (a state file it could not
  // read) waits here rather than being lost.
  let pending: string[] | null = [];
  let log: Logger | null = null;
  const sandbox = await startSandbox({
    port: config.service.port,
    host: '127.0.0.1',
    clock,
    persistFile: join(config.dataDir, 'sandbox-state.json'),
    webhook: { later: true, secret: webhookSecret },
    log: (line) => (log ? log.info('sandbox', { line }) : pending?.push(line)),
  });
  return {
    mode: 'sandbox',
    url: sandbox.url,
    token: SANDBOX_APP_TOKEN,
    webhookSecret,
    clock,
    async attach(core) {
      log = core.log;
      for (const line of pending ?? []) log.info('sandbox', { line });
      pending = null;
      if (core.webhookUrl !== null) sandbox.deliverWebhooksTo(core.webhookUrl);
    },
    close: () => sandbox.close(),
  };
}
