import type { StoreApi, UseBoundStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';

/**
 * Several fields of one store in one subscription: the component renders again when one of
 * them changes, not when another field of the store does.
 */
export function usePick<S, K extends keyof S>(useStore: UseBoundStore<StoreApi<S>>, ...keys: K[]): Pick<S, K> {
  return useStore(useShallow((s) => Object.fromEntries(keys.map((k) => [k, s[k]])) as Pick<S, K>));
}
