import type { TextKey } from './i18n.ts';

/** What the core takes as a PIN (electron/core/operators/pin.ts): 4 to 8 digits. */
export const PIN_SHAPE = /^\d{4,8}$/;

/**
 * What is wrong with a PIN being set, typed twice (issue 26: wherever a PIN is set, it is
 * repeated, so a slip of the finger does not lock a person out). `optional`: an empty pair
 * keeps the PIN there is (a manager changing only a role). The core judges the rest (a PIN
 * too easy to guess).
 */
export function newPinProblem(pin: string, repeat: string, opts: { optional: boolean }): TextKey | null {
  if (opts.optional && pin === '' && repeat === '') return null;
  if (!PIN_SHAPE.test(pin)) return 'auth.pinRule';
  if (repeat === '') return 'auth.repeatPinEmpty';
  if (repeat !== pin) return 'auth.pinsDiffer';
  return null;
}
