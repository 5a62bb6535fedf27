/**
 * Test harness for the conformance suites: a sandbox on a free loopback port, a fetch-based
 * client that talks to it exactly as the app does, and a tiny webhook receiver. Every
 * assertion goes through HTTP; nothing here reaches into the sandbox's internals.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FIXTURE_TOKENS, FIXTURE_WEBHOOK_SECRET } from '../fixture.ts';
import { startSandbox } from '../server.ts';
import type { Sandbox, SandboxOptions } from '../server.ts';

export { FIXTURE_TOKENS as TOKENS, FIXTURE_WEBHOOK_SECRET };

/** Response bodies are whatever JSON the sandbox sent; tests assert on their shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON under test
export type Json = any;

export interface Res {
  status: number;
  body: Json;
  text: string;
  headers: Headers;
}

export interface CallOptions {
  token?: string | null;
  /** JSON-encoded unless `raw` is given. */
  body?: unknown;
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
}

export class Client {
  /** Set once the sandbox is up when a fixture made the client first (fixtures/sandbox.ts). */
  baseUrl: string;
  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  async call(method: string, path: string, options: CallOptions = {}): Promise<Res> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? FIXTURE_TOKENS.manager : options.token;
    if (token !== null) headers.authorization ??= `Bearer ${token}`;
    let body: string | Uint8Array | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body: body as BodyInit | undefined });
    const text = await res.text();
    let json: Json = undefined;
    if ((res.headers.get('content-type') ?? '').includes('application/json')) json = JSON.parse(text);
    return { status: res.status, body: json, text, headers: res.headers };
  }

  get(path: string, options?: CallOptions): Promise<Res> {
    return this.call('GET', path, options);
  }
  post(path: string, body?: unknown, options: CallOptions = {}): Promise<Res> {
    return this.call('POST', path, { ...options, body });
  }
  put(path: string, body?: unknown, options: CallOptions = {}): Promise<Res> {
    return this.call('PUT', path, { ...options, body });
  }
  patch(path: string, body?: unknown, options: CallOptions = {}): Promise<Res> {
    return this.call('PATCH', path, { ...options, body });
  }

  /** Control API (no token). */
  control(method: string, path: string, body?: unknown): Promise<Res> {
    return this.call(method, `/_sandbox${path}`, { token: null, body });
  }

  reset(): Promise<Res> {
    return this.control('POST', '/reset');
  }

  advance(seconds: number): Promise<Res> {
    return this.control('POST', '/clock/advance', { seconds });
  }

  /** create_dynamic_pix with the manager token unless told otherwise. */
  sale(body: Record<string, unknown>, options: CallOptions = {}): Promise<Res> {
    return this.post('/v2/create_dynamic_pix', body, options);
  }

  /** Puts checkout (store 1 by default) in printed mode with a printed QR; returns the QR. */
  async printedCheckout(checkoutId = 1, storeId = 1): Promise<Json> {
    const res = await this.post('/v2/printed_dynamic_qrs', { checkout_id: checkoutId, store_id: storeId, auto_create_checkout: true });
    if (res.status !== 201 && res.status !== 200) throw new Error(`printed QR creation failed: ${res.status} ${res.text}`);
    return res.body;
  }
}

export interface TestSandbox {
  sandbox: Sandbox;
  api: Client;
  close(): Promise<void>;
}

export async function startTestSandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
  const sandbox = await startSandbox({ port: 0, ...options });
  return { sandbox, api: new Client(sandbox.url), close: () => sandbox.close() };
}

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  json: Json;
  /** The status this receiver answered. */
  answered: number;
}

/** A webhook receiver on 127.0.0.1:0 that records every request it gets. */
export class Receiver {
  readonly deliveries: Delivery[] = [];
  /** Decides the status of each request (default 200); 'hang' never answers. */
  respond: (delivery: Omit<Delivery, 'answered'>, index: number) => number | 'hang' = () => 200;
  #server: Server | null = null;
  url = '';

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: Json;
        try {
          json = JSON.parse(body);
        } catch {
          json = null;
        }
        const partial = { headers: req.headers, body, json };
        const status = this.respond(partial, this.deliveries.length);
        if (status === 'hang') {
          this.deliveries.push({ ...partial, answered: 0 });
          return;
        }
        this.deliveries.push({ ...partial, answered: status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (server === null) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Polls until `probe` returns a value that is not undefined (real time; never asserted on). */
export async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until the sandbox logged `n` delivery attempts (GET /_sandbox/webhooks) that are answered or failed. */
export async function waitForAttempts(api: Client, n: number, what = `${n} webhook attempts`): Promise<Json[]> {
  return waitFor(async () => {
    const res = await api.control('GET', '/webhooks');
    const done = (res.body as Json[]).filter((a) => a.status !== null || a.error !== null);
    return done.length >= n ? (res.body as Json[]) : undefined;
  }, what);
}
