// Bad input of every kind gets a clear 4xx, changes nothing, and never brings the process
// down: malformed JSON, wrong types, huge bodies, wrong content types, unknown routes and
// wrong methods, broken HTTP. Raw sockets and node:http where fetch would tidy the request.
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from './harness.ts';
import { useSandbox } from './fixtures/sandbox.ts';

// No reset between tests: every test checks that bad input changed nothing, so they share one state.
const t = useSandbox({ resetEachTest: false });
const { api } = t;
let port: number;
let baseline: string;

async function snapshot(): Promise<string> {
  const parts = await Promise.all([api.get('/v2/stores'), api.get('/v2/stores/1/checkouts'), api.get('/v2/stores/1/checkouts/1/configs'), api.get('/v2/printed_dynamic_qrs'), api.control('GET', '/sales'), api.control('GET', '/gateway')]);
  return parts.map((p) => p.text).join('\n');
}

beforeAll(async () => {
  port = t.sandbox.port;
  baseline = await snapshot();
});
afterAll(async () => {
  // Whatever came before: the sandbox is up, and nothing changed (before the fixture closes it).
  expect((await api.get('/v2/stores')).status).toBe(200);
  expect(await snapshot()).toBe(baseline);
});

const auth = { authorization: `Bearer ${TOKENS.manager}` };

/** A request through node:http, with exactly the headers and body given. */
function raw(method: string, path: string, headers: Record<string, string>, body?: Buffer | string, chunks?: Buffer[]): Promise<{ status: number; text: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8'), headers: res.headers }));
    });
    req.on('error', reject);
    if (chunks !== undefined) {
      for (const c of chunks) req.write(c);
      req.end();
    } else req.end(body);
  });
}

/** Bytes straight onto a socket; resolves with whatever comes back before it closes. */
function socketSend(bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('close', () => resolve(answer));
    socket.on('error', () => resolve(answer));
    socket.write(bytes);
    setTimeout(() => socket.end(), 500).unref();
  });
}

describe('bodies', () => {
  it.each([['{"amount": '], ['{amount: "1.00"}'], ["{'amount': '1.00'}"], ['{"amount":"1.00"}}'], ['undefined'], ['']])('malformed JSON %j is a 422 json_invalid (or missing body)', async (body) => {
    const res = await raw('POST', '/v2/create_dynamic_pix', { ...auth, 'content-type': 'application/json' }, body);
    expect(res.status).toBe(422);
    const item = JSON.parse(res.text).detail[0];
    expect(['json_invalid', 'missing']).toContain(item.type);
    expect(item.loc[0]).toBe('body');
  });

  it('invalid UTF-8 is a 422 json_invalid', async () => {
    const res = await raw('POST', '/v2/stores', { ...auth, 'content-type': 'application/json' }, Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
    expect(res.status).toBe(422);
    expect(JSON.parse(res.text).detail[0].type).toBe('json_invalid');
  });

  it.each([['[]'], ['"text"'], ['42'], ['null'], ['true']])('the JSON value %s where an object is needed is a 422', async (body) => {
    const res = await raw('POST', '/v2/stores', { ...auth, 'content-type': 'application/json' }, body);
    expect(res.status).toBe(422);
    expect(JSON.parse(res.text).detail[0]).toMatchObject({ type: 'model_attributes_type', loc: ['body'] });
  });

  it('no body at all where one is needed is a 422 missing body', async () => {
    const res = await raw('POST', '/v2/stores', { ...auth });
    expect(res.status).toBe(422);
    expect(JSON.parse(res.text).detail).toEqual([{ type: 'missing', loc: ['body'], msg: 'Field required', input: null, ctx: {} }]);
  });

  it('a declared body over 1 MiB is refused with 413 before it is read', async () => {
    const res = await raw('POST', '/v2/stores', { ...auth, 'content-type': 'application/json', 'content-length': String(2 * 1024 * 1024) }, Buffer.alloc(0)).catch(() => null);
    if (res !== null) {
      expect(res.status).toBe(413);
      expect(JSON.parse(res.text).detail).toMatch(/too large/);
    }
  });

  it('a streamed (chunked) body over 1 MiB is refused with 413', async () => {
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const res = await raw('POST', '/v2/stores', { ...auth, 'content-type': 'application/json' }, undefined, [Buffer.from('{"store_name":"'), chunk, chunk, chunk, chunk, chunk]).catch(() => null);
    if (res !== null) expect(res.status).toBe(413);
    expect((await api.get('/v2/stores')).body).toHaveLength(1);
  });

  it('a body of exactly 1 MiB is read (and judged on its content)', async () => {
    const name = 'n'.repeat(1024 * 1024 - '{"store_name":""}'.length);
    const body = `{"store_name":"${name}"}`;
    expect(Buffer.byteLength(body)).toBe(1024 * 1024);
    const res = await raw('PATCH', '/v2/stores/999', { ...auth, 'content-type': 'application/json' }, body);
    expect(res.status).toBe(404);
  });

  it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['multipart/form-data; boundary=x'], ['application/xml']])('Content-Type %s is a 415', async (type) => {
    const res = await raw('POST', '/v2/stores', { ...auth, 'content-type': type }, '{"store_name":"x"}');
    expect(res.status).toBe(415);
    expect(JSON.parse(res.text).detail).toMatch(/application\/json/);
  });

  it('application/json with a charset, or a +json type, is fine', async () => {
    const a = await raw('PATCH', '/v2/stores/1', { ...auth, 'content-type': 'application/json; charset=utf-8' }, '{}');
    const b = await raw('PATCH', '/v2/stores/1', { ...auth, 'content-type': 'application/merge-patch+json' }, '{}');
    expect([a.status, b.status]).toEqual([200, 200]);
  });

  it('deeply nested JSON is answered, not a crash', async () => {
    const depth = 100_000;
    const body = '{"x":' + '['.repeat(depth) + ']'.repeat(depth) + ',"store_name":5}';
    const res = await raw('POST', '/v2/stores', { ...auth, 'content-type': 'application/json' }, body);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const arr = '['.repeat(depth) + ']'.repeat(depth);
    const res2 = await raw('POST', '/v2/stores', { ...auth, 'content-type': 'application/json' }, arr);
    expect(res2.status).toBe(422);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a huge integer', { amount: '1.00', store_id: 1e300 }, 'int_parsing_size'],
    ['an integer beyond 2^53', { amount: '1.00', checkout_id: 2 ** 53 + 2 }, 'int_parsing_size'],
    ['an amount of 1e308', { amount: 1e308 }, 'less_than_equal'],
    ['an amount string with an exponent', { amount: '1e2' }, 'decimal_parsing'],
    ['an amount array', { amount: ['1.00'] }, 'decimal_type'],
    ['an amount object', { amount: { value: 1 } }, 'decimal_type'],
    ['a null amount', { amount: null }, 'decimal_type'],
  ])('%s is a 422 %s', async (_name, body, type) => {
    const res = await api.sale(body);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].type).toBe(type);
  });

  it('__proto__ and constructor keys are plain data', async () => {
    const res = await raw('POST', '/v2/create_dynamic_pix', { ...auth, 'content-type': 'application/json' }, '{"__proto__":{"amount":"5.00"},"constructor":{"prototype":{"x":1}}}');
    expect(res.status).toBe(422);
    expect(JSON.parse(res.text).detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'amount'] });
    expect(({} as Record<string, unknown>).amount).toBeUndefined();
  });
});

describe('routes and methods', () => {
  it.each([['/'], ['/v2'], ['/v2/stores/'], ['/v3/stores'], ['/V2/STORES'], ['/v2/stores/1/checkouts/1/configs/extra'], ['//v2/stores'], ['/v2/tx_status/'], ['/v2/tx_status/%E0%A4%A'], ['/_sandbox'], ['/_sandbox/nothing']])('GET %s is 404 {"detail":"Not Found"}', async (path) => {
    const res = await raw('GET', path, auth);
    expect(res.status).toBe(404);
    expect(res.text).toBe('{"detail":"Not Found"}');
  });

  it.each<[string, string, string]>([
    ['DELETE', '/v2/stores', 'GET, POST'],
    ['PUT', '/v2/stores/1', 'PATCH'],
    ['GET', '/v2/create_dynamic_pix', 'POST'],
    ['POST', '/v2/tx_status/pix_1', 'GET'],
    ['HEAD', '/v2/stores', 'GET, POST'],
    ['OPTIONS', '/v2/printed_dynamic_qrs', 'GET, POST'],
    ['DELETE', '/_sandbox/reset', 'POST'],
  ])('%s %s is 405 {"detail":"Method Not Allowed"} with Allow', async (method, path, allow) => {
    const res = await raw(method, path, auth);
    expect(res.status).toBe(405);
    if (method !== 'HEAD') expect(res.text).toBe('{"detail":"Method Not Allowed"}');
    expect(res.headers.allow).toBe(allow);
  });

  it('a wrong method is refused before the token is looked at', async () => {
    const res = await raw('DELETE', '/v2/stores', {});
    expect(res.status).toBe(405);
  });

  it('a non-integer path id is a 422 on its path loc', async () => {
    const res = await api.get('/v2/stores/1x/checkouts');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type: 'int_parsing', loc: ['path', 'store_id'], input: '1x' });
  });

  it('odd query strings are tolerated or refused clearly', async () => {
    expect((await api.get('/v2/printed_dynamic_qrs?page=2&page=1')).body.page).toBe(1);
    expect((await api.get('/v2/printed_dynamic_qrs?%zz=1&unknown=x')).status).toBe(200);
    expect((await api.get('/v2/printed_dynamic_qrs?page=%00')).status).toBe(422);
  });
});

describe('broken HTTP', () => {
  it('garbage on the socket gets a 400 and the server stays up', async () => {
    const answer = await socketSend('THIS IS NOT HTTP\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect((await api.get('/v2/stores')).status).toBe(200);
  });

  it('an oversized header gets a 431', async () => {
    const answer = await socketSend(`GET /v2/stores HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431/);
  });

  it('a client that disconnects mid-body leaves nothing behind', async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`POST /v2/stores HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKENS.manager}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"store_na`);
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    expect((await api.get('/v2/stores')).body).toHaveLength(1);
  });

  it('many concurrent bad requests do not disturb good ones', async () => {
    const bad = Array.from({ length: 50 }, (_, i) => raw('POST', '/v2/create_dynamic_pix', { ...auth, 'content-type': 'application/json' }, '{"amount":' + 'x'.repeat(i)));
    const good = Array.from({ length: 10 }, () => api.get('/v2/stores'));
    const results = await Promise.all([...bad, ...good]);
    expect(results.slice(0, 50).every((r) => r.status === 422)).toBe(true);
    expect(results.slice(50).every((r) => r.status === 200)).toBe(true);
  });
});
