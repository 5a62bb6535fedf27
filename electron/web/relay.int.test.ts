/**
 * Issue 23, point 3 (tills at any core), as a merchant runs it: `npm run server` processes on
 * one PostgreSQL database and one payment service (the sandbox, standing in for it), each
 * core at its own address, every till a real WebSocket bridge client pointed at one core's
 * address and never reconfigured. A standby relays each till to the active core, TLS end to
 * end; when the active core dies, a standby takes over and the tills reconnect to the same
 * address they had.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createBridge, type ConnectionState } from '../../src/lib/bridge.ts';
import type { CheckoutView } from '../core/contract.ts';
import type { DeviceInfo } from '../core/devices/registry.ts';
import { TEST_PIN } from '../core/operators/fixtures/sign-in.ts';
import { freeLoopbackPort, openTestDatabase, type TestDatabase } from '../postgres/fixtures/test-database.ts';
import { FIXTURE_TOKENS, FIXTURE_WEBHOOK_SECRET } from '../sandbox/fixture.ts';
import { startSandbox, type Sandbox } from '../sandbox/server.ts';
import { REVOKED_CLOSE_CODE, type ServerMessage } from '../shared/ws-protocol.ts';
import { BridgeClient } from './fixtures/bridge-client.ts';
import { startCliProcess } from './fixtures/cli-process.ts';
import { loadTlsIdentity, type TlsIdentity } from './tls.ts';

const TOKEN = 'relay-store-token-0123456789';
let db: TestDatabase;
let service: Sandbox;
let tls: TlsIdentity;
let certDir: string;
const dirs: string[] = [];
const cores: Core[] = [];
const clients: BridgeClient[] = [];

beforeAll(async () => {
  db = await openTestDatabase();
  service = await startSandbox({ port: 0 });
  certDir = await mkdtemp(join(tmpdir(), 'pos-relay-cert-'));
  // One certificate for every core, as the README asks: a till trusts the one it paired with.
  tls = await loadTlsIdentity({ dataDir: certDir, hosts: ['127.0.0.1', 'localhost'] });
}, 120_000);

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(cores.splice(0).map((core) => core.stop()));
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

afterAll(async () => {
  await service?.close();
  await db?.drop();
  await rm(certDir, { recursive: true, force: true });
});

interface Core {
  name: string;
  address: string;
  origin: string;
  child: ChildProcess;
  out: () => string;
  until: (pattern: RegExp, ms?: number) => Promise<void>;
  stop: () => Promise<void>;
}

/** One `npm run server` on the shared database and service, at 127.0.0.1:port; `names`: every core's address. */
async function startCore(name: string, url: string, port: number, names: string[], env: Record<string, string> = {}): Promise<Core> {
  const dataDir = await mkdtemp(join(tmpdir(), `pos-relay-${name}-`));
  dirs.push(dataDir);
  const server = startCliProcess({
    name: `core ${name}`,
    args: ['--server'],
    env: {
      ...process.env,
      POS_DATA_DIR: dataDir,
      POS_LANG: 'en',
      POS_DATABASE_URL: url,
      POS_SERVICE_URL: service.url,
      POS_SERVICE_TOKEN: FIXTURE_TOKENS.manager,
      POS_WEBHOOK_SECRET: FIXTURE_WEBHOOK_SECRET,
      POS_WEB_HOST: '127.0.0.1',
      POS_WEB_PORT: String(port),
      POS_WEB_TOKEN: TOKEN,
      POS_WEB_NAMES: names.join(','),
      POS_TLS_CERT: join(certDir, 'tls', 'cert.pem'),
      POS_TLS_KEY: join(certDir, 'tls', 'key.pem'),
      ...env,
    },
  });
  const core: Core = {
    name,
    address: `127.0.0.1:${port}`,
    // Without a certificate a loopback shell speaks plain HTTP.
    origin: `${env.POS_TLS_CERT === '' ? 'http' : 'https'}://127.0.0.1:${port}`,
    child: server.child,
    out: server.out,
    until: (pattern, ms = 30_000) => server.until(pattern, ms),
    stop: () => server.stop(),
  };
  cores.push(core);
  return core;
}

const RUNNING = /Pix cashier is running/;
const STANDING_BY = /Standing by: /;

/**
 * A bridge connection to a core's address, asked again until it opens and the core says what
 * it is, as a till's page reconnects by itself (src/lib/bridge.ts); `origin`: what the page sends.
 */
async function openAt(core: Core, as: Parameters<typeof BridgeClient.open>[1], origin = core.origin, ms = 30_000): Promise<BridgeClient> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      const client = await BridgeClient.open(core.origin, as, { ca: tls.ca ?? tls.cert, origin });
      clients.push(client);
      await hello(client);
      return client;
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

const hello = (c: BridgeClient) => c.until(() => c.messages.find((m): m is Extract<ServerMessage, { type: 'device' }> => m.type === 'device'), 'the device message');

/** The store's own window on the active core, its first manager signed in. */
async function managerAt(core: Core): Promise<BridgeClient> {
  const store = await openAt(core, { token: TOKEN });
  const setup = await store.call('auth.createFirstManager', { name: 'Marta', pin: TEST_PIN });
  if (!setup.ok) await store.ok('auth.signIn', { name: 'Marta', pin: TEST_PIN });
  return store;
}

/** Pairs a till through `at` (a standby: the pairing itself is relayed) with a code the manager made. */
async function pairTill(manager: BridgeClient, at: Core, name: string): Promise<{ credential: string; device: DeviceInfo }> {
  const { code } = await manager.ok<{ code: string }>('devices.startPairing', { kind: 'till', storeId: 1, checkoutId: 1, name });
  const unpaired = await openAt(at, 'unpaired');
  const paired = await unpaired.ok<{ credential: string; device: DeviceInfo }>('pairing.pair', { code });
  unpaired.close();
  return paired;
}

/** A paired till at `at`'s address, signed in. */
async function tillAt(at: Core, credential: string): Promise<BridgeClient> {
  const till = await openAt(at, { credential });
  expect(till.messages.find((m) => m.type === 'device')).toMatchObject({ connection: 'device' });
  await till.ok('auth.signIn', { name: 'Marta', pin: TEST_PIN });
  return till;
}

/** A sale rung up on the till: its id, once the database holds it. */
async function sell(till: BridgeClient, url: string, amount: string): Promise<string> {
  const view = await till.ok<CheckoutView>('sale.charge', { amount });
  const saleId = view.newest?.sale_id ?? '';
  expect(saleId).not.toBe('');
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ n: number }[]>`select count(*)::int as n from entries where position(${saleId} in data) > 0`;
    expect(row?.n).toBeGreaterThan(0);
  } finally {
    await sql.end();
  }
  return saleId;
}

/** The customer pays the newest sale at the service; the till hears it paid. */
async function pay(till: BridgeClient, saleId: string): Promise<void> {
  const res = await fetch(`${service.url}/_sandbox/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ store_id: 1, checkout_id: 1 }) });
  expect(res.status).toBe(200);
  await till.until(() => till.heard<CheckoutView>('checkout.changed').find((v) => v.recent.some((s) => s.sale_id === saleId && s.status === 'paid')), `sale ${saleId} paid`, 30_000);
}

/** A plain TCP connection to a loopback port, asked again while nothing listens there yet: how many bytes it heard before it closed. */
async function rawConnection(port: number, ms = 15_000): Promise<{ heard: number }> {
  const until = Date.now() + ms;
  for (;;) {
    const outcome = await new Promise<{ heard: number } | 'refused'>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      let heard = 0;
      let refused = false;
      socket.on('data', (d) => (heard += d.length));
      socket.on('error', (err) => (refused = (err as NodeJS.ErrnoException).code === 'ECONNREFUSED'));
      socket.once('close', () => resolve(refused ? 'refused' : { heard }));
    });
    if (outcome !== 'refused') return outcome;
    if (Date.now() > until) throw new Error(`nothing listens on port ${port}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function ports(n: number): Promise<number[]> {
  const out: number[] = [];
  while (out.length < n) {
    const p = await freeLoopbackPort();
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

describe('tills at any core', () => {
  it('a till pointed at a standby sells through the active core; when that core dies the standby takes over and the till, same address, sells again', async () => {
    const url = await db.another();
    const [pa, pb] = await ports(2);
    const names = [`127.0.0.1:${pa}`, `127.0.0.1:${pb}`];
    const a = await startCore('a', url, pa ?? 0, names);
    await a.until(RUNNING);
    const b = await startCore('b', url, pb ?? 0, names);
    await b.until(STANDING_BY);

    const manager = await managerAt(a);
    const { credential } = await pairTill(manager, b, 'Till at B');
    const till = await tillAt(b, credential);
    const first = await sell(till, url, '10,00');
    await pay(till, first);
    // Core A answers B's name only because the merchant declared it; no other name gets in.
    await expect(BridgeClient.open(b.origin, { credential }, { ca: tls.ca ?? tls.cert, origin: 'https://evil.example' })).rejects.toThrow('HTTP 403');

    a.child.kill('SIGKILL');
    // The relayed connection ends with its core; the till reconnects to the address it has.
    await till.until(() => till.closed ?? undefined, 'the relayed connection closed', 15_000);
    await b.until(RUNNING, 30_000);
    const again = await tillAt(b, credential);
    const second = await sell(again, url, '12,00');
    await pay(again, second);
    expect(b.out()).toContain('Standing by: ');
  }, 150_000);

  it('with three cores, a till at either standby is relayed to whichever core is active, a revocation there ends its relayed connection at once, and after a takeover both sell again', async () => {
    const url = await db.another();
    const [pa, pb, pc] = await ports(3);
    const names = [`127.0.0.1:${pa}`, `127.0.0.1:${pb}`, `127.0.0.1:${pc}`];
    const a = await startCore('a', url, pa ?? 0, names);
    await a.until(RUNNING);
    const b = await startCore('b', url, pb ?? 0, names);
    const c = await startCore('c', url, pc ?? 0, names);
    await Promise.all([b.until(STANDING_BY), c.until(STANDING_BY)]);

    const manager = await managerAt(a);
    const atB = await pairTill(manager, b, 'Till at B');
    const atC = await pairTill(manager, c, 'Till at C');
    const revoked = await pairTill(manager, c, 'Till revoked');
    const tillB = await tillAt(b, atB.credential);
    const tillC = await tillAt(c, atC.credential);
    const gone = await openAt(c, { credential: revoked.credential });
    await sell(tillB, url, '3,00');
    await sell(tillC, url, '4,00');

    // Revoked at the active core: the connection relayed through C ends at once, as the core
    // closes it in the revocation itself (no poll). The bound only keeps a loaded machine's
    // scheduling out of the verdict; it is not a timing claim.
    await manager.ok('devices.revoke', { deviceId: revoked.device.id });
    await gone.until(() => gone.closed ?? undefined, 'the revoked till’s relayed connection closed', 5_000);
    expect(gone.closed?.code).toBe(REVOKED_CLOSE_CODE);
    expect(tillC.closed).toBeNull();

    a.child.kill('SIGKILL');
    await Promise.race([b.until(RUNNING, 30_000), c.until(RUNNING, 30_000)]);
    const [active, standby] = RUNNING.test(b.out()) ? [b, c] : [c, b];
    expect(RUNNING.test(standby.out())).toBe(false);
    // The one still standing by now names the new active core, and relays its till there.
    await standby.until(/Standing by: [^\n]*\n[\s\S]*Standing by: /, 15_000);
    const relayedTill = await tillAt(standby, (standby === b ? atB : atC).credential);
    const directTill = await tillAt(active, (active === b ? atB : atC).credential);
    await sell(relayedTill, url, '5,00');
    await sell(directTill, url, '6,00');
  }, 180_000);

  it('closes a till’s connection it cannot send anywhere (the active core publishes no address), and says why in its log', async () => {
    const url = await db.another();
    const [pa, pb] = await ports(2);
    // Bound to every interface and given no POS_ADVERTISE_ADDRESS: the active core publishes none.
    const a = await startCore('a', url, pa ?? 0, [], { POS_WEB_HOST: '0.0.0.0' });
    await a.until(RUNNING);
    const b = await startCore('b', url, pb ?? 0, []);
    await b.until(STANDING_BY);
    // Twice: the log says why once for a run of refused connections.
    for (let i = 0; i < 2; i++) expect(await rawConnection(pb ?? 0)).toEqual({ heard: 0 });
    await b.until(/no active core publishes an address to relay it to/, 5_000);
    expect(b.out().match(/no active core publishes an address/g)).toHaveLength(1);
  }, 120_000);

  it('the renderer’s own bridge, at a standby’s address, reconnects by itself after the takeover and goes on selling', async () => {
    const url = await db.another();
    const [pa, pb] = await ports(2);
    const names = [`127.0.0.1:${pa}`, `127.0.0.1:${pb}`];
    // Plain HTTP on loopback: the page's WebSocket here cannot be given a certificate to trust.
    const plain = { POS_TLS_CERT: '', POS_TLS_KEY: '' };
    const a = await startCore('a', url, pa ?? 0, names, plain);
    await a.until(RUNNING);
    const b = await startCore('b', url, pb ?? 0, names, plain);
    await b.until(STANDING_BY);
    const { credential } = await pairTill(await managerAt(a), b, 'Tablet at B');

    // The page as a browser at B's address runs it: its location, storage and WebSocket (which
    // sends the page's origin, as a browser does); its credential kept from pairing.
    const memory = () => {
      const items = new Map<string, string>();
      return { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v), removeItem: (k: string) => void items.delete(k) };
    };
    // Once the test is done the page is closed: a socket it opens then never opens nor closes, so its reconnecting stops.
    let pageClosed = false;
    let stoppedReconnecting = false;
    const sockets: WebSocket[] = [];
    class PageSocket extends WebSocket {
      constructor(address: string, protocols: string[]) {
        if (pageClosed) {
          stoppedReconnecting = true;
          return { readyState: WebSocket.CLOSED, send: () => undefined, close: () => undefined } as unknown as PageSocket;
        }
        super(address, protocols, { origin: b.origin });
        // A browser's socket reports a failure as a close event only.
        this.on('error', () => undefined);
        sockets.push(this);
      }
    }
    vi.stubGlobal('WebSocket', PageSocket);
    vi.stubGlobal('location', { protocol: 'http:', host: b.address, hash: '', pathname: '/', search: '' });
    vi.stubGlobal('history', { replaceState: () => undefined });
    vi.stubGlobal('sessionStorage', memory());
    vi.stubGlobal('localStorage', memory());
    vi.stubGlobal('window', { posDevice: { load: () => Promise.resolve(credential), save: () => Promise.resolve(), forget: () => Promise.resolve() } });
    try {
      const bridge = createBridge();
      const states: ConnectionState[] = [];
      bridge.onConnection((state) => states.push(state));
      const opened = async (after: number) => {
        for (let i = 0; i < 600 && !states.slice(after).includes('open'); i++) await new Promise((r) => setTimeout(r, 50));
        expect(states.slice(after)).toContain('open');
      };
      await opened(0);
      await bridge.call('auth.signIn', { name: 'Marta', pin: TEST_PIN });
      const first = await bridge.call('sale.charge', { amount: '7,00' });
      expect(first.newest?.sale_id).toBeTruthy();

      const before = states.length;
      a.child.kill('SIGKILL');
      await b.until(RUNNING, 30_000);
      await opened(before);
      // It went through closed (the relayed connection ended) and opened again at the same address.
      expect(states.slice(before)).toContain('closed');
      expect(sockets.every((s) => s.url === `ws://${b.address}/bridge`)).toBe(true);
      await bridge.call('auth.signIn', { name: 'Marta', pin: TEST_PIN });
      const second = await bridge.call('sale.charge', { amount: '8,00' });
      expect(second.newest?.sale_id).toBeTruthy();
      expect(second.newest?.sale_id).not.toBe(first.newest?.sale_id);
    } finally {
      pageClosed = true;
      for (const s of sockets) s.terminate();
      for (let i = 0; i < 400 && !stoppedReconnecting; i++) await new Promise((r) => setTimeout(r, 25));
      vi.unstubAllGlobals();
    }
  }, 150_000);
});
