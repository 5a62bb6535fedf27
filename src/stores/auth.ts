import { create } from 'zustand';
import type { AuthStatus, Role } from '../../electron/core/contract.ts';
import { getBridge, onSignedOut, toUiError } from '../lib/bridge.ts';
import type { UiError } from '../lib/errorText.ts';
import { isTill, useDevice } from './device.ts';
import { busyStep, readStep } from './steps.ts';

/**
 * Who is signed in on this window, as the core says (each window's connection carries its
 * own sign-in). The core is the guard; this store only decides which screen to show.
 */
interface AuthState {
  /** null until the core has answered. */
  auth: AuthStatus | null;
  busy: boolean;
  error: UiError | null;
  /** The till signed its operator out after this many idle minutes (shown on Sign in). */
  idleLockedAfter: number | null;
  refresh(): Promise<void>;
  createFirstManager(name: string, pin: string): Promise<boolean>;
  signIn(name: string, pin: string): Promise<boolean>;
  signOut(reason?: 'by_hand' | 'idle'): Promise<void>;
}

export const useAuth = create<AuthState>()((set, get) => {
  const enter = (run: () => Promise<AuthStatus>): Promise<boolean> => busyStep(set, ['busy', 'error'], async () => set({ auth: await run(), idleLockedAfter: null }));
  return {
    auth: null,
    busy: false,
    error: null,
    idleLockedAfter: null,
    refresh: () => readStep(set, async () => ({ auth: await getBridge().call('auth.status') })),
    createFirstManager: (name, pin) => enter(() => getBridge().call('auth.createFirstManager', { name: name.trim(), pin })),
    signIn: (name, pin) => enter(() => getBridge().call('auth.signIn', { name: name.trim(), pin })),
    async signOut(reason = 'by_hand') {
      const minutes = get().auth?.lockMinutes ?? null;
      try {
        set({ auth: await getBridge().call('auth.signOut', { reason }), error: null, idleLockedAfter: reason === 'idle' ? minutes : null });
      } catch (err) {
        // Whatever the answer, this window shows Sign in: the core refuses its calls anyway.
        set((s) => ({ auth: s.auth ? { ...s.auth, operator: null } : s.auth, error: toUiError(err) }));
      }
    },
  };
});

export const selectRole = (s: AuthState): Role | null => s.auth?.operator?.role ?? null;

/** Follows the connection: a new one (a reload, a restarted app) asks the core who is signed in. */
export function connectAuth(): () => void {
  const bridge = getBridge();
  const offConnection = bridge.onConnection((connection) => {
    if (connection === 'open' && isTill(useDevice.getState())) void useAuth.getState().refresh();
  });
  const offSignedOut = onSignedOut(() => void useAuth.getState().refresh());
  // The core ended this page's sign-in (idle, a manager's change): Sign in at once, saying why.
  const offChanged = bridge.listen('auth.changed', (auth) => useAuth.setState({ auth }));
  // Another device on this page (paired, revoked): whoever was signed in is not any more.
  let who: string | null = null;
  const offDevice = bridge.onDevice(({ connection, device }) => {
    const now = `${connection}:${device?.id ?? ''}`;
    if (who !== null && who !== now) useAuth.setState({ auth: null, error: null });
    who = now;
  });
  return () => {
    offConnection();
    offSignedOut();
    offChanged();
    offDevice();
  };
}
