/**
 * Cores as a merchant runs them on a server, for the two-core benches (takeover.ts, cores.ts):
 * each an `electron/web/cli.ts --server` process on one PostgreSQL database and one payment
 * service (the standalone sandbox, a process of its own), its browser shell, health address
 * and webhook receiver at fixed loopback ports, so a core restarted after a kill is at the
 * same address. Every core answers to every core's address and the front's (POS_WEB_NAMES),
 * and all share the store token, as the README's *Run on a server* asks.
 */
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../core/terminal/fixtures/core-child.ts';
import { FIXTURE_TOKENS, FIXTURE_WEBHOOK_SECRET } from '../sandbox/fixture.ts';
import { TOKEN_PROTOCOL_PREFIX } from '../shared/ws-protocol.ts';
import { startCliProcess } from '../web/fixtures/cli-process.ts';
import { BridgeConnection, STORE_ID, type Credentials } from './till-clients.ts';

export const STORE_TOKEN = 'bench-store-token-0123456789abcdef';
export const MANAGER: Credentials = { name: 'Bench manager', pin: '24681357' };
export const CASHIER: Credentials = { name: 'Bench cashier', pin: '13572468' };
export const RUNNING = /Pix cashier is running/;
export const STANDING_BY = /Standing by: /;

/** Where one core listens; fixed for its life and its restarts. */
export interface CorePlace {
  name: string;
  dataDir: string;
  webPort: number;
  webhookPort: number;
  /** http://127.0.0.1:webPort: a loopback shell without a certificate speaks plain HTTP. */
  origin: string;
}

export async function corePlace(name: string, dataDir: string): Promise<CorePlace> {
  const webPort = await freePort();
  let webhookPort = await freePort();
  while (webhookPort === webPort) webhookPort = await freePort();
  return { name, dataDir, webPort, webhookPort, origin: `http://127.0.0.1:${webPort}` };
}

export interface CoreServer {
  place: CorePlace;
  child: ChildProcess;
  /** The health address it printed (200 on the active core). */
  health: string;
  out: () => string;
  /** Resolves once its output matches `pattern`; rejects if it ends first or after `ms`. */
  until: (pattern: RegExp, ms?: number) => Promise<void>;
  /** SIGTERM and wait for the exit (nothing if it already ended). */
  stop: () => Promise<void>;
}

/** Starts one core at `place`; resolves once it printed its health address. `names`: every address a till may use. */
export async function startCoreServer(place: CorePlace, shared: { databaseUrl: string; sandboxUrl: string; names: readonly string[] }): Promise<CoreServer> {
  const core = startCliProcess({
    name: `bench: core ${place.name}`,
    args: ['--server'],
    env: {
      ...process.env,
      POS_DATA_DIR: place.dataDir,
      POS_LANG: 'en',
      POS_DATABASE_URL: shared.databaseUrl,
      POS_SERVICE_URL: shared.sandboxUrl,
      POS_SERVICE_TOKEN: FIXTURE_TOKENS.manager,
      POS_WEBHOOK_SECRET: FIXTURE_WEBHOOK_SECRET,
      POS_WEBHOOK_PORT: String(place.webhookPort),
      POS_WEB_HOST: '127.0.0.1',
      POS_WEB_PORT: String(place.webPort),
      POS_WEB_TOKEN: STORE_TOKEN,
      POS_WEB_NAMES: shared.names.join(','),
      POS_HEALTH_PORT: '0',
    },
  });
  const until = (pattern: RegExp, ms = 60_000) => core.until(pattern, ms);
  await until(/Health address for a load balancer: \S+ /);
  const health = /Health address for a load balancer: (\S+) /.exec(core.out())![1]!;
  return { place, child: core.child, health, out: core.out, until, stop: () => core.stop(10_000) };
}

/** The health address's status; 0 when nothing answers. */
export async function healthStatus(url: string): Promise<number> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).status;
  } catch {
    return 0;
  }
}

/**
 * The store's own window on the active core (`origin`): the first manager, a cashier, and a
 * pairing code per checkout in `checkoutIds`, as a manager asks for them at the Devices screen.
 */
export async function pairingCodes(origin: string, checkoutIds: readonly number[]): Promise<Map<number, string>> {
  const store = await BridgeConnection.open(origin, `${TOKEN_PROTOCOL_PREFIX}${STORE_TOKEN}`);
  try {
    await store.call('auth.createFirstManager', MANAGER);
    await store.call('operators.add', { ...CASHIER, role: 'cashier' });
    const codes = new Map<number, string>();
    for (const checkoutId of checkoutIds) {
      const { code } = await store.call<{ code: string }>('devices.startPairing', { kind: 'till', storeId: STORE_ID, checkoutId, name: `Till ${checkoutId}` });
      codes.set(checkoutId, code);
    }
    return codes;
  } finally {
    await store.close();
  }
}
