/**
 * Webhooks at any core, work done once, and takeovers seen (issue 23 points 2, 4 and 6): two
 * whole cores in this process on one database, composed as `npm run server` composes them,
 * on one standalone sandbox that signs and delivers its webhooks. The second core stands by
 * (its start waits for the merchant's lease) while the first serves.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { composeCore } from '../compose.ts';
import { loadConfig } from '../core/config.ts';
import type { Core } from '../core/core.ts';
import { CORE_TOOK_OVER } from '../core/journal/port.ts';
import { memoryLogger } from '../core/log.ts';
import { serviceControl, waitFor } from '../core/terminal/fixtures/service.ts';
import { FIXTURE_TOKENS, FIXTURE_WEBHOOK_SECRET } from '../sandbox/fixture.ts';
import { startSandbox, type Sandbox } from '../sandbox/server.ts';
import { systemClock } from '../shared/clock.ts';
import { freeLoopbackPort, openTestDatabase, type TestDatabase } from './fixtures/test-database.ts';
import { openPool } from './connect.ts';
import { PostgresWebhookInbox } from './inbox.ts';
import { CoreLease } from './lease.ts';
import { migrate } from './migrate.ts';

let db: TestDatabase;
const cleanups: Array<() => Promise<unknown>> = [];
/** Stopped first, in the order they started: the active core lets its lease go, so a standby takes over and can stop. */
const cores: Array<() => Promise<void>> = [];

beforeAll(async () => {
  db = await openTestDatabase();
}, 120_000);
afterEach(async () => {
  for (const stop of cores.splice(0)) await stop();
  for (const clean of cleanups.splice(0).reverse()) await clean();
}, 90_000);
afterAll(async () => {
  await db?.drop();
});

const CHECKOUT = { storeId: 1, checkoutId: 1 };

/** One database of this file's server for the test, a pool on it to look from outside, and a sandbox. */
async function merchant(): Promise<{ url: string; sql: postgres.Sql; sandbox: Sandbox }> {
  const url = await db.another();
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  const sandbox = await startSandbox({ port: 0, webhook: { later: true } });
  cleanups.push(
    () => sandbox.close(),
    () => sql.end({ timeout: 1 }),
  );
  return { url, sql, sandbox };
}

interface Started {
  core: Core;
  /** Resolves once the core serves (a standby's, when it took over). */
  started: Promise<void>;
  webhookUrl: string;
  /** Its data dir: a core started again on it is the same core (the same lease holder). */
  dataDir: string;
}

/** A core as `npm run server` composes it, on its own data dir and webhook port; not awaited: a standby's start waits. */
async function startCore(options: { databaseUrl: string; serviceUrl: string; dataDir?: string }): Promise<Started> {
  let dataDir = options.dataDir;
  if (dataDir === undefined) {
    const made = await mkdtemp(join(tmpdir(), 'pos-inbox-'));
    cleanups.push(() => rm(made, { recursive: true, force: true }));
    dataDir = made;
  }
  const port = await freeLoopbackPort();
  const config = loadConfig(
    {
      POS_DATA_DIR: dataDir,
      POS_LANG: 'en',
      POS_DATABASE_URL: options.databaseUrl,
      POS_SERVICE_URL: options.serviceUrl,
      POS_SERVICE_TOKEN: FIXTURE_TOKENS.manager,
      POS_WEBHOOK_SECRET: FIXTURE_WEBHOOK_SECRET,
      POS_WEBHOOK_PORT: String(port),
    },
    [],
  );
  const core = await composeCore(config, { log: memoryLogger(systemClock) });
  const started = core.start();
  started.catch(() => undefined);
  cores.push(() => core.stop());
  return { core, started, webhookUrl: `http://127.0.0.1:${port}/webhooks`, dataDir };
}

/** Until the core stands by: its webhook address answers (the inbox's receiver) while its start still waits. */
async function standingBy(core: Started): Promise<void> {
  await waitFor(async () => ((await fetch(core.webhookUrl).catch(() => null)) === null ? undefined : true), 'the standby to listen for webhooks');
  expect(core.core.state).toBe('starting');
}

/** Core a started and serving, then core b standing by, on the same database and service. */
async function activeAndStandby(databaseUrl: string, serviceUrl: string): Promise<{ a: Started; b: Started }> {
  const a = await startCore({ databaseUrl, serviceUrl });
  await a.started;
  const b = await startCore({ databaseUrl, serviceUrl });
  await standingBy(b);
  return { a, b };
}

/** A sale rung up on the active core and pending at the service. */
async function pendingSale(core: Core): Promise<string> {
  const view = await core.charge({ ...CHECKOUT, by: 'Ana', amountCents: 1250 });
  const saleId = view.newest?.sale_id ?? '';
  expect(view.screen).toMatchObject({ kind: 'qr', sale_id: saleId });
  return saleId;
}

const paid = (core: Core, saleId: string) => waitFor(async () => ((await core.journal.sales.get(saleId))?.sale.status === 'paid' ? true : undefined), `sale ${saleId} to be paid`);

async function inboxRows(sql: postgres.Sql) {
  return sql<{ webhook_id: string; event: string; received_by: string; applied_by: string | null; outcome: string | null }[]>`select webhook_id, event, received_by, applied_by, outcome from webhook_inbox order by id`;
}

async function entriesWithWebhookId(sql: postgres.Sql, webhookId: string): Promise<string[]> {
  return (await sql<{ type: string }[]>`select type from entries where (data::json)->>'webhook_id' = ${webhookId} order by seq`).map((r) => r.type);
}

describe('the inbox in the database', () => {
  it('keeps each webhook-id once, hands rows out in order, tells a watcher as each commits, and counts what is left', async () => {
    const { url, sql } = await merchant();
    const pool = await openPool({ url, max: 2 });
    cleanups.push(() => pool.end({ timeout: 1 }));
    await migrate(pool);
    const standby = new PostgresWebhookInbox(pool, 'core-b');
    const active = new PostgresWebhookInbox(pool, 'core-a');
    let woken = 0;
    const stop = await active.watch(() => woken++);
    // Once when it starts listening (and again after each reconnection): what was missed is read.
    await waitFor(async () => (woken === 1 ? true : undefined), 'the watcher to be told it listens');
    const listening = woken;
    const delivery = (id: string) => ({ webhookId: id, timestampSec: 1_795_000_000, event: 'charge.paid', body: Buffer.from(`{"event":"charge.paid","id":"${id}"}`) });
    expect(await standby.put(delivery('msg_2'), 1)).toBe('recorded');
    expect(await standby.put(delivery('msg_1'), 2)).toBe('recorded');
    await waitFor(async () => (woken >= listening + 2 ? true : undefined), 'a notice for each row committed');
    expect(await standby.put({ ...delivery('msg_2'), body: Buffer.from('{"event":"other"}') }, 3)).toBe('duplicate');
    expect(await active.depth()).toBe(2);
    // The order they were taken in, not their ids' order; the body as it was first kept.
    const rows = await active.pending(10);
    expect(rows.map((r) => [r.webhookId, r.body.toString()])).toEqual([
      ['msg_2', '{"event":"charge.paid","id":"msg_2"}'],
      ['msg_1', '{"event":"charge.paid","id":"msg_1"}'],
    ]);
    await active.applied(rows[0]!.id, 'recorded', 10);
    // Marked once: a second mark (a core that stepped down, late) changes nothing.
    await standby.applied(rows[0]!.id, 'duplicate', 11);
    expect(await active.depth()).toBe(1);
    expect((await active.pending(10)).map((r) => r.webhookId)).toEqual(['msg_1']);
    expect(await sql`select webhook_id, received_by, received_at::int as received_at, applied_by, applied_at::int as applied_at, outcome from webhook_inbox order by id`).toEqual([
      { webhook_id: 'msg_2', received_by: 'core-b', received_at: 1, applied_by: 'core-a', applied_at: 10, outcome: 'recorded' },
      { webhook_id: 'msg_1', received_by: 'core-b', received_at: 2, applied_by: null, applied_at: null, outcome: null },
    ]);
    await stop();
  });
});

describe('a webhook delivered to a standby', () => {
  it('is kept in the inbox and applied by the active core: the sale is paid', async () => {
    const { url, sql, sandbox } = await merchant();
    const { a, b } = await activeAndStandby(url, sandbox.url);
    const saleId = await pendingSale(a.core);
    // The service knows only the standby's address.
    sandbox.deliverWebhooksTo(b.webhookUrl);
    const pay = await serviceControl(sandbox.url)('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    expect(pay.status).toBe(200);
    const [payment] = pay.body.webhook_ids as string[];
    await paid(a.core, saleId);
    const aName = a.core.status().serving?.core;
    await waitFor(async () => ((await inboxRows(sql)).some((r) => r.webhook_id === payment && r.outcome !== null) ? true : undefined), 'the inbox row to be applied');
    const row = (await inboxRows(sql)).find((r) => r.webhook_id === payment);
    expect(row).toMatchObject({ event: 'charge.paid', applied_by: aName, outcome: 'recorded' });
    expect(row?.received_by).not.toBe(aName);
    expect(await entriesWithWebhookId(sql, payment!)).toEqual(['payment.received']);
    expect(b.core.state).toBe('starting');
  }, 60_000);

  it('and to the active core at once is journaled once', async () => {
    const { url, sql, sandbox } = await merchant();
    const { a, b } = await activeAndStandby(url, sandbox.url);
    const saleId = await pendingSale(a.core);
    // The service's own deliveries, kept byte for byte (signature included) to send again.
    const { payment, delivery } = await capturedPayment(sandbox);
    // A redelivery that the balancer spread over both cores at the same moment.
    const answers = await Promise.all([a.webhookUrl, b.webhookUrl].map((to) => fetch(to, { method: 'POST', headers: delivery.headers, body: delivery.body })));
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    await paid(a.core, saleId);
    await waitFor(async () => ((await inboxRows(sql)).some((r) => r.webhook_id === payment && r.outcome !== null) ? true : undefined), 'the inbox row to be applied');
    expect(await entriesWithWebhookId(sql, payment!)).toEqual(['payment.received']);
    expect((await inboxRows(sql)).filter((r) => r.webhook_id === payment).map((r) => r.outcome)).toEqual([expect.stringMatching(/^(duplicate|recorded)$/)]);
    // The standby again: already in its inbox, answered 2xx and nothing changes.
    const again = await fetch(b.webhookUrl, { method: 'POST', headers: delivery.headers, body: delivery.body });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect((await inboxRows(sql)).filter((r) => r.webhook_id === payment)).toHaveLength(1);
    // A forged one is refused before anything is kept.
    const forged = await fetch(b.webhookUrl, { method: 'POST', headers: { ...delivery.headers, 'webhook-id': 'msg_forged' }, body: delivery.body });
    expect(forged.status).toBe(401);
    expect((await inboxRows(sql)).map((r) => r.webhook_id)).not.toContain('msg_forged');
  }, 60_000);

  it('answers 503 while the database does not answer, and keeps it once it does', async () => {
    const { url, sql, sandbox } = await merchant();
    const a = await startCore({ databaseUrl: url, serviceUrl: sandbox.url });
    await a.started;
    // The standby reaches the database through a link this test can cut.
    const link = await tcpLink(Number(new URL(url).port));
    const through = new URL(url);
    through.port = String(link.port);
    const b = await startCore({ databaseUrl: through.toString(), serviceUrl: sandbox.url });
    await standingBy(b);
    const saleId = await pendingSale(a.core);
    const { payment, delivery } = await capturedPayment(sandbox);
    link.cut();
    const refused = await fetch(b.webhookUrl, { method: 'POST', headers: delivery.headers, body: delivery.body });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await inboxRows(sql)).toEqual([]);
    link.restore();
    // The service delivers it again until the standby keeps it.
    const kept = await waitFor(async () => {
      const res = await fetch(b.webhookUrl, { method: 'POST', headers: delivery.headers, body: delivery.body }).catch(() => null);
      return res?.status === 200 ? res : undefined;
    }, 'the standby to keep the delivery once its database answers', { timeoutMs: 40_000, intervalMs: 250 });
    expect(await kept.json()).toEqual({ received: true, duplicate: false });
    await waitFor(async () => ((await inboxRows(sql)).some((r) => r.webhook_id === payment && r.outcome !== null) ? true : undefined), 'the inbox row to be applied');
    await paid(a.core, saleId);
    expect(await entriesWithWebhookId(sql, payment!)).toEqual(['payment.received']);
  }, 60_000);
});

describe('a standby that takes over', () => {
  it('drains the inbox it kept while standing by, and journals its takeover once', async () => {
    const { url, sql, sandbox } = await merchant();
    const a = await startCore({ databaseUrl: url, serviceUrl: sandbox.url });
    await a.started;
    const aName = a.core.status().serving?.core;
    const saleId = await pendingSale(a.core);
    await a.core.stop();
    // A core that holds the lease and died: no one applies the inbox until its lease runs out.
    const dead = new CoreLease({ sql, holder: 'core-dead', leaseMs: 4_000 });
    expect(await dead.tryAcquire()).toEqual({ held: true, term: 2 });
    const b = await startCore({ databaseUrl: url, serviceUrl: sandbox.url });
    await standingBy(b);
    sandbox.deliverWebhooksTo(b.webhookUrl);
    const pay = await serviceControl(sandbox.url)('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    const [payment] = pay.body.webhook_ids as string[];
    await waitFor(async () => ((await inboxRows(sql)).some((r) => r.webhook_id === payment) ? true : undefined), 'the standby to keep the payment');
    expect((await inboxRows(sql)).every((r) => r.outcome === null)).toBe(true);
    await b.started;
    // Its own receiver on the address the inbox's was on.
    expect(b.core.status().webhooks.url).toBe(b.webhookUrl);
    await paid(b.core, saleId);
    await waitFor(async () => ((await inboxRows(sql)).every((r) => r.outcome !== null) ? true : undefined), 'the inbox to be drained');
    const bName = b.core.status().serving?.core;
    expect((await inboxRows(sql)).find((r) => r.webhook_id === payment)).toMatchObject({ received_by: bName, applied_by: bName, outcome: 'recorded' });
    expect(await entriesWithWebhookId(sql, payment!)).toEqual(['payment.received']);

    // One takeover entry: B's, over the dead core. A was the first core on the database: it took the lease from no one.
    const takeovers = async () => (await sql<{ data: string; at: string }[]>`select data, at from entries where type = ${CORE_TOOK_OVER} order by seq`).map((r) => ({ ...(JSON.parse(r.data) as object), at: Number(r.at) }));
    const [entry] = await takeovers();
    expect(await takeovers()).toEqual([{ term: 3, holder: bName, previous_holder: 'core-dead', at: expect.any(Number) }]);
    expect(bName).not.toBe(aName);
    // The status says which core serves and since when it took over.
    expect(b.core.status().serving).toEqual({ core: bName, since: new Date(entry!.at).toISOString() });

    // A takes the lease back from B: a takeover again, journaled once.
    await b.core.stop();
    const again = await startCore({ databaseUrl: url, serviceUrl: sandbox.url, dataDir: a.dataDir });
    await again.started;
    expect(again.core.status().serving?.core).toBe(aName);
    expect((await takeovers()).map(({ at: _at, ...t }) => t)).toEqual([
      { term: 3, holder: bName, previous_holder: 'core-dead' },
      { term: 4, holder: aName, previous_holder: bName },
    ]);
    // Restarted in its own place, A takes back its own lease: no core moved, no entry.
    await again.core.stop();
    const restarted = await startCore({ databaseUrl: url, serviceUrl: sandbox.url, dataDir: a.dataDir });
    await restarted.started;
    expect(await takeovers()).toHaveLength(2);
  }, 60_000);
});

describe('work done once', () => {
  it('a standby asks the service nothing while it waits; once it takes over it follows the open sales from the database', async () => {
    const { url, sandbox } = await merchant();
    const a = await startCore({ databaseUrl: url, serviceUrl: sandbox.url });
    await a.started;
    const saleId = await pendingSale(a.core);
    // Every request the second core makes goes through this counter on its way to the service.
    const counter = await countingProxy(sandbox.url);
    const b = await startCore({ databaseUrl: url, serviceUrl: counter.url });
    await standingBy(b);
    // The active core follows the sale up meanwhile (its first Tx Status poll comes 3 s after the sale).
    await waitFor(async () => (a.core.terminal.stats().polls > 0 ? true : undefined), 'the active core to poll the open sale');
    expect(counter.requests).toEqual([]);
    await a.core.stop();
    await b.started;
    const pixId = (await b.core.journal.sales.get(saleId))?.sale.pix_id;
    expect(pixId).toBeDefined();
    await waitFor(async () => (counter.requests.some((r) => r === `GET /v2/tx_status/${pixId}`) ? true : undefined), 'the new active core to poll the open sale');
  }, 60_000);

  it('the embedded journal never has a takeover entry and its status names no serving core', async () => {
    const { sandbox } = await merchant();
    const dataDir = await mkdtemp(join(tmpdir(), 'pos-inbox-files-'));
    const core = await composeCore(loadConfig({ POS_DATA_DIR: dataDir, POS_LANG: 'en', POS_SERVICE_URL: sandbox.url, POS_SERVICE_TOKEN: FIXTURE_TOKENS.manager, POS_WEBHOOK_SECRET: FIXTURE_WEBHOOK_SECRET }, []), { log: memoryLogger(systemClock) });
    cores.push(async () => {
      await core.stop();
      await rm(dataDir, { recursive: true, force: true });
    });
    await core.start();
    expect(core.status().serving).toBeNull();
    expect(core.journal.shared).toBeUndefined();
    expect(await core.journal.eventsOfType(CORE_TOOK_OVER)).toEqual([]);
    await expect(core.journal.append([{ type: CORE_TOOK_OVER, data: { term: 1, holder: 'me', previous_holder: null } }])).rejects.toThrow(TypeError);
  }, 60_000);
});

/** Test equipment: an HTTP receiver that keeps each delivery's headers and raw body, and answers 200. */
/** The service pays the pending sale on checkout 1; resolves with its payment webhook's id and the delivery, captured byte for byte. */
async function capturedPayment(sandbox: Sandbox): Promise<{ payment: string | undefined; delivery: { headers: Record<string, string>; body: string } }> {
  const capture = await captureDeliveries();
  sandbox.deliverWebhooksTo(capture.url);
  const pay = await serviceControl(sandbox.url)('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
  const [payment] = pay.body.webhook_ids as string[];
  const delivery = await waitFor(async () => capture.deliveries.find((d) => d.headers['webhook-id'] === payment), 'the payment webhook to be delivered');
  return { payment, delivery };
}

async function captureDeliveries(): Promise<{ url: string; deliveries: Array<{ headers: Record<string, string>; body: string }> }> {
  const deliveries: Array<{ headers: Record<string, string>; body: string }> = [];
  const server = createHttpServer((req, res) => {
    void readAll(req).then((body) => {
      const headers: Record<string, string> = { 'content-type': String(req.headers['content-type']) };
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) headers[name] = String(req.headers[name]);
      deliveries.push({ headers, body: body.toString('utf8') });
      res.writeHead(200).end();
    });
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}/webhooks`, deliveries };
}

/** Test equipment: an HTTP forwarder to the service that notes each request's method and path. */
async function countingProxy(target: string): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createHttpServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    void readAll(req).then(async (body) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (!['host', 'connection', 'content-length'].includes(name) && typeof value === 'string') headers[name] = value;
      try {
        const answer = await fetch(target + (req.url ?? '/'), { method: req.method ?? 'GET', headers, ...(body.length > 0 ? { body: new Uint8Array(body) } : {}) });
        const out: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) out[name] = value;
        });
        res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
      } catch {
        res.destroy();
      }
    });
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, requests };
}

/** Test equipment: a TCP link to PostgreSQL that can be cut (every connection dropped, new ones closed at once) and restored. */
async function tcpLink(targetPort: number): Promise<{ port: number; cut: () => void; restore: () => void }> {
  let up = true;
  const sockets = new Set<Socket>();
  const server = createTcpServer((client) => {
    if (!up) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  const port = await listen(server);
  cleanups.push(async () => {
    for (const s of sockets) s.destroy();
  });
  return {
    port,
    cut: () => {
      up = false;
      for (const s of sockets) s.destroy();
    },
    restore: () => {
      up = true;
    },
  };
}

async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return (server.address() as { port: number }).port;
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
