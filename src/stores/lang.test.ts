import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CoreStatus, DisplayView } from '../../electron/core/contract.ts';
import { LANG_KEY, onLangSaved, saveLang, savedLang } from '../lib/langPreference.ts';
import { useDisplay } from './display.ts';
import { preloadStub } from './fixtures/preload-stub.ts';
import { useStatus } from './status.ts';
import { memoryStorage } from '../lib/fixtures/storage.ts';

/**
 * Issue 25: the header's language is this device's own, kept on the device, never the
 * merchant's; the store's default (a manager's setting) is what a device with no choice speaks.
 */
const core = preloadStub((method, args): [string, unknown] => [method, args]);
const { answers, calls } = core;
beforeAll(core.install);

const status = (lang: CoreStatus['lang']) => ({ state: 'ready', lang, terminal: { storeId: 1, checkoutId: 1 } }) as unknown as CoreStatus;
const display = (lang: DisplayView['lang'], now: number): DisplayView => ({ store_id: 1, checkout_id: 1, now, lang, screen: { kind: 'idle' }, hold: false });

describe('this device’s language', () => {
  beforeEach(() => {
    calls.length = 0;
    for (const k of Object.keys(answers)) delete answers[k];
    useStatus.setState({ own: null, lang: 'pt-BR', status: null });
    useDisplay.setState({ view: null, receivedAt: 0 });
  });

  it('is chosen with no call to the core, and a push of the store’s default does not undo it', async () => {
    useStatus.getState().setLang('es');
    expect(calls).toEqual([]);
    expect(useStatus.getState()).toMatchObject({ own: 'es', lang: 'es' });
    answers['core.status'] = () => ({ ok: true, result: status('en') });
    await useStatus.getState().refresh();
    expect(useStatus.getState()).toMatchObject({ lang: 'es', status: { lang: 'en' } });
  });

  it('is not the customer display’s: a display speaks the language of the store’s customers its view carries (issue 26)', () => {
    useStatus.getState().setLang('es');
    useDisplay.getState().receive(display('en', 1));
    expect(useStatus.getState().lang).toBe('en');
    useDisplay.getState().receive(display('pt-BR', 2));
    expect(useStatus.getState().lang).toBe('pt-BR');
    expect(useStatus.getState().own).toBe('es');
  });

  it('with none chosen, follows the store’s default, which a manager changes', async () => {
    answers['core.status'] = () => ({ ok: true, result: status('en') });
    await useStatus.getState().refresh();
    expect(useStatus.getState().lang).toBe('en');
    answers['settings.setLang'] = (args) => ({ ok: true, result: status((args as { lang: CoreStatus['lang'] }).lang) });
    await useStatus.getState().setDefaultLang('es');
    expect(calls.at(-1)).toEqual(['settings.setLang', { lang: 'es' }]);
    expect(useStatus.getState().lang).toBe('es');
    useDisplay.getState().receive(display('pt-BR', 2));
    expect(useStatus.getState().lang).toBe('pt-BR');
  });

  it('is kept in the device’s storage; anything else there is no choice', () => {
    const storage = memoryStorage();
    expect(savedLang(storage)).toBeNull();
    saveLang('en', storage);
    expect(storage.getItem(LANG_KEY)).toBe('en');
    expect(savedLang(storage)).toBe('en');
    for (const junk of ['fr', '', 'EN', '{"lang":"en"}']) {
      storage.setItem(LANG_KEY, junk);
      expect(savedLang(storage), junk).toBeNull();
    }
    expect(savedLang(null)).toBeNull();
    expect(() => saveLang('es', null)).not.toThrow();
  });

  it('followed by the device’s other pages (the store computer’s till windows share one choice)', () => {
    const listeners = new Map<string, (e: unknown) => void>();
    const target = { addEventListener: (type: string, fn: (e: unknown) => void) => listeners.set(type, fn), removeEventListener: (type: string) => listeners.delete(type) };
    const heard: string[] = [];
    const off = onLangSaved((lang) => heard.push(lang), target as never);
    listeners.get('storage')?.({ key: LANG_KEY, newValue: 'es' });
    listeners.get('storage')?.({ key: 'other', newValue: 'en' });
    listeners.get('storage')?.({ key: LANG_KEY, newValue: 'klingon' });
    expect(heard).toEqual(['es']);
    off();
    expect(listeners.has('storage')).toBe(false);
  });
});
