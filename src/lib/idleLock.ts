/**
 * The till locks itself after a time without a key or a touch. Measured here, in the window
 * the person uses, on real time (the browser's timers): moving the payment service's clock
 * never locks it, and a push from the core (a sale paid) is not someone at the till.
 */
export const ACTIVITY_EVENTS = ['keydown', 'pointerdown', 'touchstart', 'wheel'] as const;

/**
 * The core keeps its own idle limit (issue 25, electron/core/operators/sessions.ts), which
 * only a person's act resets: the page reports a key or a touch as `auth.active`, at once
 * and then at most this often. Never on a timer: a page left alone reports nothing.
 */
export const ACTIVITY_REPORT_MS = 20_000;

export interface IdleTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: IdleTimers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Calls onIdle once after `minutes` without activity on `target`; 0 = never. Returns the stop function. */
export function watchIdle(options: {
  minutes: number;
  target: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;
  onIdle: () => void;
  /** A person acted: told at the first act, then at most every ACTIVITY_REPORT_MS. */
  onActivity?: () => void;
  timers?: IdleTimers;
}): () => void {
  const { minutes, target, onIdle, onActivity } = options;
  const timers = options.timers ?? realTimers;
  if (!(minutes > 0)) return () => undefined;
  let handle: unknown = null;
  let quiet: unknown = null;
  const report = () => {
    if (!onActivity || quiet !== null) return;
    onActivity();
    quiet = timers.set(() => {
      quiet = null;
    }, ACTIVITY_REPORT_MS);
  };
  const acted = () => {
    report();
    arm();
  };
  const arm = () => {
    if (handle !== null) timers.clear(handle);
    handle = timers.set(() => {
      handle = null;
      stop();
      onIdle();
    }, minutes * 60_000);
  };
  const stop = () => {
    if (handle !== null) timers.clear(handle);
    if (quiet !== null) timers.clear(quiet);
    handle = null;
    quiet = null;
    for (const name of ACTIVITY_EVENTS) target.removeEventListener(name, acted, { capture: true } as EventListenerOptions);
  };
  for (const name of ACTIVITY_EVENTS) target.addEventListener(name, acted, { capture: true, passive: true });
  arm();
  return stop;
}
