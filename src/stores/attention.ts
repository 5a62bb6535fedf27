import { create } from 'zustand';
import type { ClaimNotice, SaleSummary, SettlementNotice } from '../../electron/core/contract.ts';
import { mayUse } from '../../electron/core/contract.ts';
import { getBridge } from '../lib/bridge.ts';
import { selectRole, useAuth } from './auth.ts';
import { isTill, useDevice } from './device.ts';
import { useStatus } from './status.ts';

/**
 * The merchant-wide list of sales that need a person, for a supervisor or a manager signed in
 * on any till (`attention.list` and the `attention.changed` push). A cashier's list is their
 * checkout's, from the checkout view: `items` stays null for them.
 */
interface AttentionState {
  items: SaleSummary[] | null;
  /** MED claims whose status moved in the last day (issue 12); empty for a cashier. */
  claims: ClaimNotice[];
  /** Settlements that need a person (issue 11); empty for a cashier. */
  settlements: SettlementNotice[];
  load(): Promise<void>;
}

export const useAttention = create<AttentionState>()((set) => ({
  items: null,
  claims: [],
  settlements: [],
  async load() {
    try {
      const view = await getBridge().call('attention.list');
      set({ items: view.items, claims: view.claims, settlements: view.settlements });
    } catch {
      // Signed out, or the role changed meanwhile: the list follows the sign-in again.
    }
  },
}));

const followsMerchant = () => isTill(useDevice.getState()) && mayUse(selectRole(useAuth.getState()), 'supervisor');

/** Wires the list to the core: loaded on sign-in and reconnection, then pushed. */
export function connectAttention(): () => void {
  const bridge = getBridge();
  const offChanged = bridge.listen('attention.changed', (view) => {
    if (followsMerchant()) useAttention.setState({ items: view.items, claims: view.claims, settlements: view.settlements });
  });
  let was = false;
  const follow = () => {
    const now = followsMerchant() && useStatus.getState().connection === 'open';
    if (now && !was) void useAttention.getState().load();
    if (!followsMerchant() && useAttention.getState().items !== null) useAttention.setState({ items: null, claims: [], settlements: [] });
    was = now;
  };
  const offAuth = useAuth.subscribe(follow);
  const offStatus = useStatus.subscribe(follow);
  const offDevice = useDevice.subscribe(follow);
  follow();
  return () => {
    offChanged();
    offAuth();
    offStatus();
    offDevice();
  };
}
