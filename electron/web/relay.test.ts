/**
 * The standby's relay over real loopback sockets: what a till sends reaches the active core
 * unchanged and back, whichever core the lease row names, and a connection it cannot send
 * anywhere is closed with a reason in the log.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryLogger } from '../core/log.ts';
import { systemClock } from '../shared/clock.ts';
import { StandbyRelay } from './relay.ts';

const servers: Server[] = [];
const relays: StandbyRelay[] = [];

afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A core stand-in: answers each line with its name and the line, and keeps its sockets. */
async function echoCore(name: string, port = 0): Promise<{ address: string; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('data', (data) => socket.write(`${name}:${data.toString()}`));
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const at = server.address();
  return { address: `127.0.0.1:${typeof at === 'object' && at ? at.port : 0}`, sockets };
}

async function relayOn(self: string | null = null, patienceMs?: number) {
  const log = memoryLogger(systemClock);
  const relay = new StandbyRelay({ host: '127.0.0.1', port: 0, self, log, ...(patienceMs === undefined ? {} : { patienceMs }) });
  relays.push(relay);
  await relay.listen();
  return { relay, log };
}

/** A till's connection: what it heard, and whether it was closed. */
async function till(address: string) {
  const [host, port] = address.split(':');
  const socket = connect({ host: host ?? '', port: Number(port) });
  let heard = '';
  let closed = false;
  socket.on('data', (d) => (heard += d.toString()));
  socket.on('error', () => undefined);
  const done = new Promise<void>((resolve) => socket.once('close', () => ((closed = true), resolve())));
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  return {
    socket,
    heard: () => heard,
    closed: () => closed,
    done,
    async says(text: string, expected: string) {
      socket.write(text);
      while (!heard.endsWith(expected)) await new Promise((r) => setTimeout(r, 5));
    },
  };
}

describe('StandbyRelay', () => {
  it('pipes a till’s bytes to the active core and back unchanged, and sends new connections to whichever core the lease names', async () => {
    const a = await echoCore('a');
    const b = await echoCore('b');
    const { relay, log } = await relayOn();
    relay.follow('core-a', a.address);
    const first = await till(relay.address ?? '');
    const bytes = 'GET / HTTP/1.1\r\n\u00e9\u0000';
    await first.says(bytes, `a:${bytes}`);
    // Core B took over: the connection relayed to A is closed, the next one goes to B.
    relay.follow('core-b', b.address);
    await first.done;
    const second = await till(relay.address ?? '');
    await second.says('hello', 'b:hello');
    expect(log.lines.filter((l) => l.includes('relayed to the active core')).map((l) => JSON.parse(l).address)).toEqual([a.address, b.address]);
  });

  it('closes a relayed connection when its core closes it, after what the core sent last', async () => {
    const a = await echoCore('a');
    const { relay } = await relayOn();
    relay.follow('core-a', a.address);
    const t = await till(relay.address ?? '');
    await t.says('x', 'a:x');
    a.sockets[0]?.end('bye');
    await t.done;
    expect(t.heard()).toBe('a:xbye');
  });

  it('closes a connection it cannot send anywhere, and says why once for a run of them', async () => {
    const { relay, log } = await relayOn();
    relay.follow('core-a', null);
    for (let i = 0; i < 3; i++) {
      const t = await till(relay.address ?? '');
      await t.done;
      expect(t.heard()).toBe('');
    }
    const said = log.lines.filter((l) => l.includes('no active core publishes an address'));
    expect(said).toHaveLength(1);
    expect(JSON.parse(said[0] ?? '{}')).toMatchObject({ level: 'warn' });
  });

  it('never relays to its own address (a loop), and says so', async () => {
    const { relay, log } = await relayOn('127.0.0.1:5180');
    relay.follow('core-a', '127.0.0.1:5180');
    const t = await till(relay.address ?? '');
    await t.done;
    expect(log.lines.some((l) => l.includes('leads back to this core'))).toBe(true);
    relay.follow('core-a', 'not an address');
    await (await till(relay.address ?? '')).done;
    expect(log.lines.some((l) => l.includes('not a host and port'))).toBe(true);
  });

  it('finds a loop through another name of its own address, closes the connection and says so, instead of relaying to itself without end', async () => {
    const { relay, log } = await relayOn(null);
    // `localhost` is this relay too, under a name its own address does not spell.
    relay.follow('core-a', `localhost:${(relay.address ?? '').split(':')[1]}`);
    const t = await till(relay.address ?? '');
    await t.done;
    expect(t.heard()).toBe('');
    expect(log.lines.filter((l) => l.includes('leads back to this core'))).toHaveLength(1);
  });

  it('holds a new connection while the active core is not answering yet, and relays it once it is', async () => {
    const probe = await echoCore('probe');
    const port = Number(probe.address.split(':')[1]);
    await new Promise((r) => servers.pop()?.close(r));
    const { relay } = await relayOn();
    relay.follow('core-a', `127.0.0.1:${port}`);
    const t = await till(relay.address ?? '');
    t.socket.write('early');
    await new Promise((r) => setTimeout(r, 600));
    expect(t.closed()).toBe(false);
    await echoCore('a', port);
    await t.says('', 'a:early');
  });

  it('sends a connection still waiting for a core that stopped answering to the one the lease names next', async () => {
    const probe = await echoCore('probe');
    await new Promise((r) => servers.pop()?.close(r));
    const b = await echoCore('b');
    const { relay } = await relayOn();
    relay.follow('core-a', probe.address);
    const t = await till(relay.address ?? '');
    t.socket.write('waiting');
    await new Promise((r) => setTimeout(r, 300));
    relay.follow('core-b', b.address);
    await t.says('', 'b:waiting');
    expect(t.closed()).toBe(false);
  });

  it('closes a connection whose active core never answers, and says so', async () => {
    const probe = await echoCore('probe');
    await new Promise((r) => servers.pop()?.close(r));
    const { relay, log } = await relayOn(null, 600);
    relay.follow('core-a', probe.address);
    const t = await till(relay.address ?? '');
    await t.done;
    expect(log.lines.some((l) => l.includes('the active core does not answer at its address'))).toBe(true);
  });

  it('stops at takeover: every relayed connection closed and the port free for the core’s own shell', async () => {
    const a = await echoCore('a');
    const { relay, log } = await relayOn();
    relay.follow('core-a', a.address);
    const address = relay.address ?? '';
    const t = await till(address);
    await t.says('x', 'a:x');
    relay.lease({ kind: 'taken', term: 2 });
    await relay.close();
    await t.done;
    const shell = await echoCore('b', Number(address.split(':')[1]));
    expect(shell.address).toBe(address);
    expect(log.lines.some((l) => l.includes('stopped relaying'))).toBe(true);
    // Later lease events do not bring it back.
    relay.lease({ kind: 'standby', holder: 'core-c', address: a.address });
    await relay.listen();
    expect(relay.address).toBeNull();
  });

  it('says when a standby can be reached: its lease resolves once a till connects, or with why it cannot', async () => {
    const a = await echoCore('a');
    const relay = new StandbyRelay({ host: '127.0.0.1', port: 0, self: null, log: memoryLogger(systemClock) });
    relays.push(relay);
    expect(relay.address).toBeNull();
    expect(await relay.lease({ kind: 'standby', holder: 'core-a', address: a.address })).toBeNull();
    const t = await till(relay.address ?? '');
    await t.says('x', 'a:x');

    // A port another program holds: the lease resolves (never rejects) with the error to say.
    const held = await echoCore('other');
    const log = memoryLogger(systemClock);
    const blocked = new StandbyRelay({ host: '127.0.0.1', port: Number(held.address.split(':')[1]), self: null, log });
    relays.push(blocked);
    expect(await blocked.lease({ kind: 'standby', holder: 'core-a', address: a.address })).toMatchObject({ code: 'EADDRINUSE' });
    expect(log.lines.some((l) => l.includes('is already in use'))).toBe(true);
  });
});
