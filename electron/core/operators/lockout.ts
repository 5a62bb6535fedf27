/**
 * How wrong PINs lock an operator (issue 25, point 2): the one rule, pure, on the core's
 * clock. The lock is the operator's, not a till's: the book is the core's, so guessing from
 * many tills at once counts against the same operator, and sign-ins are checked one at a
 * time (operators.ts), so parallel guesses do not slip under it.
 *
 * Five wrong PINs in a row lock for five minutes; each further lock in the same day doubles
 * (5, 10, 20 minutes); the twentieth wrong PIN within a day locks until a manager unlocks
 * (journaled in their name). With a 4-digit PIN that is 20 guesses a day at most: 1 chance
 * in 500, where an attacker at a till could otherwise try every PIN in an afternoon.
 */
export const LOCK_AFTER_FAILURES = 5;
export const FIRST_LOCK_MS = 5 * 60_000;
export const DAY_MS = 24 * 60 * 60_000;
/** Wrong PINs within a day after which only a manager's unlock lets the operator in again. */
export const MANAGER_UNLOCK_AFTER = 20;

/** What the rule needs of an operator: the journal's facts, as the registry folds them. */
export interface LockoutState {
  /** Wrong PINs since the last sign-in, lock, new PIN or unlock. */
  failures: number;
  /** When each wrong PIN of the last day was typed (core clock, epoch ms). */
  failed_at: readonly number[];
  /** When each timed lock of the last day began. */
  locked_at: readonly number[];
}

export type Lockout = { kind: 'none' } | { kind: 'timed'; until: number } | { kind: 'manager' };

/** Times within the day before `now`: older ones no longer count. */
export function withinDay(times: readonly number[], now: number): number[] {
  return times.filter((t) => t > now - DAY_MS && t <= now);
}

/** The lock a wrong PIN typed at `now` brings, `state` already counting that wrong PIN. */
export function lockAfterWrongPin(state: LockoutState, now: number): Lockout {
  if (withinDay(state.failed_at, now).length >= MANAGER_UNLOCK_AFTER) return { kind: 'manager' };
  if (state.failures < LOCK_AFTER_FAILURES) return { kind: 'none' };
  const earlierLocks = withinDay(state.locked_at, now).length;
  return { kind: 'timed', until: now + FIRST_LOCK_MS * 2 ** earlierLocks };
}
