// The control API is not a web page's toy (control-guard.ts): hostile requests over real
// HTTP, each checked for both the refusal and the state it must not have changed.
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../server.ts';
import { useSandbox } from './fixtures/sandbox.ts';

const t = useSandbox();
let port: number;
beforeAll(() => {
  port = Number(new URL(t.sandbox.url).port);
});

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** node:http, because fetch will not let a test choose the Host header. */
function raw(method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const ADVANCE = JSON.stringify({ seconds: 3600 });
const json = { 'content-type': 'application/json' };
const host = () => ({ host: `127.0.0.1:${port}` });

async function clockOffset(): Promise<number> {
  return (await t.api.control('GET', '/clock')).body.offset_ms as number;
}

describe('a request that could come from a web page is refused and changes nothing', () => {
  const hostile: [string, number, () => Record<string, string>][] = [
    ['Host of a rebinding name that starts like loopback', 421, () => ({ ...json, host: `127.0.0.1.evil.example:${port}` })],
    ['Host localhost.evil.example', 421, () => ({ ...json, host: `localhost.evil.example:${port}` })],
    ['Host evil.example', 421, () => ({ ...json, host: `evil.example:${port}` })],
    ['Host with the wrong port', 421, () => ({ ...json, host: `127.0.0.1:${port === 1 ? 2 : port - 1}` })],
    ['Host without a port', 421, () => ({ ...json, host: 'localhost' })],
    ['Host with a port written with a leading zero', 421, () => ({ ...json, host: `127.0.0.1:0${port}` })],
    ['Host of a private LAN address', 421, () => ({ ...json, host: `192.168.1.10:${port}` })],
    ['Host 0.0.0.0', 421, () => ({ ...json, host: `0.0.0.0:${port}` })],
    ['Host 127.0.0.256', 421, () => ({ ...json, host: `127.0.0.256:${port}` })],
    ['Origin: null (a sandboxed frame, a file)', 403, () => ({ ...json, ...host(), origin: 'null' })],
    ['Origin of another site', 403, () => ({ ...json, ...host(), origin: 'https://evil.example' })],
    ['Origin of the sandbox itself', 403, () => ({ ...json, ...host(), origin: `http://127.0.0.1:${port}` })],
    ['text/plain (a simple cross-origin fetch)', 415, () => ({ ...host(), 'content-type': 'text/plain' })],
    ['text/plain;charset=UTF-8 (fetch with a string body)', 415, () => ({ ...host(), 'content-type': 'text/plain;charset=UTF-8' })],
    ['a form post', 415, () => ({ ...host(), 'content-type': 'application/x-www-form-urlencoded' })],
    ['multipart', 415, () => ({ ...host(), 'content-type': 'multipart/form-data; boundary=x' })],
    ['a JSON-looking type that is not JSON', 415, () => ({ ...host(), 'content-type': 'application/jsonp' })],
    ['a body with no Content-Type', 415, () => ({ ...host() })],
  ];
  it.each(hostile)('%s → %i', async (_name, status, headers) => {
    const before = await clockOffset();
    const res = await raw('POST', '/_sandbox/clock/advance', headers(), ADVANCE);
    expect(res.status).toBe(status);
    expect(JSON.parse(res.text)).toEqual({ detail: expect.any(String) });
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(await clockOffset()).toBe(before);
  });

  it('no Host at all: the HTTP server itself refuses it before any route', async () => {
    const before = await clockOffset();
    expect((await raw('POST', '/_sandbox/clock/advance', json, ADVANCE)).status).toBe(400);
    expect(await clockOffset()).toBe(before);
  });

  it('a webhook cannot be repointed by a page either', async () => {
    const body = JSON.stringify({ url: 'http://127.0.0.1:9/stolen' });
    expect((await raw('PUT', '/_sandbox/webhook', { ...host(), 'content-type': 'text/plain' }, body)).status).toBe(415);
    expect((await raw('PUT', '/_sandbox/webhook', { ...json, ...host(), origin: 'https://evil.example' }, body)).status).toBe(403);
    expect((await t.api.control('GET', '/webhook')).body['1'].url).toBe(null);
  });
});

describe('what tests, tools and curl send still works', () => {
  const friendly: [string, () => Record<string, string>][] = [
    ['application/json, Host 127.0.0.1:port', () => ({ ...json, ...host() })],
    ['application/json;charset=utf-8', () => ({ 'content-type': 'application/json;charset=utf-8', ...host() })],
    ['Application/JSON; charset=UTF-8', () => ({ 'content-type': 'Application/JSON; charset=UTF-8', ...host() })],
    ['Host localhost:port', () => ({ ...json, host: `localhost:${port}` })],
    ['Host LOCALHOST:port', () => ({ ...json, host: `LOCALHOST:${port}` })],
    ['Host 127.1.2.3:port (all of 127.0.0.0/8 is loopback)', () => ({ ...json, host: `127.1.2.3:${port}` })],
    ['Host [::1]:port', () => ({ ...json, host: `[::1]:${port}` })],
  ];
  it.each(friendly)('%s', async (_name, headers) => {
    const before = await clockOffset();
    const res = await raw('POST', '/_sandbox/clock/advance', headers(), ADVANCE);
    expect(res.status, res.text).toBe(200);
    expect(await clockOffset()).toBe(before + 3_600_000);
  });

  it('a bodyless POST needs no Content-Type (curl -X POST …/reset)', async () => {
    expect((await raw('POST', '/_sandbox/reset', host())).status).toBe(200);
  });

  it('GET needs no Content-Type', async () => {
    expect((await raw('GET', '/_sandbox/clock', host())).status).toBe(200);
  });
});

describe('no CORS', () => {
  it('a preflight is refused and carries no Access-Control-* header', async () => {
    const res = await raw('OPTIONS', '/_sandbox/pay', { ...host(), origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' });
    expect(res.status).toBe(403);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('OPTIONS without an Origin is not a route', async () => {
    const res = await raw('OPTIONS', '/_sandbox/pay', host());
    expect(res.status).toBe(405);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });
});

describe('the service routes are not the control API', () => {
  it('keep answering a client that sends an Origin (the reference does not forbid it)', async () => {
    const res = await raw('GET', '/v2/stores', { ...host(), origin: 'https://pos.example', authorization: `Bearer ${'sandbox-manager-token'}` });
    expect(res.status).toBe(200);
  });
});

describe('control stays on loopback', () => {
  it('a sandbox with control cannot bind another address', async () => {
    await expect(startSandbox({ host: '0.0.0.0', port: 0 })).rejects.toThrow(/loopback-only/);
  });
});
