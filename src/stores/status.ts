import { create } from 'zustand';
import { isLang, type CoreStatus, type Lang, type ResultOf, type ShiftView } from '../../electron/core/contract.ts';
import { getBridge, type ConnectionState } from '../lib/bridge.ts';
import type { UiError } from '../lib/errorText.ts';
import { onLangSaved, saveLang, savedLang, spokenLang } from '../lib/langPreference.ts';
import { isTill, useDevice } from './device.ts';
import { readStep } from './steps.ts';

export type SettingsView = ResultOf<'settings.get'>;
export type SettingsPatch = Partial<Pick<SettingsView, 'lang' | 'storeId' | 'checkoutId'>>;

/**
 * Server truth about the terminal and its settings, mirrored from the core; the renderer
 * decides nothing. The core pushes `core.status` whenever it changes (shift, checkout,
 * health), so the store mostly listens. Who is signed in is this window's own (stores/auth.ts).
 */
interface StatusState {
  status: CoreStatus | null;
  connection: ConnectionState;
  error: UiError | null;
  /** The language this page speaks: the device's own choice, else the store's default (status.lang). */
  lang: Lang;
  /** This device's own choice (lib/langPreference.ts), or null to follow the store's default. */
  own: Lang | null;
  refresh(): Promise<void>;
  checkService(): Promise<void>;
  /** This device's language, kept on the device: no call to the core (issue 25). */
  setLang(lang: Lang): void;
  /** The store's default language, a manager's setting. */
  setDefaultLang(lang: Lang): Promise<void>;
  updateSettings(patch: SettingsPatch): Promise<SettingsView>;
}

/** Until the core says the store's default language, follow the browser's, else pt-BR. */
export function initialLang(preferred: readonly string[]): Lang {
  for (const tag of preferred) {
    if (isLang(tag)) return tag;
    const base = tag.split('-')[0];
    if (base === 'pt') return 'pt-BR';
    if (isLang(base)) return base;
  }
  return 'pt-BR';
}

const ownAtStart = savedLang();

export const useStatus = create<StatusState>()((set, get) => ({
  status: null,
  connection: 'connecting',
  error: null,
  own: ownAtStart,
  lang: ownAtStart ?? initialLang(typeof navigator === 'undefined' ? [] : navigator.languages),
  refresh: () =>
    readStep(set, async () => {
      const status = await getBridge().call('core.status');
      return { status, lang: spokenLang(get().own, status.lang), error: null };
    }),
  checkService: () => readStep(set, async () => ({ status: await getBridge().call('core.checkService'), error: null })),
  setLang(lang) {
    saveLang(lang);
    set({ own: lang, lang });
  },
  async setDefaultLang(lang) {
    const status = await getBridge().call('settings.setLang', { lang });
    set({ status, lang: spokenLang(get().own, status.lang) });
  },
  async updateSettings(patch) {
    const settings = await getBridge().call('settings.update', patch);
    // The core pushes the new status too; this makes the change visible without waiting.
    set((s) => ({
      lang: spokenLang(s.own, settings.lang),
      status: s.status
        ? { ...s.status, lang: settings.lang, terminal: { storeId: settings.storeId, checkoutId: settings.checkoutId } }
        : s.status,
    }));
    return settings;
  },
}));

// Selectors: components subscribe to the smallest piece they show.
export const selectTerminal = (s: StatusState): CoreStatus['terminal'] | null => s.status?.terminal ?? null;
export const selectShift = (s: StatusState): ShiftView | null => s.status?.shift ?? null;
export const selectReady = (s: StatusState): boolean => s.connection === 'open' && s.status?.state === 'ready';

/** Wires the store to the core's push events; returns the unsubscribe function. */
export function connectStatus(): () => void {
  const bridge = getBridge();
  const offStatus = bridge.listen('core.status', (status) => useStatus.setState((s) => ({ status, lang: spokenLang(s.own, status.lang) })));
  // Another page of this device chose a language (the store computer's windows share one choice).
  const offSaved = onLangSaved((lang) => useStatus.setState({ own: lang, lang }));
  const offConnection = bridge.onConnection((connection) => {
    useStatus.setState({ connection });
    // An unpaired device or a customer display may not read a till's status (the core refuses).
    if (connection === 'open' && isTill(useDevice.getState())) void useStatus.getState().refresh();
  });
  return () => {
    offStatus();
    offSaved();
    offConnection();
  };
}
