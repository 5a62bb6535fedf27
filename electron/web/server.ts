import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { PUSH_EVENTS } from '../core/contract.ts';
import type { Core } from '../core/core.ts';
import { createCoreDispatcher } from '../core/handlers.ts';
import { STEP, steps } from '../core/terminal/steps.ts';
import type { Connection } from '../core/devices/connection.ts';
import { newSession, type Session } from '../core/operators/operators.ts';
import { routedPush } from '../core/routing.ts';
import { CONTENT_SECURITY_POLICY } from '../shared/csp.ts';
import { jsonText } from '../shared/json-text.ts';
import {
  BRIDGE_PATH,
  BRIDGE_PROTOCOL,
  DEVICE_PROTOCOL_PREFIX,
  LAUNCH_PROTOCOL_PREFIX,
  REVOKED_CLOSE_CODE,
  RESUME_PROTOCOL_PREFIX,
  TOKEN_PROTOCOL_PREFIX,
  parseClientMessage,
  type ServerMessage,
} from '../shared/ws-protocol.ts';
import { isLoopbackHost, shellAddresses } from './addresses.ts';
import { certificateFingerprint, STORE_CA_PATH } from './tls.ts';

/**
 * The browser shell: serves the built renderer and the core's bridge over a WebSocket,
 * for kiosk/tablet mode, for the store's other tills and displays, and for every browser
 * test. Static files are public (they hold no data). A bridge connection is the store
 * computer's own window (the per-run token), a paired device (its credential), or an
 * unpaired device, which may only pair; each is offered as a WebSocket subprotocol so it
 * never appears in a URL the server or a proxy would log.
 */
export interface WebShellOptions {
  core: Core;
  rendererDir: string;
  host: string;
  port: number;
  /** Fixed token (POS_WEB_TOKEN) or null for a random one per run. */
  token: string | null;
  /** PEM certificate and key (see tls.ts): HTTPS/WSS only. Required off loopback. `ca`: the store CA that issued it, offered for download. */
  tls?: { cert: string; key: string; ca?: string | null };
  /**
   * Names it also answers to besides those it is bound to (addresses.ts shellAddresses), each
   * `name` or `name:port`: its advertised address, the other cores' and a balancer's.
   */
  names?: readonly string[];
}

export interface WebShell {
  /** The full address to open, token included (in the fragment, never sent to the server). */
  url: string;
  origin: string;
  token: string;
  /** SHA-256 of the served certificate ("AB:CD:…"), null over plain HTTP. */
  fingerprint: string | null;
  /** A one-time address for a window the app opens itself (no token on a command line). */
  launchUrl(): string;
  close(): Promise<void>;
}

const LAUNCH_CODE_TTL_MS = 60_000;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wav': 'audio/wav',
  '.json': 'application/json',
};

const PAGES = new Set(['/', '/index.html', '/display', '/display.html']);
const MAX_MESSAGE_BYTES = 256 * 1024;

/** What a browser-shell connection can be: the store's own display window is the Electron shell's only. */
type ShellConnection = Exclude<Connection, { kind: 'store-display' }>;

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function securityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', `${CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), usb=(), serial=()');
}

export async function startWebShell(opts: WebShellOptions): Promise<WebShell> {
  const { core } = opts;
  // Issue 9 (transport): another computer reaches the bridge only over TLS, so its token,
  // credentials and PINs never cross the network in clear text.
  if (opts.tls === undefined && !isLoopbackHost(opts.host)) {
    throw new Error(`The browser shell serves ${opts.host} over HTTPS only: give it a certificate (POS_TLS_CERT and POS_TLS_KEY) or let it generate one (loadTlsIdentity).`);
  }
  const fingerprint = opts.tls === undefined ? null : certificateFingerprint(opts.tls.cert);
  const token = opts.token ?? randomBytes(24).toString('base64url');
  const dispatch = createCoreDispatcher(core);
  let origin = '';
  let allowedHosts = new Set<string>();
  let allowedOrigins = new Set<string>();
  const launchCodes = new Map<string, number>();
  // Each paired device's open sockets: a revocation closes them at once.
  const deviceSockets = new Map<string, Set<WebSocket>>();
  const offRevoked = core.devices.onRevoked((deviceId) => {
    for (const ws of deviceSockets.get(deviceId) ?? []) {
      ws.send(JSON.stringify({ type: 'device', connection: 'unpaired', device: null, reason: 'revoked' } satisfies ServerMessage));
      ws.close(REVOKED_CLOSE_CODE, 'revoked');
    }
  });

  // DNS-rebinding guard: a page on another name that resolves to loopback must not reach us.
  const hostAllowed = (req: IncomingMessage) => allowedHosts.has(String(req.headers.host ?? '').toLowerCase());

  async function serveStatic(req: IncomingMessage, res: ServerResponse): Promise<void> {
    securityHeaders(res);
    if (!hostAllowed(req)) {
      res.writeHead(421, { 'content-type': 'text/plain; charset=utf-8' }).end('Misdirected request: open the address the cashier app printed.');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method not allowed.');
      return;
    }
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('Bad address.');
      return;
    }
    if (pathname === STORE_CA_PATH) {
      // Issue 25, point 5: the store CA's certificate (public; its key never leaves the data dir)
      // for a tablet to install. Served on this HTTPS listener like everything else, not on a
      // plain-HTTP one: a tablet passes the warning once to fetch it, and the person compares its
      // fingerprint with the Devices screen's while installing, which a substituted file fails.
      const ca = opts.tls?.ca ?? null;
      if (ca === null) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('This store has no certificate authority: it serves its own certificate (POS_TLS_CERT) or one made before the store CA.');
        return;
      }
      res.writeHead(200, {
        'content-type': 'application/x-x509-ca-cert',
        'content-disposition': 'attachment; filename="pix-cashier-store-ca.crt"',
        'content-length': Buffer.byteLength(ca),
        'cache-control': 'no-cache',
      });
      res.end(req.method === 'HEAD' ? undefined : ca);
      return;
    }
    if (pathname === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify({ state: core.state }));
      return;
    }
    const page = PAGES.has(pathname) ? (pathname.startsWith('/display') ? '/display.html' : '/index.html') : pathname;
    const file = normalize(join(opts.rendererDir, page));
    if (!file.startsWith(opts.rendererDir + sep) || pathname.includes('\0')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found.');
      return;
    }
    try {
      const info = await stat(file);
      if (!info.isFile()) throw new Error('not a file');
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'content-length': info.size,
        // Hashed assets never change; pages always revalidate so a rebuilt renderer is picked up.
        'cache-control': page.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      });
      if (req.method === 'HEAD') res.end();
      else createReadStream(file).pipe(res);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found.');
    }
  }

  const serve = (req: IncomingMessage, res: ServerResponse) => {
    serveStatic(req, res).catch((err: unknown) => {
      core.log.error('web shell failed to serve a file', { error: err });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Internal error.');
    });
  };
  // With TLS there is no plain listener at all: a plain request fails its handshake, never falls back.
  const server: Server = opts.tls ? createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key, minVersion: 'TLSv1.2' }, serve) : createServer(serve);

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    handleProtocols: (protocols) => (protocols.has(BRIDGE_PROTOCOL) ? BRIDGE_PROTOCOL : false),
  });

  server.on('upgrade', (req, socket, head) => {
    const refuse = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    const path = (req.url ?? '').split('?')[0];
    if (path !== BRIDGE_PATH) return refuse(404, 'Not Found');
    if (!hostAllowed(req) || !allowedOrigins.has(String(req.headers.origin ?? '').toLowerCase())) return refuse(403, 'Forbidden');
    const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    const presented = offered.find((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX))?.slice(TOKEN_PROTOCOL_PREFIX.length) ?? '';
    const launch = offered.find((p) => p.startsWith(LAUNCH_PROTOCOL_PREFIX))?.slice(LAUNCH_PROTOCOL_PREFIX.length) ?? '';
    const resume = offered.find((p) => p.startsWith(RESUME_PROTOCOL_PREFIX))?.slice(RESUME_PROTOCOL_PREFIX.length) ?? '';
    const credential = offered.find((p) => p.startsWith(DEVICE_PROTOCOL_PREFIX))?.slice(DEVICE_PROTOCOL_PREFIX.length);
    const launchExpires = launch === '' ? undefined : launchCodes.get(launch);
    const launched = launchExpires !== undefined && launchExpires > Date.now();
    if (launched) launchCodes.delete(launch); // once only
    const from = req.socket.remoteAddress ?? 'unknown';
    let connection: ShellConnection;
    let unknownCredential = false;
    const storeWindow = offered.some((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX) || p.startsWith(LAUNCH_PROTOCOL_PREFIX));
    if (launched || (storeWindow && sameToken(presented, token))) {
      connection = { kind: 'store' };
    } else if (storeWindow) {
      // A stale token or launch code is the store's own window after a restart: it must say so, not offer pairing.
      core.log.warn('web shell refused a bridge connection without a valid token', { remote: from });
      return refuse(401, 'Unauthorized');
    } else {
      const device = credential === undefined ? null : core.devices.authenticate(credential);
      unknownCredential = credential !== undefined && device === null;
      connection = device ? { kind: 'device', device } : { kind: 'unpaired', from };
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      // A window opened by launch code learns the session token for its reloads.
      if (launched) ws.send(JSON.stringify({ type: 'session', token } satisfies ServerMessage));
      wss.emit('connection', ws, req, { resume, connection, unknownCredential, from });
    });
  });

  wss.on('connection', (ws: WebSocket, _req: IncomingMessage, opened: { resume: string; connection: ShellConnection; unknownCredential: boolean; from: string }) => {
    const { connection } = opened;
    const send = (msg: ServerMessage) => {
      // A checkout view's unchanged sales are texts written before (shared/json-text.ts).
      if (ws.readyState === ws.OPEN) ws.send(jsonText(msg));
    };
    // Each page (a tab, the customer display) signs in on its own: its operator is who every
    // call on it acts as. A page reconnecting after a drop, to this core or to the one that
    // took over, offers its sign-in's resume secret and goes on as it was if the journal says
    // that sign-in has not ended (operators.resume); a reload, or a wrong or ended secret,
    // starts signed out. The secret is given at sign-in (handOver, below).
    const operators = core.operators;
    const resumed = opened.resume === '' ? null : operators.resume(connection, opened.resume, opened.from);
    const session: Session = resumed ?? newSession(connection);
    operators.connected(session);
    send({ type: 'resume', key: resumed === null ? '' : opened.resume });
    send({
      type: 'device',
      connection: connection.kind,
      device: connection.kind === 'device' ? connection.device : null,
      ...(opened.unknownCredential ? { reason: 'unknown' as const } : {}),
    });
    let released: (() => void) | null = null;
    if (connection.kind === 'device') {
      const id = connection.device.id;
      let set = deviceSockets.get(id);
      if (!set) deviceSockets.set(id, (set = new Set()));
      set.add(ws);
      const offline = core.devices.connected(id);
      released = () => {
        offline();
        set.delete(ws);
        if (set.size === 0) deviceSockets.delete(id);
      };
    }
    // Each connection hears only what is its (core/routing.ts): its checkout, its role's
    // lists; and of that only what its page listens to, once the page has said (ListenMessage).
    let listening: ReadonlySet<string> | null = null;
    const unsubscribe = PUSH_EVENTS.map((event) =>
      core.events.on(event, (payload) => {
        if (listening !== null && !listening.has(event)) return;
        const t0 = steps.now();
        const routed = routedPush(core, session, event, payload as never);
        if (routed !== undefined) send({ type: 'event', event, payload: routed });
        if (event === 'checkout.changed' && routed !== undefined) {
          steps.add(STEP.push, t0);
          // The charge's first push shows its intent; the one after its outcome shows the QR.
          if (steps.since('charge.outcome', STEP.outcomeToPush)) steps.since('charge.in', STEP.chargeTotal);
          steps.since('payment.journaled', STEP.paymentToPush);
        }
      }),
    );
    ws.on('message', (data, isBinary) => {
      const t0 = steps.now();
      const msg = isBinary ? null : parseClientMessage(data.toString());
      if (msg === null) {
        ws.close(1003, 'bad message');
        return;
      }
      if ('listen' in msg) {
        listening = new Set(msg.listen);
        return;
      }
      // A charge's steps, for the bench (core/terminal/steps.ts): off, these only check a boolean.
      const charge = msg.method === 'sale.charge';
      if (charge) {
        steps.add(STEP.bridgeIn, t0);
        steps.mark('bridge.in');
        steps.mark('charge.in');
      }
      void dispatch(msg.method, msg.args, session).then((envelope) => {
        // A sign-in's resume secret reaches its page before the answer that it is signed in.
        const key = operators.handOver(session);
        if (key !== null) send({ type: 'resume', key });
        send({ type: 'reply', id: msg.id, envelope });
        if (charge) steps.since('charge.done', STEP.reply);
      });
    });
    ws.on('close', () => {
      unsubscribe.forEach((off) => off());
      released?.();
      // Its sign-in waits for the page RESUME_GRACE_MS on the session clock (the core's sweep ends it after).
      operators.disconnected(session);
    });
    ws.on('error', (err) => core.log.warn('bridge socket error', { error: err }));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const addresses = shellAddresses(opts.host, port, opts.tls !== undefined, undefined, opts.names ?? []);
  origin = addresses.origin;
  allowedHosts = new Set(addresses.hosts);
  // The page may be opened under any of the names the Host check accepts.
  allowedOrigins = new Set(addresses.origins);
  const url = `${origin}/#token=${token}`;
  // Where another till opens the store to pair: the address without the store's token.
  const ca = opts.tls?.ca ?? null;
  core.devices.setEntrance({
    urls: addresses.entrances.map((o) => `${o}/`),
    fingerprint,
    storeCa: ca === null ? null : { url: `${addresses.entrances[0]}${STORE_CA_PATH}`, fingerprint: certificateFingerprint(ca) },
  });

  return {
    url,
    origin,
    token,
    fingerprint,
    launchUrl() {
      const now = Date.now();
      for (const [code, expires] of launchCodes) if (expires <= now) launchCodes.delete(code);
      const code = randomBytes(24).toString('base64url');
      launchCodes.set(code, now + LAUNCH_CODE_TTL_MS);
      return `${origin}/#launch=${code}`;
    },
    async close() {
      offRevoked();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
