import { describe, expect, it } from 'vitest';
import { BridgeError } from '../lib/bridge.ts';
import type { UiError } from '../lib/errorText.ts';
import { busyStep, readStep } from './steps.ts';

interface State {
  busy: boolean;
  error: UiError | null;
  value: number;
  pending: number;
}

/** A store's state and every partial set into it, in order. */
function store() {
  const state: State = { busy: false, error: { code: 'internal', message: 'an earlier failure' }, value: 0, pending: 0 };
  const sets: Partial<State>[] = [];
  const set = (partial: Partial<State>) => {
    sets.push(partial);
    Object.assign(state, partial);
  };
  return { state, sets, set };
}

describe('busyStep', () => {
  it('is busy while the step runs, clears the last error first, and says it went through', async () => {
    const { state, set } = store();
    let busyDuring = false;
    const ok = await busyStep(set, ['busy', 'error'], async () => {
      busyDuring = state.busy;
      set({ value: 1 });
    });
    expect(ok).toBe(true);
    expect(busyDuring).toBe(true);
    expect(state).toEqual({ busy: false, error: null, value: 1, pending: 0 });
  });

  it('keeps why the step failed and is no longer busy', async () => {
    const { state, set } = store();
    const ok = await busyStep(set, ['busy', 'error'], () => Promise.reject(new BridgeError({ code: 'conflict', message: 'the shift is closed' })));
    expect(ok).toBe(false);
    expect(state.busy).toBe(false);
    expect(state.error?.code).toBe('conflict');
  });

  it('lets a failure that is an answer (a question to ask) leave something else than an error', async () => {
    const { state, set } = store();
    const ok = await busyStep(set, ['busy', 'error'], () => Promise.reject(new Error('pending sale')), () => ({ pending: 2 }));
    expect(ok).toBe(false);
    expect(state).toEqual({ busy: false, error: null, value: 0, pending: 2 });
  });
});

describe('readStep', () => {
  it('puts what the read returns into the store, and a failure into its error', async () => {
    const { state, set } = store();
    await readStep(set, async () => ({ value: 7 }));
    expect(state.value).toBe(7);
    await readStep(set, () => Promise.reject(new BridgeError({ code: 'not_ready', message: 'the core is starting' })));
    expect(state.error?.code).toBe('not_ready');
    expect(state.value).toBe(7);
  });
});
