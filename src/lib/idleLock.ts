/**
 * The till locks itself after a time without a key or a touch. Measured here, in the window
 * the person uses, on real time (the browser's timers): moving the payment service's clock
 * never locks it, and a push from the core (a sale paid) is not someone at the till.
 */
export const ACTIVITY_EVENTS = ['keydown', 'pointerdown', 'touchstart', 'wheel'] as const;

export interface IdleTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: IdleTimers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Calls onIdle once after `minutes` without activity on `target`; 0 = never. Returns the stop function. */
export function watchIdle(options: { minutes: number; target: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>; onIdle: () => void; timers?: IdleTimers }): () => void {
  const { minutes, target, onIdle } = options;
  const timers = options.timers ?? realTimers;
  if (!(minutes > 0)) return () => undefined;
  let handle: unknown = null;
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
    handle = null;
    for (const name of ACTIVITY_EVENTS) target.removeEventListener(name, arm, { capture: true } as EventListenerOptions);
  };
  for (const name of ACTIVITY_EVENTS) target.addEventListener(name, arm, { capture: true, passive: true });
  arm();
  return stop;
}
