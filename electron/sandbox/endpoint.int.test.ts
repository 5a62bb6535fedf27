/**
 * The embedded sandbox as the entry points hand it to the core (endpoint.ts): its fixture's
 * credentials, its clock shared with the core, the checkout's printed QR, and webhooks that
 * wait for the core's receiver instead of going to a URL that does not exist yet.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../core/config.ts';
import { memoryLogger } from '../core/log.ts';
import { systemClock } from '../shared/clock.ts';
import { verifyWebhook } from '../shared/standard-webhooks.ts';
import { Client, Receiver, TOKENS, FIXTURE_WEBHOOK_SECRET, waitFor } from './conformance/harness.ts';
import { startEmbeddedSandbox, type EmbeddedSandboxEndpoint } from './endpoint.ts';

const open: EmbeddedSandboxEndpoint[] = [];
const receivers: Receiver[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const e of open.splice(0)) await e.close();
  for (const r of receivers.splice(0)) await r.close();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function embedded(dir?: string): Promise<{ endpoint: EmbeddedSandboxEndpoint; api: Client; dir: string }> {
  const dataDir = dir ?? (await mkdtemp(join(tmpdir(), 'pos-endpoint-')));
  if (dir === undefined) dirs.push(dataDir);
  const endpoint = await startEmbeddedSandbox(loadConfig({ POS_DATA_DIR: dataDir }, []));
  open.push(endpoint);
  return { endpoint, api: new Client(endpoint.url), dir: dataDir };
}

async function receiver(): Promise<Receiver> {
  const r = await new Receiver().start();
  receivers.push(r);
  return r;
}

/** A printed sale on checkout 1 (printed through the public API, as a manager would), paid by the payer. */
async function paidSale(_endpoint: EmbeddedSandboxEndpoint, api: Client): Promise<void> {
  expect((await api.post('/v2/printed_dynamic_qrs', { store_id: 1, checkout_id: 1, auto_create_checkout: true })).status).toBe(201);
  expect((await api.sale({ amount: '3.00', store_id: 1, checkout_id: 1 })).status).toBe(201);
  expect((await api.control('POST', '/pay', { store_id: 1, checkout_id: 1 })).status).toBe(200);
}

describe('the embedded sandbox endpoint', () => {
  it("is the sandbox, on loopback, with its fixture's manager token and webhook secret", async () => {
    const { endpoint } = await embedded();
    expect(endpoint).toMatchObject({ mode: 'sandbox', token: TOKENS.manager, webhookSecret: FIXTURE_WEBHOOK_SECRET });
    expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('shares its clock: moving the sandbox clock moves the endpoint clock the core will use', async () => {
    const { endpoint, api } = await embedded();
    const before = endpoint.clock.offsetMs;
    await api.advance(600);
    expect(endpoint.clock.offsetMs - before).toBe(600_000);
  });

  it('prints no QR by itself: the checkout stays as contract 7 has it until the core’s back office prints it', async () => {
    const { api } = await embedded();
    expect((await api.get('/v2/printed_dynamic_qrs')).body.total).toBe(0);
  });

  it("holds a payment's webhooks until the core's receiver listens, then delivers them signed", async () => {
    const { endpoint, api } = await embedded();
    await paidSale(endpoint, api);
    const waiting = (await api.control('GET', '/events')).body as Array<{ state: string; attempts: number }>;
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.every((e) => e.state === 'pending' && e.attempts === 0)).toBe(true);

    const hooks = await receiver();
    await endpoint.attach?.({ webhookUrl: hooks.url, log: memoryLogger(systemClock) });
    await waitFor(() => (hooks.deliveries.length >= waiting.length ? true : undefined), 'the held webhooks');
    for (const d of hooks.deliveries) {
      expect(verifyWebhook(FIXTURE_WEBHOOK_SECRET, d.headers, d.body, Math.floor(endpoint.clock.now() / 1000)).ok).toBe(true);
    }
  });

  it('after a restart, forgets the receiver of the last run until the new one is attached', async () => {
    const first = await embedded();
    const old = await receiver();
    await first.endpoint.attach?.({ webhookUrl: old.url, log: memoryLogger(systemClock) });
    await first.endpoint.close();
    open.splice(open.indexOf(first.endpoint), 1);

    const again = await embedded(first.dir);
    expect((await again.api.control('GET', '/webhook')).body['1'].url).toBe(null);
    const fresh = await receiver();
    await again.endpoint.attach?.({ webhookUrl: fresh.url, log: memoryLogger(systemClock) });
    expect((await again.api.control('GET', '/webhook')).body['1'].url).toBe(fresh.url);
  });
});
