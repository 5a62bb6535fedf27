/**
 * Issue 10 points 1, 2, 3 and 5 through the shells' dispatcher, as a signed-in manager, on a
 * real core and its embedded sandbox; every outcome is checked at the service through its
 * public API with the merchant's own token, never through the app alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { composeCore } from '../../compose.ts';
import { FIXTURE_TOKENS } from '../../sandbox/fixture.ts';
import { loadConfig } from '../config.ts';
import type { Core } from '../core.ts';
import type { Envelope } from '../errors.ts';
import { memoryLogger } from '../log.ts';
import { dispatcherAs, managerSession } from '../operators/fixtures/sign-in.ts';
import { startCoreOnSandbox, type CoreOnSandbox } from '../terminal/fixtures/core.ts';
import { OFFICE_CHECKOUT_CREATED, OFFICE_PRINTED_QR, OFFICE_STORE_CHANGED, OFFICE_STORE_CREATED, OFFICE_WALLET_CHANGED, type OfficeCheckout, type Poster } from './backoffice.ts';

const log = memoryLogger(systemClock);
let env: CoreOnSandbox;
let core: Core;
let call: (method: string, args?: unknown) => Promise<Envelope<unknown>>;
let base: string;

beforeAll(async () => {
  env = await startCoreOnSandbox('office', log, { secondCheckout: false });
  core = env.core;
  base = core.status().service.baseUrl as string;
  const dispatch = await dispatcherAs(core);
  call = (method, args) => dispatch(method, args);
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

/** The service's public API with the merchant's token (contract 7): what is true there. */
async function service<T = unknown>(path: string, token: string = FIXTURE_TOKENS.manager): Promise<T> {
  const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

type ServiceCheckout = { checkout_id: number; checkout_desc: string; wallet_id: number; default_qr: string | null };
const checkoutsAt = (storeId: number) => service<ServiceCheckout[]>(`/v2/stores/${storeId}/checkouts`);
const storesAt = () => service<{ store_id: number; store_name: string; address: string | null; phone_number: string | null; email: string | null }[]>('/v2/stores');
const printedAt = (storeId: number, checkoutId: number) =>
  service<{ total: number; stores: { checkouts: { printed_dynamic_qrs: { qr_emvcode: string }[] }[] }[] }>(`/v2/printed_dynamic_qrs?store_id=${storeId}&checkout_id=${checkoutId}`);

async function ok<T>(method: string, args?: unknown): Promise<T> {
  const envelope = await call(method, args);
  if (!envelope.ok) throw new Error(`${method} failed: ${JSON.stringify(envelope.error)}`);
  return envelope.result as T;
}

async function refused(method: string, args: unknown): Promise<{ code: string; message: string; params?: Record<string, unknown> }> {
  const envelope = await call(method, args);
  expect(envelope.ok, method).toBe(false);
  if (envelope.ok) throw new Error('unreachable');
  // A sentence a person can act on, never a stack or a raw body.
  expect(envelope.error.message).toMatch(/^[A-Z].{10,}[.)]$/s);
  return envelope.error;
}

const STORE_FORM = { name: '', address: '', phone: '', email: '' };

describe('the sandbox’s first start', () => {
  it('leaves checkout 1 of store 1 in printed mode with its printed QR, made through the back office', async () => {
    expect((await checkoutsAt(1)).find((c) => c.checkout_id === 1)?.default_qr).toBe('printed_dynamic_qr');
    expect((await printedAt(1, 1)).total).toBe(1);
    const entries = await core.journal.eventsOfType(OFFICE_PRINTED_QR);
    expect(entries.map((e) => e.data)).toEqual([expect.objectContaining({ by: 'the sandbox’s first start', store_id: 1, checkout_id: 1, created: true })]);
  });

  it('does not undo a manager’s Use dynamic QR at a later start', async () => {
    expect(await ok<OfficeCheckout>('office.setMode', { storeId: 1, checkoutId: 1, mode: 'dynamic' })).toMatchObject({ mode: 'dynamic', printed_qr: true });
    await core.backOffice.ensurePrintedQr('the sandbox’s first start', { storeId: 1, checkoutId: 1 });
    expect((await checkoutsAt(1)).find((c) => c.checkout_id === 1)?.default_qr).toBe('dynamic');
    await ok('office.setMode', { storeId: 1, checkoutId: 1, mode: 'printed' });
    expect((await checkoutsAt(1)).find((c) => c.checkout_id === 1)?.default_qr).toBe('printed_dynamic_qr');
  });
});

describe('a till paired on a checkout with no printed QR', () => {
  it('is paired without printing anything: the checkout stays dynamic, and the back office says so', async () => {
    const added = await ok<OfficeCheckout>('office.addCheckout', { storeId: 1, description: 'Caixa 7', walletId: 102 });
    const by = core.operators.caller(await managerSession(core));
    if (by === null) throw new Error('the test manager is not signed in');
    const { code } = await core.devices.startPairing(by, { kind: 'till', storeId: 1, checkoutId: added.checkout_id, name: 'Till 7' });
    expect((await core.pairDevice(code, 'test')).device).toMatchObject({ checkoutId: added.checkout_id });
    expect((await printedAt(1, added.checkout_id)).total).toBe(0);
    expect((await checkoutsAt(1)).find((c) => c.checkout_id === added.checkout_id)?.default_qr).toBeNull();
    expect((await ok<OfficeCheckout[]>('office.checkouts', { storeId: 1 })).find((c) => c.checkout_id === added.checkout_id)).toMatchObject({ mode: 'dynamic', printed_qr: false });
  });
});

describe('stores (reference 2.1, 4.1)', () => {
  it('refuses a store without a name with a sentence, and creates nothing', async () => {
    const before = await storesAt();
    expect((await refused('office.createStore', { ...STORE_FORM, name: '   ', address: 'Rua B, 2' })).params).toMatchObject({ problem: 'store_name_empty', field: 'store_name' });
    expect(await storesAt()).toEqual(before);
  });

  it('creates a store with every field of 2.1, in the manager’s name', async () => {
    const store = await ok<{ store_id: number }>('office.createStore', { name: 'Loja Norte', address: 'Rua B, 2', phone: '+55 11 5555-0101', email: 'norte@example.com' });
    expect((await storesAt()).find((s) => s.store_id === store.store_id)).toEqual({
      merchant_id: 1,
      store_id: store.store_id,
      store_name: 'Loja Norte',
      address: 'Rua B, 2',
      phone_number: '+55 11 5555-0101',
      email: 'norte@example.com',
    });
    expect((await ok<{ store_id: number }[]>('office.stores')).map((s) => s.store_id)).toContain(store.store_id);
    const entries = await core.journal.eventsOfType(OFFICE_STORE_CREATED);
    expect(entries.at(-1)?.data).toMatchObject({ by: 'Marta', store_id: store.store_id });
  });

  it('an edit keeps the fields left empty (and says which) and cannot empty the name', async () => {
    const store = await ok<{ store_id: number }>('office.createStore', { name: 'Loja Sul', address: 'Rua C, 3', phone: '11 5555-0202', email: '' });
    const changed = await ok<{ store: unknown; kept: string[] }>('office.changeStore', { storeId: store.store_id, name: 'Loja Sul', address: '', phone: '11 5555-0303', email: '' });
    expect(changed.kept).toEqual(['address']);
    const atService = (await storesAt()).find((s) => s.store_id === store.store_id);
    expect(atService).toMatchObject({ store_name: 'Loja Sul', address: 'Rua C, 3', phone_number: '11 5555-0303' });
    // Reference 2.1: the list types an unset optional field as a string.
    expect([null, '']).toContain(atService?.email);
    expect((await core.journal.eventsOfType(OFFICE_STORE_CHANGED)).at(-1)?.data).toMatchObject({ by: 'Marta', store_id: store.store_id, fields: 'phone_number' });

    const before = await storesAt();
    expect((await refused('office.changeStore', { storeId: store.store_id, name: '', address: 'Rua D, 4', phone: '', email: '' })).params).toMatchObject({ problem: 'store_name_empty' });
    expect(await storesAt()).toEqual(before);
  });
});

describe('a store’s phone and email, checked, and cleared on purpose (issue 26)', () => {
  it('refuses an email that is not one, naming the field, and creates nothing', async () => {
    const before = await storesAt();
    const error = await refused('office.createStore', { ...STORE_FORM, name: 'Loja Errada', email: 'not-an-email' });
    expect(error).toMatchObject({ code: 'invalid_argument', params: { problem: 'store_email_invalid', field: 'email' } });
    expect((await refused('office.createStore', { ...STORE_FORM, name: 'Loja Errada', phone: 'ring twice' })).params).toMatchObject({ problem: 'store_phone_invalid', field: 'phone_number' });
    expect(await storesAt()).toEqual(before);
  });

  it('clears the phone and the email a manager ticked, and keeps the rest', async () => {
    const store = await ok<{ store_id: number }>('office.createStore', { name: 'Loja Centro Sul', address: 'Rua E, 5', phone: '+55 11 5555-0404', email: 'centrosul@example.com' });
    const changed = await ok<{ kept: string[]; cleared: string[]; store: Record<string, unknown> }>('office.changeStore', {
      storeId: store.store_id,
      name: 'Loja Centro Sul',
      address: 'Rua E, 5',
      phone: '',
      email: '',
      clear: ['phone', 'email'],
    });
    expect(changed.kept).toEqual([]);
    // Said cleared, and absent in the store the core returns, once the service's answer holds none.
    expect(changed.cleared).toEqual(['phone_number', 'email']);
    expect(changed.store).toMatchObject({ store_id: store.store_id, store_name: 'Loja Centro Sul', address: 'Rua E, 5', phone_number: null, email: null });
    const atService = (await storesAt()).find((s) => s.store_id === store.store_id);
    expect(atService).toMatchObject({ store_name: 'Loja Centro Sul', address: 'Rua E, 5' });
    expect([null, '']).toContain(atService?.phone_number);
    expect([null, '']).toContain(atService?.email);
    expect((await core.journal.eventsOfType(OFFICE_STORE_CHANGED)).at(-1)?.data).toMatchObject({ by: 'Marta', store_id: store.store_id, fields: 'phone_number,email', cleared: 'phone_number,email' });

    // Cleared again: there is nothing left to clear, so nothing is sent or journaled.
    const entries = (await core.journal.eventsOfType(OFFICE_STORE_CHANGED)).length;
    const again = await ok<{ kept: string[]; cleared: string[] }>('office.changeStore', { storeId: store.store_id, name: 'Loja Centro Sul', address: 'Rua E, 5', phone: '', email: '', clear: ['phone'] });
    expect(again).toMatchObject({ kept: [], cleared: [] });
    expect(await core.journal.eventsOfType(OFFICE_STORE_CHANGED)).toHaveLength(entries);
  });

  it('refuses to clear a name, or a field both cleared and typed, and changes nothing at the service', async () => {
    const store = await ok<{ store_id: number }>('office.createStore', { name: 'Loja Oeste', address: 'Rua F, 6', phone: '+55 11 5555-0606', email: '' });
    const before = await storesAt();
    // The bridge reads `clear` as a list of the three optional fields only (the form offers no other).
    const name = await call('office.changeStore', { storeId: store.store_id, name: 'Loja Oeste', address: 'Rua F, 6', phone: '', email: '', clear: ['name'] });
    expect(name).toMatchObject({ ok: false, error: { code: 'invalid_argument', params: { field: 'clear[0]' } } });
    // The core's own rule, below the bridge, refuses it too (a caller that is not the form).
    await expect(core.backOffice.changeStore('Marta', store.store_id, { store_name: 'Loja Oeste', address: '', phone_number: '', email: '', clear: ['store_name' as never] })).rejects.toMatchObject({
      code: 'invalid_argument',
      params: { problem: 'store_clear_name' },
    });
    const both = await refused('office.changeStore', { storeId: store.store_id, name: 'Loja Oeste', address: 'Rua F, 6', phone: '+55 11 5555-0707', email: '', clear: ['phone'] });
    expect(both.params).toMatchObject({ problem: 'store_clear_with_value', field: 'phone_number' });
    expect(await storesAt()).toEqual(before);
  });
});

describe('checkouts (reference 2.2, 4.2)', () => {
  let storeId: number;
  beforeAll(async () => {
    storeId = (await ok<{ store_id: number }>('office.createStore', { ...STORE_FORM, name: 'Loja Leste' })).store_id;
    // Reference 4.4 rule 1 needs a checkout 1 in a store for later auto-creates; this one has its own.
    await ok('office.addCheckout', { storeId, description: 'Caixa 1', walletId: 101 });
  });

  it('lists the merchant’s wallets, the deprecated one marked, addresses masked', async () => {
    const wallets = await ok<{ wallet_id: number; address: string; deprecated: boolean }[]>('office.wallets');
    expect(wallets.map((w) => [w.wallet_id, w.deprecated])).toEqual([
      [101, false],
      [102, false],
      [103, true],
    ]);
    for (const w of wallets) expect(w.address).toMatch(/…/);
  });

  it.each([
    ['a 141-character description', { description: 'x'.repeat(141), walletId: 102 }, 'invalid_argument', 'checkout_desc_too_long'],
    ['an empty description', { description: '  ', walletId: 102 }, 'invalid_argument', 'checkout_desc_empty'],
    ['a wallet of another merchant', { description: 'Caixa X', walletId: 201 }, 'invalid_argument', 'wallet_not_found'],
    ['a wallet on a deprecated network', { description: 'Caixa X', walletId: 103 }, 'invalid_argument', 'wallet_network_deprecated'],
  ])('refuses %s with a sentence, and creates nothing', async (_name, input, code, problem) => {
    const before = await checkoutsAt(storeId);
    expect(await refused('office.addCheckout', { storeId, ...input })).toMatchObject({ code, params: { problem } });
    expect(await checkoutsAt(storeId)).toEqual(before);
  });

  it('adds a checkout on wallet 102: dynamic, no printed QR, journaled', async () => {
    const added = await ok<OfficeCheckout>('office.addCheckout', { storeId, description: 'Balcão', walletId: 102 });
    expect(added).toMatchObject({ store_id: storeId, checkout_desc: 'Balcão', wallet_id: 102, mode: 'dynamic', printed_qr: false });
    expect(added.wallet_address).toMatch(/…/);
    expect((await checkoutsAt(storeId)).find((c) => c.checkout_id === added.checkout_id)).toMatchObject({ checkout_desc: 'Balcão', wallet_id: 102, default_qr: null });
    expect((await core.journal.eventsOfType(OFFICE_CHECKOUT_CREATED)).at(-1)?.data).toMatchObject({ by: 'Marta', checkout_id: added.checkout_id, wallet_id: 102 });
  });

  it('changes a wallet only when confirmed, and never to another merchant’s', async () => {
    const added = await ok<OfficeCheckout>('office.addCheckout', { storeId, description: 'Caixa W', walletId: 102 });
    const key = { storeId, checkoutId: added.checkout_id };
    expect((await refused('office.changeWallet', { ...key, walletId: 101, confirm: false })).params).toMatchObject({ problem: 'wallet_change_unconfirmed' });
    expect((await refused('office.changeWallet', { ...key, walletId: 201, confirm: true })).params).toMatchObject({ problem: 'wallet_not_found' });
    expect((await refused('office.changeWallet', { ...key, walletId: 103, confirm: true })).params).toMatchObject({ problem: 'wallet_network_deprecated' });
    expect((await checkoutsAt(storeId)).find((c) => c.checkout_id === added.checkout_id)?.wallet_id).toBe(102);

    expect(await ok<OfficeCheckout>('office.changeWallet', { ...key, walletId: 101, confirm: true })).toMatchObject({ wallet_id: 101 });
    expect((await checkoutsAt(storeId)).find((c) => c.checkout_id === added.checkout_id)?.wallet_id).toBe(101);
    expect((await core.journal.eventsOfType(OFFICE_WALLET_CHANGED)).at(-1)?.data).toMatchObject({ by: 'Marta', from_wallet_id: 102, wallet_id: 101 });
  });
});

describe('printed QR posters and modes (reference 4.3, 4.4)', () => {
  let storeId: number;
  const fresh = async (description: string) => {
    const added = await ok<OfficeCheckout>('office.addCheckout', { storeId, description, walletId: 102 });
    return { storeId, checkoutId: added.checkout_id };
  };
  const gateway = (body: Record<string, unknown>) => env.svc('PUT', '/_sandbox/gateway', body);
  beforeAll(async () => {
    storeId = (await ok<{ store_id: number }>('office.createStore', { ...STORE_FORM, name: 'Loja Oeste' })).store_id;
  });

  it('refuses printed mode on a checkout with no printed QR, and writes no config', async () => {
    const key = await fresh('Caixa P');
    expect(await refused('office.setMode', { ...key, mode: 'printed' })).toMatchObject({ code: 'conflict', params: { problem: 'mode_needs_printed_qr' } });
    expect(await service(`/v2/stores/${storeId}/checkouts/${key.checkoutId}/configs`)).toEqual([]);
  });

  it('prints a QR poster: 201 a new QR, then 200 the same one; the QR is the service’s, and the checkout is printed', async () => {
    const key = await fresh('Caixa Q');
    const first = await ok<Poster & { created: boolean }>('office.printQr', key);
    expect(first).toMatchObject({ created: true, store_name: 'Loja Oeste', checkout_desc: 'Caixa Q' });
    const atService = await printedAt(storeId, key.checkoutId);
    expect(atService.total).toBe(1);
    expect(first.qr_emvcode).toBe(atService.stores[0]?.checkouts[0]?.printed_dynamic_qrs[0]?.qr_emvcode);
    expect((await checkoutsAt(storeId)).find((c) => c.checkout_id === key.checkoutId)?.default_qr).toBe('printed_dynamic_qr');

    const again = await ok<Poster & { created: boolean }>('office.printQr', key);
    expect(again).toMatchObject({ created: false, printed_dynamic_qr_id: first.printed_dynamic_qr_id, qr_emvcode: first.qr_emvcode });
    expect((await printedAt(storeId, key.checkoutId)).total).toBe(1);
    expect(await ok<Poster>('office.poster', key)).toMatchObject({ qr_emvcode: first.qr_emvcode, checkout_desc: 'Caixa Q' });
    const journaled = (await core.journal.eventsOfType(OFFICE_PRINTED_QR)).slice(-2).map((e) => e.data);
    expect(journaled).toEqual([expect.objectContaining({ by: 'Marta', created: true }), expect.objectContaining({ by: 'Marta', created: false })]);

    // Use dynamic QR, then Use printed QR: through configs, checked at the service.
    expect(await ok<OfficeCheckout>('office.setMode', { ...key, mode: 'dynamic' })).toMatchObject({ mode: 'dynamic', printed_qr: true });
    expect((await checkoutsAt(storeId)).find((c) => c.checkout_id === key.checkoutId)?.default_qr).toBe('dynamic');
    expect(await ok<OfficeCheckout>('office.setMode', { ...key, mode: 'printed' })).toMatchObject({ mode: 'printed' });
    expect((await checkoutsAt(storeId)).find((c) => c.checkout_id === key.checkoutId)?.default_qr).toBe('printed_dynamic_qr');
  });

  it('a gateway failure (502) creates nothing and leaves the checkout dynamic; repeating completes it (rule 5)', async () => {
    const key = await fresh('Caixa G');
    expect((await env.svc('POST', '/_sandbox/faults', { target: 'gateway', fault: 'printed_qr_error', count: 1 })).status).toBeLessThan(300);
    expect(await refused('office.printQr', key)).toMatchObject({ code: 'service_failed', params: { problem: 'gateway_failed', outcome: 'not_created' } });
    expect((await printedAt(storeId, key.checkoutId)).total).toBe(0);
    expect((await checkoutsAt(storeId)).find((c) => c.checkout_id === key.checkoutId)?.default_qr).toBeNull();
    expect(await ok('office.printQr', key)).toMatchObject({ created: true });
    expect((await checkoutsAt(storeId)).find((c) => c.checkout_id === key.checkoutId)?.default_qr).toBe('printed_dynamic_qr');
  });

  it.each([
    ['printed QRs switched off (503)', { printed_disabled: true }, 'printed_qr_disabled'],
    ['a gateway without printed QRs (rule 6)', { printed_supported: false }, 'printed_qr_unsupported'],
  ])('%s: a sentence, no QR, the checkout stays dynamic', async (_name, setting, problem) => {
    const key = await fresh('Caixa D');
    expect((await gateway(setting)).status).toBe(200);
    try {
      expect((await refused('office.printQr', key)).params).toMatchObject({ problem });
    } finally {
      expect((await gateway({ printed_disabled: false, printed_supported: true })).status).toBe(200);
    }
    expect((await printedAt(storeId, key.checkoutId)).total).toBe(0);
    expect((await checkoutsAt(storeId)).find((c) => c.checkout_id === key.checkoutId)?.default_qr).toBeNull();
  });

  it('the Printed QRs list pages through the service’s listing', async () => {
    const all = await service<{ total: number }>('/v2/printed_dynamic_qrs');
    const first = await ok<{ total: number; page: number; rows: unknown[] }>('office.printedQrs', {});
    expect(first.total).toBe(all.total);
    expect(first.rows.length).toBe(Math.min(all.total, 20));
    const beyond = await ok<{ rows: unknown[]; page: number }>('office.printedQrs', { page: 99 });
    expect(beyond).toMatchObject({ page: 99, rows: [] });
  });
});

describe('a token without what administration needs (reference 5, point 5)', () => {
  it.each([
    ['without the pay-in scope', FIXTURE_TOKENS.payout, 'office_scope', /pay-in scope/],
    ['whose user is not a manager', FIXTURE_TOKENS.cashier, 'office_role', /manager role/],
  ])('%s says exactly that', async (_name, token, problem, words) => {
    const dir = await mkdtemp(join(tmpdir(), 'pos-office-token-'));
    const other = await composeCore(loadConfig({ POS_DATA_DIR: dir, POS_LANG: 'en', POS_SERVICE_URL: base, POS_SERVICE_TOKEN: token }, []), { log });
    try {
      await other.start();
      const dispatch = await dispatcherAs(other, await managerSession(other));
      const envelope = await dispatch('office.stores', undefined);
      expect(envelope).toMatchObject({ ok: false, error: { params: { problem } } });
      expect(envelope.ok ? '' : envelope.error.message).toMatch(words);
    } finally {
      await other.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
