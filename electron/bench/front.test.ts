import { createServer, connect, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../postgres/fixtures/test-database.ts';
import { frontOrder, loopbackTargets, startFront, type Front } from './front.ts';

describe('frontOrder: which core a balancer without health checks tries, in turn', () => {
  it.each([
    [2, 0, [0, 1]],
    [2, 1, [1, 0]],
    [2, 2, [0, 1]],
    [3, 4, [1, 2, 0]],
    [1, 7, [0]],
    // A turn counter gone negative or huge still starts somewhere on the ring.
    [3, -1, [2, 0, 1]],
    [2, Number.MAX_SAFE_INTEGER, [1, 0]],
  ])('%i targets, connection %i: %j', (count, n, order) => {
    expect(frontOrder(count, n)).toEqual(order);
  });

  it('tries every target once, none twice', () => {
    for (let n = 0; n < 10; n++) expect([...frontOrder(5, n)].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('with no targets, or a count that is not a whole number, tries none', () => {
    expect(frontOrder(0, 3)).toEqual([]);
    expect(frontOrder(-2, 0)).toEqual([]);
    expect(frontOrder(Number.NaN, 0)).toEqual([]);
    expect(frontOrder(1.5, 0)).toEqual([]);
  });
});

const servers: Server[] = [];
const fronts: Front[] = [];
afterEach(async () => {
  for (const f of fronts.splice(0)) await f.close();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A backend that answers each connection with its name and closes. */
async function named(name: string): Promise<number> {
  const server = createServer((socket) => socket.end(name));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

/** What a client connecting to the front hears before the close. */
function hear(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let heard = '';
    socket.on('data', (d) => (heard += d.toString()));
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(heard));
  });
}

describe('the round-robin front', () => {
  it('hands each connection to the next backend in turn', async () => {
    const front = await startFront(loopbackTargets([await named('a'), await named('b'), await named('c')]));
    fronts.push(front);
    const heard: string[] = [];
    for (let i = 0; i < 6; i++) heard.push(await hear(front.port));
    expect(heard).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    expect(front.handed).toEqual([2, 2, 2]);
  });

  it('sends a connection a dead backend refuses to the next one, and closes it when every backend refuses', async () => {
    const dead = await freeLoopbackPort();
    const front = await startFront(loopbackTargets([dead, await named('b')]));
    fronts.push(front);
    expect([await hear(front.port), await hear(front.port)]).toEqual(['b', 'b']);
    expect(front.handed).toEqual([0, 2]);
    const none = await startFront(loopbackTargets([dead]));
    fronts.push(none);
    expect(await hear(none.port)).toBe('');
    expect(none.refused).toBe(1);
  });
});
