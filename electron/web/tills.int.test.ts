import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttentionView, CheckoutView, CoreStatus, DisplayView } from '../core/contract.ts';
import type { Core } from '../core/core.ts';
import type { DeviceInfo } from '../core/devices/registry.ts';
import { memoryLogger } from '../core/log.ts';
import { managerSession, TEST_PIN } from '../core/operators/fixtures/sign-in.ts';
import type { Caller } from '../core/operators/operators.ts';
import { startCoreOnSandbox, type CoreOnSandbox } from '../core/terminal/fixtures/core.ts';
import { systemClock } from '../shared/clock.ts';
import { REVOKED_CLOSE_CODE, type ServerMessage } from '../shared/ws-protocol.ts';
import { BridgeClient } from './fixtures/bridge-client.ts';
import { startWebShell, type WebShell } from './server.ts';

/**
 * Issue 9 over the real browser shell: one core on the embedded sandbox serving two paired
 * tills (checkouts 1 and 2 of store 1) and the customer display of checkout 2, each a real
 * WebSocket. The service's webhooks reach the one core; every event reaches its checkout's
 * connections and no other.
 */
const log = memoryLogger(systemClock);
const TOKEN = 'store-token-0123456789abcdef';
let env: CoreOnSandbox;
let core: Core;
let shell: WebShell;
let manager: Caller;
const open: BridgeClient[] = [];

beforeAll(async () => {
  env = await startCoreOnSandbox('tills', log);
  core = env.core;
  const rendererDir = join(env.dir, 'renderer');
  await mkdir(rendererDir, { recursive: true });
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>cashier</title>');
  shell = await startWebShell({ core, rendererDir, host: '127.0.0.1', port: 0, token: TOKEN });
  const session = await managerSession(core);
  manager = core.operators.caller(session) as Caller;
  await core.operators.add(manager, { name: 'Caio', role: 'cashier', pin: TEST_PIN });
  await core.operators.add(manager, { name: 'Rui', role: 'supervisor', pin: TEST_PIN });
}, 60_000);

afterAll(async () => {
  for (const c of open) c.close();
  await shell?.close();
  await env?.stop();
});

async function connect(as: Parameters<typeof BridgeClient.open>[1]): Promise<BridgeClient> {
  const client = await BridgeClient.open(shell.origin, as);
  open.push(client);
  return client;
}

const hello = (c: BridgeClient) => c.until(() => c.messages.find((m): m is Extract<ServerMessage, { type: 'device' }> => m.type === 'device'), 'the device message');

/** A device paired the way a till is: a manager's code, entered on an unpaired connection. */
async function pair(kind: 'till' | 'display', checkoutId: number, name: string): Promise<{ credential: string; device: DeviceInfo }> {
  const { code } = await core.devices.startPairing(manager, { kind, storeId: 1, checkoutId, name });
  const unpaired = await connect('unpaired');
  expect(await hello(unpaired)).toMatchObject({ connection: 'unpaired', device: null });
  const paired = await unpaired.ok<{ credential: string; device: DeviceInfo }>('pairing.pair', { code });
  unpaired.close();
  return paired;
}

async function till(checkoutId: number, name: string, operator: string): Promise<{ client: BridgeClient; credential: string; device: DeviceInfo }> {
  const { credential, device } = await pair('till', checkoutId, name);
  const client = await connect({ credential });
  expect(await hello(client)).toMatchObject({ connection: 'device', device: { name, storeId: 1, checkoutId } });
  await client.ok('auth.signIn', { name: operator, pin: TEST_PIN });
  return { client, credential, device };
}

const onCheckout = (checkoutId: number) => (v: CheckoutView) => v.checkout_id === checkoutId;

describe('many tills on one core', () => {
  let till1: Awaited<ReturnType<typeof till>>;
  let till2: Awaited<ReturnType<typeof till>>;
  let display2: BridgeClient;

  beforeAll(async () => {
    till1 = await till(1, 'Till 1', 'Rui');
    till2 = await till(2, 'Till 2', 'Caio');
    display2 = await connect({ credential: (await pair('display', 2, 'Display 2')).credential });
  }, 30_000);

  it('tells each connection its own checkout and device', async () => {
    expect(await till2.client.ok<CoreStatus>('core.status')).toMatchObject({ terminal: { storeId: 1, checkoutId: 2 }, device: { name: 'Till 2', kind: 'till' } });
    expect(await till1.client.ok<CoreStatus>('core.status')).toMatchObject({ terminal: { storeId: 1, checkoutId: 1 }, device: { name: 'Till 1' } });
    const store = await connect({ token: TOKEN });
    expect(await hello(store)).toMatchObject({ connection: 'store', device: null });
    expect(await store.ok<CoreStatus>('core.status')).toMatchObject({ terminal: { storeId: 1, checkoutId: 1 }, device: null });
  });

  it('routes a correction and a late payment on till 2 to till 2 and its display, never to till 1', async () => {
    const first = await till2.client.ok<CheckoutView>('sale.charge', { amount: '10,00' });
    const displaced = first.newest?.pix_id as string;
    expect(displaced).toBeTruthy();
    await till2.client.ok('sale.charge', { amount: '12,00' });
    await env.svc('POST', '/_sandbox/pay', { late_for: displaced });

    const late = await till2.client.until(
      () => till2.client.heard<CheckoutView>('checkout.changed').find((v) => v.attention.some((s) => s.pix_id === displaced && s.status === 'paid_late')),
      'the late payment on till 2',
    );
    expect(late.hold).not.toBeNull();
    // One receiver for the merchant: the late payment found its sale, it is not "unmatched".
    expect(core.terminal.unmatchedPayments()).toEqual([]);
    await display2.until(() => display2.heard<DisplayView>('display.changed').find((v) => v.checkout_id === 2 && v.hold), 'Please wait on display 2');
    // The supervisor signed in on till 1 follows every checkout's attention list.
    await till1.client.until(
      () => till1.client.heard<AttentionView>('attention.changed').find((a) => a.items.some((s) => s.pix_id === displaced && s.checkout_id === 2)),
      'the supervisor’s attention list',
    );
    expect(till1.client.heard<CheckoutView>('checkout.changed').filter(onCheckout(2))).toEqual([]);
    expect(till1.client.heard<DisplayView>('display.changed').filter((v) => v.checkout_id === 2)).toEqual([]);
    // A cashier's connection never receives the merchant-wide list.
    expect(till2.client.heard('attention.changed')).toEqual([]);
  });

  it('routes a payment on checkout 1 to till 1 only', async () => {
    const sale = await till1.client.ok<CheckoutView>('sale.charge', { amount: '5,00' });
    const saleId = sale.newest?.sale_id as string;
    await env.svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    await till1.client.until(() => till1.client.heard<CheckoutView>('checkout.changed').find((v) => v.recent.some((s) => s.sale_id === saleId && s.status === 'paid')), 'the payment on till 1');
    expect(till2.client.heard<CheckoutView>('checkout.changed').filter(onCheckout(1))).toEqual([]);
    expect(display2.heard<DisplayView>('display.changed').filter((v) => v.checkout_id === 1)).toEqual([]);
    // Nor can till 2's cashier ask for it.
    expect(await till2.client.call('sale.detail', { saleId })).toMatchObject({ ok: false, error: { code: 'forbidden', params: { reason: 'other_checkout' } } });
    expect(await till2.client.call('checkout.view', { storeId: 1, checkoutId: 1 })).toMatchObject({ ok: false, error: { code: 'forbidden', params: { reason: 'other_checkout' } } });
    expect(await till2.client.call('sale.charge', { amount: '1,00', checkoutId: 1 })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  });

  it('sends a page only the pushes it says it listens to, once it has said', async () => {
    // Till 2's own page and the customer display it opened: one device, two pages.
    const page = await connect({ credential: till2.credential });
    const displayPage = await connect({ credential: till2.credential });
    await Promise.all([hello(page), hello(displayPage)]);
    // The till's page hears its sales once someone signs in on it (issue 25); its display never signs in.
    await page.ok('auth.signIn', { name: 'Caio', pin: TEST_PIN });
    page.listen(['core.status', 'checkout.changed', 'attention.changed']);
    displayPage.listen(['display.changed']);
    // Answered after the listen messages: the server knows of them once this call returns.
    await Promise.all([page.ok<CoreStatus>('core.status'), displayPage.ok<CoreStatus>('core.status')]);
    const said = till2.client.heard('display.changed').length;
    const sale = await till2.client.ok<CheckoutView>('sale.charge', { amount: '3,00' });
    await page.until(() => page.heard<CheckoutView>('checkout.changed').find((v) => v.newest?.sale_id === sale.newest?.sale_id), 'the sale on the till’s page');
    await displayPage.until(() => displayPage.heard<DisplayView>('display.changed').find((v) => v.checkout_id === 2), 'the sale on the display page');
    // A page that never said hears every push its connection may: till 2's first page.
    await till2.client.until(() => (till2.client.heard('display.changed').length > said ? true : undefined), 'the display push on a page that never said');
    expect(page.heard('display.changed')).toEqual([]);
    expect(displayPage.heard('checkout.changed')).toEqual([]);
  });

  it('lets a customer display read its checkout’s display state and nothing else', async () => {
    expect(await display2.ok<DisplayView>('display.view')).toMatchObject({ store_id: 1, checkout_id: 2, lang: 'en' });
    for (const method of ['checkout.view', 'core.status', 'auth.signIn', 'sale.charge', 'journal.shiftReport', 'devices.list']) {
      expect(await display2.call(method, {}), method).toMatchObject({ ok: false, error: { code: 'forbidden', params: { reason: 'display_only' } } });
    }
    expect(display2.heard('core.status')).toEqual([]);
    expect(display2.heard('checkout.changed')).toEqual([]);
  });

  it('lets an unpaired connection pair and nothing else, and refuses codes with their reason', async () => {
    const stranger = await connect('unpaired');
    for (const method of ['core.status', 'checkout.view', 'display.view', 'auth.signIn']) {
      expect(await stranger.call(method, {}), method).toMatchObject({ ok: false, error: { code: 'not_paired' } });
    }
    expect(await stranger.ok('pairing.info')).toEqual({ fingerprint: null });
    expect(await stranger.call('pairing.pair', { code: '0000 0000' })).toMatchObject({ ok: false, error: { code: 'pairing_refused', params: { reason: 'wrong_code' } } });
    expect(stranger.messages.filter((m) => m.type === 'event')).toEqual([]);
    expect(await till1.client.call('pairing.pair', { code: '12345678' })).toMatchObject({ ok: false, error: { code: 'conflict', params: { reason: 'already_paired' } } });
  });

  it('ends a revoked till’s connection at once; its credential then opens nothing', async () => {
    const manager = await connect({ token: TOKEN });
    await manager.ok('auth.signIn', { name: 'Marta', pin: TEST_PIN });
    await manager.ok('devices.revoke', { deviceId: till2.device.id });
    await till2.client.until(() => till2.client.closed ?? undefined, 'till 2 closed');
    expect(till2.client.closed?.code).toBe(REVOKED_CLOSE_CODE);
    expect(till2.client.messages).toContainEqual({ type: 'device', connection: 'unpaired', device: null, reason: 'revoked' });

    const again = await connect({ credential: till2.credential });
    expect(await hello(again)).toMatchObject({ connection: 'unpaired', reason: 'unknown' });
    expect(await again.call('core.status')).toMatchObject({ ok: false, error: { code: 'not_paired' } });
    expect((await manager.ok<Array<{ name: string; revokedBy: string | null; online: boolean }>>('devices.list')).find((d) => d.name === 'Till 2')).toMatchObject({ revokedBy: 'Marta', online: false });
    // Till 1 goes on as before.
    expect(await till1.client.call('core.status')).toMatchObject({ ok: true });
  });
});
