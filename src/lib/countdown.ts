/**
 * The sale's countdown on the core's clock, not the renderer's. `coreNow` is the `now` the
 * core put in the view; `receivedAt` and `localNow` are a monotonic local clock
 * (performance.now) read when the view arrived and now. In the sandbox the core's clock can
 * be moved forward by tests, so Date.now() alone would show the wrong time left.
 */
export function remainingMs(expiresAt: number, coreNow: number, receivedAt: number, localNow: number): number {
  const elapsed = Math.max(0, localNow - receivedAt);
  return Math.max(0, expiresAt - coreNow - elapsed);
}

/** "4:59", "0:05", "0:00": whole seconds rounded up, so 0:00 only once the time is over. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return `${minutes}:${String(seconds).padStart(2, '0')}`;
}

/** Below this the countdown is shown as urgent (with a word, not only a colour). */
export const URGENT_MS = 60_000;
