/**
 * Issue 9, transport: the browser shell bound to an address other computers would use serves
 * HTTPS and WSS only. Bound here to 127.0.0.2 (this machine's tests bind loopback only), with
 * the real core on the embedded sandbox, and probed with real clients over real sockets.
 */
import { X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkServerIdentity, connect as tlsConnect } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startCoreOnSandbox, type CoreOnSandbox } from '../core/terminal/fixtures/core.ts';
import { memoryLogger } from '../core/log.ts';
import { systemClock } from '../shared/clock.ts';
import { BRIDGE_PROTOCOL, TOKEN_PROTOCOL_PREFIX } from '../shared/ws-protocol.ts';
import { shellNames } from './addresses.ts';
import { BridgeClient } from './fixtures/bridge-client.ts';
import { startWebShell, type WebShell } from './server.ts';
import { loadTlsIdentity, type TlsIdentity } from './tls.ts';

const HOST = '127.0.0.2';
const TOKEN = 'tls-test-token-0123456789';
let env: CoreOnSandbox;
let rendererDir = '';
const shells: WebShell[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  env = await startCoreOnSandbox('tls', memoryLogger(systemClock), { secondCheckout: false });
  rendererDir = join(env.dir, 'renderer');
  await mkdir(rendererDir, { recursive: true });
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>cashier</title>');
});

afterEach(async () => {
  for (const shell of shells.splice(0)) await shell.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

afterAll(async () => {
  await env?.stop();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pos-tls-int-'));
  dirs.push(dir);
  return dir;
}

/** What cli.ts does off loopback: the identity for the bound address's names, then the shell with it. */
async function startSecureShell(identity?: TlsIdentity): Promise<{ shell: WebShell; identity: TlsIdentity; port: number }> {
  const tls = identity ?? (await loadTlsIdentity({ dataDir: env.dir, hosts: shellNames(HOST) }));
  const shell = await startWebShell({ core: env.core, rendererDir, host: HOST, port: 0, token: TOKEN, tls });
  shells.push(shell);
  return { shell, identity: tls, port: Number(new URL(shell.origin).port) };
}

function get(port: number, options: RequestOptions & { secure: boolean }): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const { secure, ...rest } = options;
  return new Promise((resolve, reject) => {
    const req = (secure ? httpsRequest : httpRequest)({ host: HOST, port, path: '/', method: 'GET', ...rest }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every byte the server sends back to a plain-text HTTP request, until it closes. */
function plainExchange(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: HOST, port }, () => socket.write(`GET / HTTP/1.1\r\nHost: ${HOST}:${port}\r\nConnection: close\r\n\r\n`));
    let received = '';
    socket.setEncoding('latin1').on('data', (c: string) => (received += c));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

/** A bridge connection; resolves once open, rejects with what the client saw otherwise. */
function bridge(url: string, options: WebSocket.ClientOptions): Promise<WebSocket> {
  const ws = new WebSocket(url, [BRIDGE_PROTOCOL, TOKEN_PROTOCOL_PREFIX + TOKEN], options);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

function call(ws: WebSocket, id: number, method: string): Promise<unknown> {
  return new Promise((resolve) => {
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as { type: string; id?: number; envelope?: unknown };
      if (msg.type === 'reply' && msg.id === id) resolve(msg.envelope);
    });
    ws.send(JSON.stringify({ id, method }));
  });
}

/** The SHA-256 fingerprint of the certificate the server actually presents. */
function servedFingerprint(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: HOST, port, ca }, () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fingerprint);
    });
    socket.on('error', reject);
  });
}

describe('browser shell off loopback: HTTPS and WSS only', () => {
  it('refuses to start on another computer’s reach without a certificate, before listening', async () => {
    for (const host of ['0.0.0.0', '::', '192.0.2.10']) {
      await expect(startWebShell({ core: env.core, rendererDir, host, port: 0, token: TOKEN })).rejects.toThrow(`The browser shell serves ${host} over HTTPS only`);
    }
  });

  it('gives a plain http:// request no HTTP answer, and a plain ws:// upgrade no connection', async () => {
    const { port } = await startSecureShell();
    expect(await plainExchange(port)).not.toContain('HTTP/');
    await expect(get(port, { secure: false })).rejects.toThrow();
    for (const origin of [`http://${HOST}:${port}`, `https://${HOST}:${port}`]) {
      const refused = await bridge(`ws://${HOST}:${port}/bridge`, { origin }).then(
        () => null,
        (err: unknown) => err,
      );
      // Not even a refusal in HTTP: the connection never gets that far.
      expect(refused).toBeInstanceOf(Error);
      expect((refused as Error).message).not.toMatch(/^HTTP \d+/);
    }
  });

  it('serves the page over https with the security headers, and the bridge over wss', async () => {
    const { shell, identity, port } = await startSecureShell();
    expect(shell.origin).toBe(`https://${HOST}:${port}`);
    expect(shell.url.startsWith(`https://${HOST}:${port}/#token=`)).toBe(true);

    const page = await get(port, { secure: true, ca: identity.ca as string });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>cashier</title>');
    expect(String(page.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['x-frame-options']).toBe('DENY');
    // The DNS-rebinding guard holds over TLS too.
    const rebound = await get(port, { secure: true, ca: identity.ca as string, headers: { host: `evil.example:${port}` }, checkServerIdentity: (_name, cert) => checkServerIdentity(HOST, cert) });
    expect(rebound.status).toBe(421);

    const ws = await bridge(`wss://${HOST}:${port}/bridge`, { origin: shell.origin, ca: identity.ca as string });
    expect(await call(ws, 1, 'core.status')).toMatchObject({ ok: true, result: { state: 'ready' } });
    ws.close();
    // The page's origin is https: the same address over http is another origin.
    await expect(bridge(`wss://${HOST}:${port}/bridge`, { origin: `http://${HOST}:${port}`, ca: identity.ca as string })).rejects.toThrow('HTTP 403');
  });

  it('is refused by a client that does not trust the certificate: no silent fallback', async () => {
    const { shell, port } = await startSecureShell();
    await expect(get(port, { secure: true })).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    await expect(bridge(`wss://${HOST}:${port}/bridge`, { origin: shell.origin })).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    // Trusting some other store's certificate, or its CA, is no better.
    const other = await loadTlsIdentity({ dataDir: await tempDir(), hosts: [HOST] });
    await expect(get(port, { secure: true, ca: other.cert })).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    await expect(get(port, { secure: true, ca: other.ca as string })).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
  });

  it('announces the fingerprint of the certificate it serves', async () => {
    const { shell, identity, port } = await startSecureShell();
    const served = await servedFingerprint(port, identity.ca as string);
    expect(served).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(shell.fingerprint).toBe(served);
    expect(identity.fingerprint).toBe(served);
  });

  it('shows the fingerprint and the https address to a till that is not paired yet, and to the manager who pairs it', async () => {
    const { shell, identity, port } = await startSecureShell();
    const served = await servedFingerprint(port, identity.ca as string);
    const stranger = await BridgeClient.open(shell.origin, 'unpaired', { ca: identity.ca as string });
    expect(await stranger.ok('pairing.info')).toEqual({ fingerprint: served });
    stranger.close();

    const office = await BridgeClient.open(shell.origin, { token: TOKEN }, { ca: identity.ca as string });
    await office.ok('auth.createFirstManager', { name: 'Marta', pin: '2468' });
    const offer = await office.ok<{ urls: string[]; fingerprint: string | null }>('devices.startPairing', { kind: 'till', storeId: 1, checkoutId: 1, name: 'Till 2' });
    expect(offer).toMatchObject({ urls: [`https://${HOST}:${port}/`], fingerprint: served });
    office.close();
  });
});

/** A TLS connection with the client's own trust: resolves with whether it verified, rejects with the client's error. */
function verifiedConnection(port: number, options: { ca?: string[] }): Promise<boolean> {
  return new Promise((resolve, reject) => {
    // Default rejectUnauthorized (true): no pin, no exception, only the trust given here.
    const socket = tlsConnect({ host: HOST, port, ...options }, () => {
      const authorized = socket.authorized;
      socket.end();
      resolve(authorized);
    });
    socket.on('error', reject);
  });
}

/** The store window with a manager signed in: the first one, made by whichever test comes first. */
async function managerAt(origin: string, ca: string): Promise<BridgeClient> {
  const office = await BridgeClient.open(origin, { token: TOKEN }, { ca });
  // setup: no operator yet.
  if ((await office.ok<{ setup: boolean }>('auth.status')).setup) await office.ok('auth.createFirstManager', { name: 'Marta', pin: '2468' });
  else await office.ok('auth.signIn', { name: 'Marta', pin: '2468' });
  return office;
}

describe('browser shell off loopback: the store certificate authority (issue 25, point 5)', () => {
  it('the CA-issued certificate is verified by Node’s TLS with only the store CA trusted, and refused without it', async () => {
    const identity = await loadTlsIdentity({ dataDir: await tempDir(), hosts: shellNames(HOST) });
    const storeCaPem = identity.ca as string;
    expect(storeCaPem).toContain('-----BEGIN CERTIFICATE-----');
    const { shell, port } = await startSecureShell(identity);

    expect(await verifiedConnection(port, { ca: [storeCaPem] })).toBe(true);
    const page = await get(port, { secure: true, ca: [storeCaPem] });
    expect(page.status).toBe(200);
    const ws = await bridge(`wss://${HOST}:${port}/bridge`, { origin: shell.origin, ca: [storeCaPem] });
    expect(await call(ws, 1, 'core.status')).toMatchObject({ ok: true, result: { state: 'ready' } });
    ws.close();

    // Without it (the system's roots only), or with another store's CA, there is no connection.
    await expect(verifiedConnection(port, {})).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    const otherStore = await loadTlsIdentity({ dataDir: await tempDir(), hosts: [HOST] });
    await expect(verifiedConnection(port, { ca: [otherStore.ca as string] })).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
  });

  it('serves the store CA’s certificate, never its key, on a download page the Devices screen’s QR points to', async () => {
    const identity = await loadTlsIdentity({ dataDir: await tempDir(), hosts: shellNames(HOST) });
    const { shell, port } = await startSecureShell(identity);
    const download = await get(port, { secure: true, ca: [identity.ca as string], path: '/store-ca.crt' });
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toBe('application/x-x509-ca-cert');
    expect(String(download.headers['content-disposition'])).toContain('filename="pix-cashier-store-ca.crt"');
    expect(download.body).toBe(identity.ca);
    expect(download.body).not.toContain('PRIVATE KEY');

    const office = await managerAt(shell.origin, identity.ca as string);
    const offer = await office.ok<{ storeCa: { url: string; fingerprint: string } | null }>('devices.startPairing', { kind: 'till', storeId: 1, checkoutId: 1, name: 'Tablet 1' });
    expect(offer.storeCa).toEqual({ url: `https://${HOST}:${port}/store-ca.crt`, fingerprint: new X509Certificate(identity.ca as string).fingerprint256 });
    office.close();
  });

  it('has no store CA with the merchant’s own certificate: no download, no QR', async () => {
    const merchant = await tempDir();
    await loadTlsIdentity({ dataDir: merchant, hosts: [HOST] });
    const given = await loadTlsIdentity({ dataDir: env.dir, certFile: join(merchant, 'tls', 'cert.pem'), keyFile: join(merchant, 'tls', 'key.pem'), hosts: shellNames(HOST) });
    expect(given.ca).toBeNull();
    const { shell, port } = await startSecureShell(given);
    const ca = await readFile(join(merchant, 'tls', 'store-ca.pem'), 'utf8');
    expect((await get(port, { secure: true, ca: [ca], path: '/store-ca.crt' })).status).toBe(404);
    const office = await managerAt(shell.origin, ca);
    const offer = await office.ok<{ storeCa: unknown }>('devices.startPairing', { kind: 'till', storeId: 1, checkoutId: 1, name: 'Tablet 2' });
    expect(offer.storeCa).toBeNull();
    office.close();
  });
});

describe('browser shell off loopback: which certificate', () => {
  it('a second start serves the same kept certificate', async () => {
    const first = await startSecureShell();
    const firstServed = await servedFingerprint(first.port, first.identity.ca as string);
    await first.shell.close();
    shells.splice(shells.indexOf(first.shell), 1);

    const second = await startSecureShell();
    expect(second.identity.generated).toBe(false);
    expect(await servedFingerprint(second.port, second.identity.ca as string)).toBe(firstServed);
    expect(second.shell.fingerprint).toBe(first.shell.fingerprint);
  });

  it('serves the merchant’s POS_TLS_CERT/POS_TLS_KEY as they are, and refuses a key that is not the certificate’s', async () => {
    // The merchant's files: made elsewhere, handed over as paths.
    const merchant = await tempDir();
    const own = await loadTlsIdentity({ dataDir: merchant, hosts: [HOST] });
    const certFile = join(merchant, 'tls', 'cert.pem');
    const keyFile = join(merchant, 'tls', 'key.pem');
    const given = await loadTlsIdentity({ dataDir: env.dir, certFile, keyFile, hosts: shellNames(HOST) });
    expect(given).toEqual({ cert: own.cert, key: own.key, fingerprint: own.fingerprint, ca: null, generated: false });
    const { shell, port } = await startSecureShell(given);
    // Whoever issued the merchant's certificate is theirs to trust (here another data dir's CA).
    expect(await servedFingerprint(port, own.ca as string)).toBe(own.fingerprint);
    expect(shell.fingerprint).toBe(own.fingerprint);
    expect((await get(port, { secure: true, ca: own.ca as string })).status).toBe(200);

    const another = await tempDir();
    await loadTlsIdentity({ dataDir: another, hosts: [HOST] });
    const wrongKey = join(another, 'tls', 'key.pem');
    await expect(loadTlsIdentity({ dataDir: env.dir, certFile, keyFile: wrongKey, hosts: shellNames(HOST) })).rejects.toThrow(
      `POS_TLS_KEY (${wrongKey}) is not the private key of the certificate in POS_TLS_CERT (${certFile}): give the key the certificate was issued for.`,
    );
  });
});
