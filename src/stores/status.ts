import { create } from 'zustand';
import { isLang, type CoreStatus, type Lang } from '../../electron/core/contract.ts';
import { BridgeError, getBridge, type ConnectionState } from '../lib/bridge.ts';

/** Server truth about the terminal, mirrored from the core; the renderer decides nothing. */
interface StatusState {
  status: CoreStatus | null;
  connection: ConnectionState;
  error: string | null;
  lang: Lang;
  refresh(): Promise<void>;
  checkService(): Promise<void>;
  setLang(lang: Lang): Promise<void>;
}

/** Until the core says which language the terminal uses, follow the browser's, else pt-BR. */
export function initialLang(preferred: readonly string[]): Lang {
  for (const tag of preferred) {
    if (isLang(tag)) return tag;
    const base = tag.split('-')[0];
    if (base === 'pt') return 'pt-BR';
    if (isLang(base)) return base;
  }
  return 'pt-BR';
}

export const useStatus = create<StatusState>()((set) => ({
  status: null,
  connection: 'connecting',
  error: null,
  lang: initialLang(typeof navigator === 'undefined' ? [] : navigator.languages),
  async refresh() {
    try {
      const status = await getBridge().call('core.status');
      set({ status, lang: status.lang, error: null });
    } catch (err) {
      set({ error: err instanceof BridgeError ? err.message : String(err) });
    }
  },
  async checkService() {
    try {
      const status = await getBridge().call('core.checkService');
      set({ status, error: null });
    } catch (err) {
      set({ error: err instanceof BridgeError ? err.message : String(err) });
    }
  },
  async setLang(lang) {
    const status = await getBridge().call('settings.setLang', { lang });
    set({ status, lang: status.lang });
  },
}));

/** Wires the store to the core's push events; returns the unsubscribe function. */
export function connectStatus(): () => void {
  const bridge = getBridge();
  const offStatus = bridge.listen('core.status', (status) => useStatus.setState({ status, lang: status.lang }));
  const offConnection = bridge.onConnection((connection) => {
    useStatus.setState({ connection });
    if (connection === 'open') void useStatus.getState().refresh();
  });
  return () => {
    offStatus();
    offConnection();
  };
}
