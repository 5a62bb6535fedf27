/**
 * Transport-level conditions the sandbox cannot produce, made by tiny loopback servers that
 * stand where a proxy, a captive portal or a broken network would: they never imitate the
 * service's API (the one proxy here forwards to the real sandbox).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { startSandbox } from '../../sandbox/server.ts';
import type { Sandbox } from '../../sandbox/server.ts';
import { memoryLogger } from '../log.ts';
import { newIdempotencyKey } from './client.ts';
import type { ServiceClient, ServiceClientOptions } from './client.ts';
import { MAX_DETAIL_CHARS } from './errors.ts';
import { clientRecordingWaits, failure } from './fixtures/clients.ts';

const servers: Server[] = [];
const clients: ServiceClient[] = [];
let sb: Sandbox;

beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});

afterAll(async () => {
  await sb.close();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function makeClient(baseUrl: string, options: Partial<ServiceClientOptions> = {}) {
  const clock = options.clock ?? new ManualClock();
  const made = clientRecordingWaits({ baseUrl, token: 'sandbox-manager-token', clock, log: memoryLogger(clock), ...options });
  clients.push(made.client);
  return made;
}

const NGINX_502 = '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

describe('a proxy in front of the service', () => {
  it('an HTML 502 page: a read is retried, then reported without the HTML', async () => {
    let hits = 0;
    const url = await serve((req, res) => {
      hits++;
      req.resume();
      res.writeHead(502, { 'content-type': 'text/html' }).end(NGINX_502);
    });
    const { client, waits } = makeClient(url);
    const err = await failure(client.listStores());
    expect(err).toMatchObject({ httpStatus: 502, shape: 'html', code: 'service_failed', problem: 'bad_gateway', attempts: 4 });
    expect(hits).toBe(4);
    expect(waits).toHaveLength(3);
    expect(err.message).not.toMatch(/[<>]|nginx/);
    expect(err.message).toContain('list the stores');
  });

  it('an HTML 502 page on a keyed sale: every attempt carries the same key, and the outcome stays unknown', async () => {
    const keys: (string | undefined)[] = [];
    const url = await serve((req, res) => {
      keys.push(req.headers['idempotency-key'] as string | undefined);
      req.resume();
      res.writeHead(502, { 'content-type': 'text/html' }).end(NGINX_502);
    });
    const key = newIdempotencyKey();
    const { client } = makeClient(url);
    const err = await failure(client.createDynamicPix({ amount_cents: 100 }, { idempotencyKey: key }));
    expect(err).toMatchObject({ outcome: 'unknown', attempts: 4 });
    expect(keys).toEqual([key, key, key, key]);
    expect(err.message).toContain('may or may not have been created');
  });

  it('a captive portal answering 200 with a web page: an unreadable answer, not retried', async () => {
    const url = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Log in to the Wi-Fi</body></html>');
    });
    const { client, waits } = makeClient(url);
    const err = await failure(client.listWallets());
    expect(err).toMatchObject({ code: 'service_failed', problem: 'unreadable_answer', httpStatus: 200, attempts: 1 });
    expect(waits).toEqual([]);
  });

  it('a load balancer’s 503 with Retry-After as an HTTP date, then the real sandbox', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 21, 13, 45, 0));
    let refused = 0;
    const url = await serve((req, res) => {
      if (refused === 0) {
        refused++;
        req.resume();
        res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': new Date(clock.now() + 3_000).toUTCString() }).end('Service Unavailable');
        return;
      }
      // Forward to the sandbox, as a proxy does.
      request(sb.url + (req.url ?? '/'), { method: 'GET', headers: { authorization: req.headers.authorization ?? '' } })
        .then(async (up) => {
          res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type'] ?? 'application/json') }).end(await up.body.text());
        })
        .catch(() => res.destroy());
    });
    const waits: number[] = [];
    const { client } = makeClient(url, {
      clock,
      retry: {
        sleep: async (ms) => {
          waits.push(ms);
          clock.advance(ms);
        },
      },
    });
    const wallets = await client.listWallets();
    expect(wallets.map((w) => w.wallet_id)).toEqual([101, 102, 103]);
    expect(waits).toEqual([3_000]);
  });
});

describe('a broken connection', () => {
  it('a body that stops mid-way ends as a timeout; a sale without a key is left unknown', async () => {
    const url = await serve((req, res) => {
      req.resume();
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"pix_id": "pix_');
      // ...and nothing more: the socket stays open and silent.
    });
    const { client, waits } = makeClient(url, { timeouts: { bodyMs: 150 } });
    const err = await failure(client.createDynamicPix({ amount_cents: 100 }));
    expect(err).toMatchObject({ kind: 'timeout', code: 'service_timeout', problem: 'no_answer', outcome: 'unknown', attempts: 1 });
    expect(waits).toEqual([]);
    expect(err.message).toContain('stopped answering');
  });

  it('a huge error body is read only in part and cut in the error', async () => {
    const url = await serve((req, res) => {
      req.resume();
      res.writeHead(500, { 'content-type': 'text/plain' });
      const chunk = 'E'.repeat(64 * 1024);
      for (let i = 0; i < 48; i++) res.write(chunk);
      res.end();
    });
    const { client } = makeClient(url);
    const err = await failure(client.requestRefund({ service_id: 'svc_1' }));
    expect(err).toMatchObject({ httpStatus: 500, shape: 'text', outcome: 'unknown', attempts: 1 });
    expect((err.detail as string).length).toBeLessThanOrEqual(MAX_DETAIL_CHARS + 1);
    expect(err.message.length).toBeLessThan(300);
  });
});
