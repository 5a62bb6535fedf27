/**
 * Issue 26 point 6 through the shells' dispatcher, as a signed-in manager, on a real core and
 * its embedded sandbox: a store's customer language is the poster's and its displays', kept
 * in the journal in the manager's name, whatever the merchant's default (here `en`) says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import type { Core, DisplayView } from '../core.ts';
import type { Envelope } from '../errors.ts';
import { memoryLogger } from '../log.ts';
import { dispatcherAs } from '../operators/fixtures/sign-in.ts';
import { startCoreOnSandbox, type CoreOnSandbox } from '../terminal/fixtures/core.ts';
import type { Poster } from './backoffice.ts';
import { CustomerLangs, OFFICE_CUSTOMER_LANG_SET, type CustomerLangView } from './customer-lang.ts';

const log = memoryLogger(systemClock);
let env: CoreOnSandbox;
let core: Core;
let call: (method: string, args?: unknown) => Promise<Envelope<unknown>>;

beforeAll(async () => {
  env = await startCoreOnSandbox('customer-lang', log, { secondCheckout: false });
  core = env.core;
  const dispatch = await dispatcherAs(core);
  call = (method, args) => dispatch(method, args);
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

async function ok<T>(method: string, args?: unknown): Promise<T> {
  const envelope = await call(method, args);
  if (!envelope.ok) throw new Error(`${method} failed: ${JSON.stringify(envelope.error)}`);
  return envelope.result as T;
}

const KEY = { storeId: 1, checkoutId: 1 };

describe('a store’s customer language', () => {
  it('is the merchant’s default until a manager chooses one', async () => {
    expect(await ok<CustomerLangView>('office.customerLang', { storeId: 1 })).toEqual({ store_id: 1, lang: 'en', chosen: false });
    expect(await ok<Poster>('office.poster', KEY)).toMatchObject({ lang: 'en' });
    expect((await core.displayView(KEY)).lang).toBe('en');
  });

  it('once chosen, is the poster’s and the display’s, pushed to the store’s displays at once, and journaled in the manager’s name', async () => {
    const pushed: DisplayView[] = [];
    const off = core.events.on('display.changed', (view) => pushed.push(view));
    try {
      expect(await ok<CustomerLangView>('office.setCustomerLang', { storeId: 1, lang: 'pt-BR' })).toEqual({ store_id: 1, lang: 'pt-BR', chosen: true });
    } finally {
      off();
    }
    expect(pushed.filter((v) => v.store_id === 1 && v.checkout_id === 1).map((v) => v.lang)).toEqual(['pt-BR']);
    expect((await core.displayView(KEY)).lang).toBe('pt-BR');
    const poster = await ok<Poster>('office.poster', KEY);
    const store = (await core.backOffice.stores()).find((s) => s.store_id === 1);
    expect(poster).toMatchObject({ lang: 'pt-BR', store_name: store?.store_name, address: store?.address || null });
    expect((await core.journal.eventsOfType(OFFICE_CUSTOMER_LANG_SET)).map((e) => e.data)).toEqual([{ by: 'Marta', store_id: 1, lang: 'pt-BR' }]);
  });

  it('stays when the merchant’s default changes, while a store nobody chose for follows the default', async () => {
    const other = await ok<{ store_id: number }>('office.createStore', { name: 'Loja Leste', address: 'Rua das Flores, 10', phone: '', email: '' });
    await ok('settings.setLang', { lang: 'es' });
    try {
      expect((await core.displayView(KEY)).lang).toBe('pt-BR');
      expect(await ok<CustomerLangView>('office.customerLang', { storeId: other.store_id })).toEqual({ store_id: other.store_id, lang: 'es', chosen: false });
    } finally {
      await ok('settings.setLang', { lang: 'en' });
    }
  });

  it('choosing the same language again journals nothing', async () => {
    const before = (await core.journal.eventsOfType(OFFICE_CUSTOMER_LANG_SET)).length;
    await ok('office.setCustomerLang', { storeId: 1, lang: 'pt-BR' });
    expect(await core.journal.eventsOfType(OFFICE_CUSTOMER_LANG_SET)).toHaveLength(before);
  });

  it.each([
    ['a store the merchant does not have', { storeId: 9999, lang: 'es' }, 'not_found'],
    ['a language the app does not speak', { storeId: 1, lang: 'fr' }, 'invalid_argument'],
    ['no store', { lang: 'es' }, 'invalid_argument'],
  ])('refuses %s with a sentence, and changes nothing', async (_name, args, code) => {
    const before = (await core.journal.eventsOfType(OFFICE_CUSTOMER_LANG_SET)).length;
    const envelope = await call('office.setCustomerLang', args);
    expect(envelope).toMatchObject({ ok: false, error: { code } });
    expect(envelope.ok ? '' : envelope.error.message).toMatch(/^\S.{10,}[.)]$/s);
    expect(await core.journal.eventsOfType(OFFICE_CUSTOMER_LANG_SET)).toHaveLength(before);
    expect((await core.displayView(KEY)).lang).toBe('pt-BR');
  });

  it('is read back from the journal, as at the next start', async () => {
    const again = new CustomerLangs();
    await again.load(core.journal);
    expect(again.view(1, 'en')).toEqual({ store_id: 1, lang: 'pt-BR', chosen: true });
  });
});
