/**
 * The multi-core campaign's load balancer: a round-robin TCP front on loopback, test
 * equipment standing in for the HAProxy a merchant would run. Each connection goes to the
 * next core's port in turn; one that nobody answers (a core killed and not back yet) goes to
 * the next instead, as a balancer's failed connect is dispatched again. Bytes pass as they
 * are (TLS included), and when either side closes, so does the other: a till whose core
 * died sees its connection end and must reconnect by itself.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpFront {
  port: number;
  /** Connections handed to each backend (by its index in `backends`). */
  readonly handed: number[];
  /** Connections no backend took (every one refused). */
  refused: number;
  close(): Promise<void>;
}

export async function startTcpFront(backends: readonly number[]): Promise<TcpFront> {
  const sockets = new Set<Socket>();
  let next = 0;
  const front: TcpFront = { port: 0, handed: backends.map(() => 0), refused: 0, close: async () => undefined };
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    client.pause();
    const first = next;
    next = (next + 1) % backends.length;
    const tryBackend = (tried: number) => {
      if (client.destroyed) return;
      if (tried >= backends.length) {
        front.refused += 1;
        client.destroy();
        return;
      }
      const index = (first + tried) % backends.length;
      const upstream = connect({ host: '127.0.0.1', port: backends[index] as number });
      sockets.add(upstream);
      upstream.once('close', () => sockets.delete(upstream));
      const refusedHere = () => tryBackend(tried + 1);
      upstream.once('error', refusedHere);
      upstream.once('connect', () => {
        upstream.removeListener('error', refusedHere);
        front.handed[index] = (front.handed[index] ?? 0) + 1;
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.once('close', () => upstream.destroy());
        upstream.once('close', () => client.destroy());
        client.resume();
      });
    };
    tryBackend(0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  front.port = typeof address === 'object' && address !== null ? address.port : 0;
  front.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return front;
}
