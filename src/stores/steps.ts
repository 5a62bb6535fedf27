import { toUiError } from '../lib/bridge.ts';
import type { UiError } from '../lib/errorText.ts';

type Set<S> = (partial: Partial<S>) => void;

/**
 * A store's step that a person waits for (sign in, pair, open a shift): `busy` is up while it
 * runs and `error` holds why it failed, cleared as it starts; true once it went through.
 * `failure` says what a failure leaves in the store, when it is more than the error.
 */
export async function busyStep<S>(set: Set<S>, [busy, error]: readonly [keyof S, keyof S], run: () => Promise<unknown>, failure?: (err: unknown) => Partial<S>): Promise<boolean> {
  set({ [busy]: true, [error]: null } as Partial<S>);
  try {
    await run();
    return true;
  } catch (err) {
    set(failure ? failure(err) : ({ [error]: toUiError(err) } as Partial<S>));
    return false;
  } finally {
    set({ [busy]: false } as Partial<S>);
  }
}

/** A read in the background: what it returns goes into the store, a failure into the store's `error`. */
export async function readStep<S extends { error: UiError | null }>(set: Set<S>, run: () => Promise<Partial<S> | void>): Promise<void> {
  try {
    const next = await run();
    if (next) set(next);
  } catch (err) {
    set({ error: toUiError(err) } as Partial<S>);
  }
}
