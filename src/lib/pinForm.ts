import { pinSetProblem } from '../../electron/shared/form-rules.ts';
import type { TextKey } from './i18n.ts';

export type PinFormField = 'pin' | 'repeat';

/**
 * What is wrong with each of the two fields of a PIN being set, typed twice (issue 26:
 * wherever a PIN is set, it is repeated, so a slip of the finger does not lock a person out),
 * said beside the field before anything is sent. The PIN by the core's own rule
 * (electron/shared/form-rules.ts: 4 to 8 digits, not one a person guesses first); the repeat
 * only once the PIN itself is right. `optional`: an empty pair keeps the PIN there is (a
 * manager changing only a role).
 */
export function pinFieldProblems(pin: string, repeat: string, opts: { optional: boolean }): Partial<Record<PinFormField, TextKey>> {
  if (opts.optional && pin === '' && repeat === '') return {};
  const problem = pinSetProblem(pin);
  if (problem === 'pin_shape') return { pin: 'auth.pinRule' };
  if (problem !== null) return { pin: 'error.problem.trivial_pin' };
  if (repeat === '') return { repeat: 'auth.repeatPinEmpty' };
  if (repeat !== pin) return { repeat: 'auth.pinsDiffer' };
  return {};
}

/** The first of those problems (the PIN's, then the repeat's), or null. */
export function newPinProblem(pin: string, repeat: string, opts: { optional: boolean }): TextKey | null {
  const problems = pinFieldProblems(pin, repeat, opts);
  return problems.pin ?? problems.repeat ?? null;
}
