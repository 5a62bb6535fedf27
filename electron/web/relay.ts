import { connect, createServer, type Server, type Socket } from 'node:net';
import { joinHostPort, parseHostPort } from '../core/config.ts';
import type { Logger } from '../core/log.ts';
import type { LeaseEvent } from '../postgres/open.ts';

/**
 * A standby core's door for tills (issue 23, point 3): while another core holds the merchant's
 * lease, the standby listens on its own browser-shell address and pipes each connection, byte
 * for byte, to the active core's address as the lease row publishes it. TLS is never opened
 * here: the till's handshake, its certificate check and the bridge all run end to end with the
 * active core, so a relay learns nothing a till says and needs no certificate of its own.
 *
 * So a till keeps its one configured address whichever core is active. A connection the relay
 * cannot send anywhere (no active core publishes an address, or it names this very core) is
 * closed at once, and the log says why; one whose active core does not answer yet (it is still
 * starting, or just died and a standby has not taken over) waits a little for it, then is
 * closed the same way. Connections relayed to a core that stops being active (it died, or the
 * lease row names another) are closed: the till reconnects by itself (src/lib/bridge.ts) and
 * its next connection goes to the new one. When this core takes over, it stops relaying and
 * closes every relayed connection before opening its own shell on the same address.
 */
export interface RelayOptions {
  host: string;
  port: number;
  /** This core's own published address (POS_ADVERTISE_ADDRESS): never relayed to, as that would loop. */
  self: string | null;
  log: Logger;
  /** How long a new connection waits for the active core to answer before it is closed. */
  patienceMs?: number;
}

/** Long enough for a standby to take over from a core that just died (a lease, 6 s) and open its shell. */
export const RELAY_PATIENCE_MS = 10_000;
const RETRY_MS = 250;
/** A peer that never acknowledges a close (its machine is gone) is let go after this. */
const LINGER_MS = 5_000;

interface Relayed {
  client: Socket;
  /** The till's end of its connection (address:port). */
  from: string;
  upstream: Socket | null;
  /** The address it was sent to (or is being sent to). */
  to: string | null;
  /** Connected to the active core, its bytes flowing. */
  piping: boolean;
}

type Target = { kind: 'none' } | { kind: 'self'; address: string } | { kind: 'invalid'; address: string } | { kind: 'core'; address: string; host: string; port: number; holder: string };

export class StandbyRelay {
  readonly #opts: RelayOptions;
  readonly #patienceMs: number;
  #server: Server | null = null;
  #listening: Promise<void> | null = null;
  #closed: Promise<void> | null = null;
  #target: Target = { kind: 'none' };
  readonly #open = new Set<Relayed>();
  /** What the log last said about refused connections, so a burst of them is said once. */
  #said: string | null = null;
  /** This relay's own ends of its connections to the active core: one arriving here again is a loop. */
  readonly #ownEnds = new Set<string>();

  constructor(options: RelayOptions) {
    this.#opts = options;
    this.#patienceMs = options.patienceMs ?? RELAY_PATIENCE_MS;
  }

  /**
   * Follows this core's lease (postgres/open.ts): relays while it stands by, stops for good when
   * it takes the lease. Resolves once that is done: for a standby, once the relay listens (null)
   * or cannot (the error), so "standing by" is said only when a till can connect. Never rejects.
   */
  lease(event: LeaseEvent): Promise<Error | null> {
    if (event.kind === 'standby') {
      this.follow(event.holder, event.address ?? null);
      return this.listen().then(
        () => null,
        (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
      );
    }
    if (event.kind === 'taken') return this.close().then(() => null);
    return Promise.resolve(null);
  }

  /** The active core as the lease row names it now: new connections go there, and relayed ones to another address are closed. */
  follow(holder: string, address: string | null): void {
    const before = this.#target;
    this.#target = this.#targetOf(holder, address);
    const now = this.#target;
    const same = before.kind === now.kind && ('address' in before ? before.address : null) === ('address' in now ? now.address : null);
    if (same) return;
    this.#said = null;
    if (now.kind === 'core') this.#opts.log.info('standing by: tills that connect to this core are relayed to the active core', { active_core: holder, address: now.address });
    for (const relayed of this.#open) {
      if (relayed.upstream === null || (now.kind === 'core' && relayed.to === now.address)) continue;
      if (relayed.piping) {
        // It talks to a core that is no longer the active one: the till reconnects, and its next connection goes to the new one.
        relayed.client.destroy();
        relayed.upstream.destroy();
      } else {
        // Still reaching for the old address: it asks the new one instead.
        relayed.upstream.destroy(new Error('another core is active now'));
      }
    }
  }

  /** Starts listening on the browser shell's address; a port another program holds is logged, and the standby goes on waiting. */
  listen(): Promise<void> {
    if (this.#closed !== null) return Promise.resolve();
    this.#listening ??= new Promise<void>((resolve, reject) => {
      const server = createServer({ pauseOnConnect: true }, (socket) => this.#relay(socket));
      this.#server = server;
      server.once('error', (err: NodeJS.ErrnoException) => {
        this.#server = null;
        this.#opts.log.error(
          err.code === 'EADDRINUSE'
            ? `this standby cannot relay tills: port ${this.#opts.port} is already in use (it needs it too when it takes over; set POS_WEB_PORT to a free one)`
            : 'this standby cannot relay tills: its browser shell address cannot be listened on',
          { error: err.message },
        );
        reject(err);
      });
      server.listen(this.#opts.port, this.#opts.host, () => resolve());
    });
    return this.#listening;
  }

  /** Where it listens (host:port), once it does. */
  get address(): string | null {
    const at = this.#server?.address();
    return at && typeof at === 'object' ? joinHostPort(at.address, at.port) : null;
  }

  /** Stops relaying: no new connection, and every relayed or waiting one closed. Resolves once the port is free. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      const count = this.#open.size;
      for (const relayed of this.#open) {
        relayed.client.destroy();
        relayed.upstream?.destroy();
      }
      this.#open.clear();
      await this.#listening?.catch(() => undefined);
      const server = this.#server;
      this.#server = null;
      if (server !== null) {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        this.#opts.log.info('stopped relaying tills to the active core', { closed_connections: count });
      }
    })();
    return this.#closed;
  }

  #targetOf(holder: string, address: string | null): Target {
    if (address === null) return { kind: 'none' };
    const at = parseHostPort(address);
    if (at === null || at.port === null) return { kind: 'invalid', address };
    const canonical = joinHostPort(at.host, at.port);
    if (this.#opts.self !== null && canonical === this.#opts.self) return { kind: 'self', address: canonical };
    return { kind: 'core', address: canonical, host: at.host, port: at.port, holder };
  }

  /** Closes a connection it cannot send anywhere, and says why once for a run of them. */
  #refuse(relayed: Relayed, why: string, fields: Record<string, unknown> = {}): void {
    relayed.client.destroy();
    this.#open.delete(relayed);
    if (this.#said === why) return;
    this.#said = why;
    this.#opts.log.warn(why, { from: relayed.client.remoteAddress ?? 'unknown', ...fields });
  }

  #relay(client: Socket): void {
    if (this.#closed !== null) {
      client.destroy();
      return;
    }
    const relayed: Relayed = { client, from: endOf(client.remoteAddress, client.remotePort), upstream: null, to: null, piping: false };
    this.#open.add(relayed);
    if (this.#ownEnds.has(relayed.from)) return this.#refuse(relayed, LOOP);
    client.setNoDelay(true);
    client.setKeepAlive(true, 10_000);
    client.on('error', () => client.destroy());
    client.once('close', () => {
      this.#open.delete(relayed);
      if (relayed.upstream !== null) linger(relayed.upstream);
    });
    const deadline = Date.now() + this.#patienceMs;
    const attempt = () => {
      if (client.destroyed || this.#closed !== null) return;
      const target = this.#target;
      if (target.kind === 'none') {
        return this.#refuse(
          relayed,
          'closed a till’s connection: no active core publishes an address to relay it to (the active core stopped, or it runs with no POS_ADVERTISE_ADDRESS: give it one the other cores can reach)',
        );
      }
      if (target.kind === 'self') return this.#refuse(relayed, LOOP, { address: target.address });
      if (target.kind === 'invalid') {
        return this.#refuse(relayed, 'closed a till’s connection: the active core publishes an address that is not a host and port', { address: target.address });
      }
      const upstream = connect({ host: target.host, port: target.port });
      relayed.upstream = upstream;
      relayed.to = target.address;
      let connected = false;
      const giveUp = setTimeout(() => upstream.destroy(new Error('no answer')), Math.max(1, Math.min(3_000, deadline - Date.now())));
      upstream.once('connect', () => {
        connected = true;
        clearTimeout(giveUp);
        // The published address leads back here (another name of this very core): relaying it would never end.
        const end = endOf(upstream.localAddress, upstream.localPort);
        if ([...this.#open].some((other) => other.from === end)) {
          upstream.destroy();
          return this.#refuse(relayed, LOOP, { address: target.address });
        }
        this.#ownEnds.add(end);
        upstream.once('close', () => this.#ownEnds.delete(end));
        relayed.piping = true;
        this.#said = null;
        upstream.setNoDelay(true);
        upstream.setKeepAlive(true, 10_000);
        upstream.once('close', () => linger(client));
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', (err) => {
        clearTimeout(giveUp);
        upstream.destroy();
        if (connected) {
          client.destroy();
          return;
        }
        relayed.upstream = null;
        if (client.destroyed) return;
        // The active core is still starting, or died and a standby is taking over: ask again.
        if (Date.now() + RETRY_MS < deadline) {
          setTimeout(attempt, RETRY_MS).unref();
          return;
        }
        this.#refuse(relayed, 'closed a till’s connection: the active core does not answer at its address (the till reconnects by itself)', { address: target.address, error: err.message });
      });
    };
    attempt();
  }
}

const LOOP = 'closed a till’s connection: the active core publishes an address that leads back to this core, which would relay it in a loop; give each core its own POS_ADVERTISE_ADDRESS';

/** address:port of one end of a connection, an IPv4-mapped IPv6 address as plain IPv4. */
function endOf(address: string | undefined, port: number | undefined): string {
  return `${(address ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '')}:${port ?? 0}`;
}

/** Ends a socket whose other side closed, and lets it go for good if its peer never answers. */
function linger(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.connecting) {
    socket.destroy();
    return;
  }
  socket.end();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
