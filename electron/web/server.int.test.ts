import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../core/config.ts';
import type { Core } from '../core/core.ts';
import { composeCore } from '../compose.ts';
import { memoryLogger } from '../core/log.ts';
import { ManualClock, systemClock } from '../shared/clock.ts';
import { BRIDGE_PROTOCOL, LAUNCH_PROTOCOL_PREFIX, RESUME_PROTOCOL_PREFIX, TOKEN_PROTOCOL_PREFIX } from '../shared/ws-protocol.ts';
import { startWebShell, type WebShell } from './server.ts';

/** The browser shell over real HTTP and WebSocket, with the real core on the embedded sandbox. */
let dir = '';
let core: Core;
let shell: WebShell;
const TOKEN = 'test-token-0123456789abcdef';
const log = memoryLogger(systemClock);
/** The tills' idle time and a dropped page's grace: moved by the tests, never by itself. */
const sessionClock = new ManualClock(0);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pos-web-'));
  const rendererDir = join(dir, 'renderer');
  await mkdir(join(rendererDir, 'assets'), { recursive: true });
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>cashier</title>');
  await writeFile(join(rendererDir, 'display.html'), '<!doctype html><title>display</title>');
  await writeFile(join(rendererDir, 'assets', 'app-1234.js'), 'console.log(1)');
  await writeFile(join(dir, 'secret.txt'), 'outside the renderer');
  core = await composeCore(loadConfig({ POS_DATA_DIR: join(dir, 'data'), POS_LANG: 'en' }, []), { log, sessionClock });
  await core.start();
  shell = await startWebShell({ core, rendererDir, host: '127.0.0.1', port: 0, token: TOKEN });
});

afterAll(async () => {
  await shell?.close();
  await core?.stop();
  await rm(dir, { recursive: true, force: true });
});

function rawGet(path: string, host?: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = new URL(shell.origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: 'GET', headers: host ? { host } : {} }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function connect(opts: { token?: string; origin?: string; launch?: string } = {}): Promise<WebSocket> {
  const protocols = [BRIDGE_PROTOCOL, opts.launch === undefined ? TOKEN_PROTOCOL_PREFIX + (opts.token ?? TOKEN) : LAUNCH_PROTOCOL_PREFIX + opts.launch];
  const ws = new WebSocket(shell.origin.replace('http', 'ws') + '/bridge', protocols, { origin: opts.origin ?? shell.origin });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

function call(ws: WebSocket, id: number, method: string, args?: unknown): Promise<unknown> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const msg = JSON.parse(data.toString()) as { type: string; id?: number; envelope?: unknown };
      if (msg.type === 'reply' && msg.id === id) {
        ws.off('message', onMessage);
        resolve(msg.envelope);
      }
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ id, method, args }));
  });
}

describe('browser shell: static files', () => {
  it('serves the renderer with a strict CSP and hardening headers', async () => {
    const res = await rawGet('/');
    expect(res.status).toBe(200);
    expect(res.body).toContain('<title>cashier</title>');
    expect(String(res.headers['content-security-policy'])).toContain("script-src 'self'");
    expect(String(res.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect((await rawGet('/display')).body).toContain('<title>display</title>');
    expect((await rawGet('/assets/app-1234.js')).headers['cache-control']).toContain('immutable');
  });

  it.each(['/../secret.txt', '/%2e%2e/secret.txt', '/assets/../../secret.txt', '/nope.js', '/%00'])('never serves %s from outside the renderer', async (path) => {
    const res = await rawGet(path);
    expect(res.status).toBe(404);
    expect(res.body).not.toContain('outside the renderer');
  });

  it('refuses a request for another host name (DNS rebinding)', async () => {
    const port = new URL(shell.origin).port;
    expect((await rawGet('/', `evil.example:${port}`)).status).toBe(421);
    expect((await rawGet('/', `localhost:${port}`)).status).toBe(200);
  });
});

describe('browser shell: the bridge', () => {
  it('refuses a connection without the token, with a wrong one, or from another origin', async () => {
    await expect(connect({ token: '' })).rejects.toThrow('HTTP 401');
    await expect(connect({ token: 'x'.repeat(TOKEN.length) })).rejects.toThrow('HTTP 401');
    await expect(connect({ origin: 'https://evil.example' })).rejects.toThrow('HTTP 403');
    expect(log.lines.join('\n')).not.toContain(TOKEN);
  });

  it('lets a page opened on localhost connect (the Host check accepts that name too)', async () => {
    const ws = await connect({ origin: shell.origin.replace('127.0.0.1', 'localhost') });
    expect(await call(ws, 1, 'core.status')).toMatchObject({ ok: true });
    ws.close();
  });

  it('opens a window by a one-time launch code, then hands it the session token', async () => {
    const code = new URL(shell.launchUrl()).hash.replace('#launch=', '');
    expect(shell.launchUrl()).not.toContain(TOKEN);
    const ws = new WebSocket(shell.origin.replace('http', 'ws') + '/bridge', [BRIDGE_PROTOCOL, LAUNCH_PROTOCOL_PREFIX + code], { origin: shell.origin });
    const first = await new Promise<unknown>((resolve, reject) => {
      ws.once('message', (data) => resolve(JSON.parse(data.toString())));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
    expect(first).toEqual({ type: 'session', token: TOKEN });
    ws.close();
    await expect(connect({ launch: code })).rejects.toThrow('HTTP 401');
    await expect(connect({ launch: 'made-up-code' })).rejects.toThrow('HTTP 401');
  });

  it('serves contract calls in envelopes and validates their arguments', async () => {
    const ws = await connect();
    expect(await call(ws, 1, 'core.status')).toMatchObject({ ok: true, result: { state: 'ready', service: { mode: 'sandbox', reachable: true } } });
    expect(await call(ws, 2, 'no.such.method')).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    expect(await call(ws, 3, 'auth.signIn', { name: 'Marta', pin: '12ab' })).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    ws.close();
  });

  it('pushes the core events to connected windows', async () => {
    const ws = await connect();
    const pushed = new Promise<unknown>((resolve) =>
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString()) as { type: string; event?: string; payload?: unknown };
        if (msg.type === 'event' && msg.event === 'core.status') resolve(msg.payload);
      }),
    );
    // A manager's change of the store's default language (no one is signed in on this socket yet).
    await core.setLang('es');
    expect(await pushed).toMatchObject({ lang: 'es' });
    await core.setLang('en');
    ws.close();
  });

  it('closes a socket that sends a malformed message, and keeps serving others', async () => {
    const bad = await connect();
    const closed = new Promise<number>((resolve) => bad.once('close', (code) => resolve(code)));
    bad.send('{not json');
    expect(await closed).toBe(1003);
    const good = await connect();
    expect(await call(good, 7, 'core.status')).toMatchObject({ ok: true });
    good.close();
  });
});

describe('browser shell: each connection signs in on its own', () => {
  it('two connections carry different operators; a new connection starts signed out', async () => {
    const till = await connect();
    const office = await connect();
    // The first start: no operator yet, and nothing but signing in is open.
    expect(await call(till, 1, 'auth.status')).toEqual({ ok: true, result: { setup: true, operator: null, lockMinutes: 10, ended: null } });
    expect(await call(till, 2, 'sale.charge', { amount: '1,00' })).toMatchObject({ ok: false, error: { code: 'signed_out' } });
    expect(await call(till, 3, 'auth.createFirstManager', { name: 'Marta', pin: '2468' })).toMatchObject({ ok: true, result: { operator: { name: 'Marta', role: 'manager' } } });
    expect(await call(till, 4, 'operators.add', { name: 'Caio', role: 'cashier', pin: '1357' })).toMatchObject({ ok: true, result: { name: 'Caio', role: 'cashier' } });

    // The other connection is not signed in by the first one's sign-in.
    expect(await call(office, 1, 'auth.status')).toMatchObject({ ok: true, result: { setup: false, operator: null } });
    expect(await call(office, 2, 'auth.signIn', { name: 'Caio', pin: '1357' })).toMatchObject({ ok: true, result: { operator: { name: 'Caio', role: 'cashier' } } });
    expect(await call(office, 3, 'operators.list')).toMatchObject({ ok: false, error: { code: 'forbidden', message: 'Only a manager can see the operators.' } });
    expect(await call(till, 5, 'operators.list')).toMatchObject({ ok: true });
    expect(await call(till, 6, 'auth.status')).toMatchObject({ ok: true, result: { operator: { name: 'Marta' } } });

    // Signing out on one leaves the other signed in; a reload (a new connection) starts signed out.
    expect(await call(till, 7, 'auth.signOut', {})).toMatchObject({ ok: true, result: { operator: null } });
    expect(await call(office, 4, 'auth.status')).toMatchObject({ ok: true, result: { operator: { name: 'Caio' } } });
    office.close();
    const reloaded = await connect();
    expect(await call(reloaded, 1, 'auth.status')).toMatchObject({ ok: true, result: { operator: null } });
    till.close();
    reloaded.close();
  });
});

/**
 * A page's connection, offering a resume key if it has one; resolves once the server says the
 * key it goes on with ('' when not signed in). `key` is the latest the server gave: a sign-in
 * on it gives a new one (issue 23).
 */
function connectPage(resume?: string): Promise<{ ws: WebSocket; readonly key: string }> {
  const protocols = [BRIDGE_PROTOCOL, TOKEN_PROTOCOL_PREFIX + TOKEN, ...(resume === undefined ? [] : [RESUME_PROTOCOL_PREFIX + resume])];
  const ws = new WebSocket(shell.origin.replace('http', 'ws') + '/bridge', protocols, { origin: shell.origin });
  let key: string | null = null;
  const page = {
    ws,
    get key() {
      return key ?? '';
    },
  };
  return new Promise((resolve, reject) => {
    const onMessage = (data: WebSocket.RawData) => {
      const msg = JSON.parse(data.toString()) as { type: string; key?: string };
      if (msg.type !== 'resume') return;
      const first = key === null;
      key = msg.key ?? '';
      if (first) resolve(page);
    };
    ws.on('message', onMessage);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

describe('issue 25: the core ends sign-ins and tells each till', () => {
  it('a new role for an operator ends their sign-in on every till at once: each hears auth.changed with why, the manager’s own goes on', async () => {
    const manager = await connect();
    expect(await call(manager, 1, 'auth.signIn', { name: 'Marta', pin: '2468' })).toMatchObject({ ok: true });
    const added = (await call(manager, 2, 'operators.add', { name: 'Bia', role: 'cashier', pin: '8642' })) as { result: { id: string } };
    const tills = [await connect(), await connect()];
    for (const till of tills) expect(await call(till, 1, 'auth.signIn', { name: 'Bia', pin: '8642' })).toMatchObject({ ok: true });
    const heard = tills.map(
      (till) =>
        new Promise<unknown>((resolve) => {
          till.on('message', (data: WebSocket.RawData) => {
            const msg = JSON.parse(data.toString()) as { type: string; event?: string; payload?: unknown };
            if (msg.type === 'event' && msg.event === 'auth.changed') resolve(msg.payload);
          });
        }),
    );
    expect(await call(manager, 3, 'operators.change', { operatorId: added.result.id, role: 'supervisor' })).toMatchObject({ ok: true });
    for (const payload of await Promise.all(heard)) expect(payload).toMatchObject({ operator: null, ended: 'operator_changed' });
    for (const till of tills) expect(await call(till, 2, 'sale.charge', { amount: '1,00' })).toMatchObject({ ok: false, error: { code: 'signed_out' } });
    expect(await call(manager, 4, 'auth.status')).toMatchObject({ ok: true, result: { operator: { name: 'Marta' } } });
    // Reads a page makes by itself do not keep a sign-in alive; a person's act (auth.active) does.
    sessionClock.advance(9 * 60_000);
    expect(await call(manager, 5, 'auth.active')).toMatchObject({ ok: true, result: { operator: { name: 'Marta' } } });
    sessionClock.advance(9 * 60_000);
    expect(await call(manager, 6, 'core.status')).toMatchObject({ ok: true });
    sessionClock.advance(60_000);
    expect(await call(manager, 7, 'auth.status')).toMatchObject({ ok: true, result: { operator: null, ended: 'idle' } });
    for (const ws of [manager, ...tills]) ws.close();
  });
});

describe('browser shell: a dropped connection keeps its sign-in', () => {
  it('a page that comes back with its resume key is still signed in; any other key starts signed out', async () => {
    const first = await connectPage();
    expect(await call(first.ws, 1, 'auth.signIn', { name: 'Marta', pin: '2468' })).toMatchObject({ ok: true, result: { operator: { name: 'Marta' } } });
    const closed = new Promise((resolve) => first.ws.once('close', resolve));
    first.ws.terminate();
    await closed;

    const back = await connectPage(first.key);
    expect(back.key).toBe(first.key);
    expect(await call(back.ws, 1, 'auth.status')).toMatchObject({ ok: true, result: { operator: { name: 'Marta' } } });

    const stranger = await connectPage('made-up-resume-key');
    expect(stranger.key).not.toBe('made-up-resume-key');
    expect(await call(stranger.ws, 1, 'auth.status')).toMatchObject({ ok: true, result: { operator: null } });

    // Signing out on the page ends the sign-in its key carries.
    await call(back.ws, 2, 'auth.signOut', {});
    back.ws.close();
    const again = await connectPage(first.key);
    expect(await call(again.ws, 1, 'auth.status')).toMatchObject({ ok: true, result: { operator: null } });
    again.ws.close();
    stranger.ws.close();
  });

  it('issue 25: a dropped page finds its sign-in for 2 minutes of the session clock, not after', async () => {
    // A closing handshake: the server has let the socket go when the page hears its close.
    const drop = async (ws: WebSocket) => {
      const closed = new Promise((resolve) => ws.once('close', resolve));
      ws.close();
      await closed;
    };
    const first = await connectPage();
    const answer = await call(first.ws, 1, 'auth.signIn', { name: 'Marta', pin: '2468' });
    expect(answer, JSON.stringify(answer)).toMatchObject({ ok: true });
    await drop(first.ws);
    sessionClock.advance(2 * 60_000);
    const back = await connectPage(first.key);
    expect(await call(back.ws, 1, 'auth.status')).toMatchObject({ ok: true, result: { operator: { name: 'Marta' } } });
    await drop(back.ws);
    sessionClock.advance(2 * 60_000 + 1);
    const late = await connectPage(first.key);
    expect(late.key).not.toBe(first.key);
    expect(await call(late.ws, 1, 'auth.status')).toMatchObject({ ok: true, result: { operator: null } });
    late.ws.close();
  });
});
