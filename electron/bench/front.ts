/**
 * A round-robin TCP front for the benches' and the soak's cores: test equipment, not
 * product, standing in for the balancer (HAProxy) a merchant would run. Each new connection
 * goes to the next target in turn (round robin) that accepts it; a target that refuses (a
 * core killed and not back yet) is skipped for that connection only, as a balancer's failed
 * connect is dispatched again. No health checks: this is the balancer a merchant would have
 * without one, so a till behind it may land on a standby (which relays it) or on a core that
 * is still starting. Bytes are piped both ways untouched (TLS included), and when either
 * side closes, so does the other: a till whose core died sees its connection end and must
 * reconnect by itself. Loopback only.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface Target {
  host: string;
  port: number;
}

/** Targets on loopback, one per port. */
export function loopbackTargets(ports: readonly number[]): Target[] {
  return ports.map((port) => ({ host: '127.0.0.1', port }));
}

/** The order in which connection number `n` tries `count` targets: from n's turn round the ring. */
export function frontOrder(count: number, n: number): number[] {
  if (!Number.isSafeInteger(count) || count < 1) return [];
  const first = ((n % count) + count) % count;
  return Array.from({ length: count }, (_, i) => (first + i) % count);
}

export interface Front {
  /** host:port, as a till is given it. */
  address: string;
  port: number;
  /** The target index each accepted connection was piped to, in order; -1 where none accepted. */
  readonly landed: number[];
  /** Connections handed to each target (by its index in `targets`). */
  readonly handed: number[];
  /** Connections no target took (every one refused). */
  readonly refused: number;
  close: () => Promise<void>;
}

/** Connects to `target`; resolves with the socket once connected, or null if it refused or failed. */
function reach(target: Target): Promise<Socket | null> {
  return new Promise((resolve) => {
    const socket = connect({ host: target.host, port: target.port });
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(null);
    });
  });
}

export async function startFront(targets: readonly Target[]): Promise<Front> {
  const sockets = new Set<Socket>();
  const landed: number[] = [];
  const handed = targets.map(() => 0);
  let refused = 0;
  let turn = 0;
  const track = (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  const server = createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    client.on('error', () => client.destroy());
    const order = frontOrder(targets.length, turn++);
    const index = landed.push(-1) - 1;
    void (async () => {
      for (const i of order) {
        if (client.destroyed) return;
        const upstream = await reach(targets[i]!);
        if (upstream === null) continue;
        track(upstream);
        landed[index] = i;
        handed[i] = (handed[i] ?? 0) + 1;
        upstream.on('error', () => upstream.destroy());
        // Either side ending ends the other: a core that dies drops its tills at once.
        upstream.once('close', () => client.destroy());
        client.once('close', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
        return;
      }
      if (!client.destroyed) refused += 1;
      client.destroy();
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${port}`,
    port,
    landed,
    handed,
    get refused() {
      return refused;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
