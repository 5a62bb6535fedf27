/**
 * How long a sign-in lives (issue 25, point 1): the one rule both shells and the core apply.
 *
 * Time here is the session clock the core is given, a monotonic one by default, not the
 * core's domain clock: idle is how long no one touched this till, a duration of the machine's
 * own time. The domain clock is the payment service's and jumps (the sandbox's clock is moved
 * forward past a sale's expiry in every demo and test; a real computer's wall clock is set
 * back or forward by the OS), which must neither sign a cashier out nor keep one signed in.
 */

/**
 * A connection that drops (a tablet's Wi-Fi, a page put to sleep, its core restarted or taken
 * over) finds its sign-in again this long after the drop, or after the core that answers it
 * took over (issue 23: operators.resume).
 */
export const RESUME_GRACE_MS = 2 * 60_000;

/**
 * Past `lockMinutes` since the operator's last act the sign-in is over (0 = never). Acts are
 * the sign-in and what the page reports of a person at it (a key, a touch: `auth.active`),
 * never a push the core sends or a read the page makes by itself, or the limit would mean
 * nothing on a till whose screen refreshes all day.
 */
export function idlePast(activeAt: number | null, now: number, lockMinutes: number): boolean {
  if (!(lockMinutes > 0) || activeAt === null) return false;
  return now - activeAt >= lockMinutes * 60_000;
}

/** Whether a page reconnecting after a drop at `droppedAt` may take its sign-in back. */
export function mayResume(droppedAt: number, now: number): boolean {
  return now - droppedAt <= RESUME_GRACE_MS;
}
