/**
 * Time comes from an injected clock so tests can move it. Every module that needs
 * "now" takes a Clock; nothing outside this file calls Date.now() for domain time.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * Real time plus an offset that only grows: the sandbox's clock. It starts at the real
 * time, keeps running, and `advance` jumps it forward (contract 7: it moves only forward).
 */
export class OffsetClock implements Clock {
  #offsetMs = 0;
  readonly #base: Clock;
  constructor(base: Clock = systemClock) {
    this.#base = base;
  }
  now(): number {
    return this.#base.now() + this.#offsetMs;
  }
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward');
    this.#offsetMs += ms;
  }
  get offsetMs(): number {
    return this.#offsetMs;
  }
  /** Restores a persisted offset; never moves the clock backwards. */
  restoreOffset(ms: number): void {
    if (ms > this.#offsetMs) this.#offsetMs = ms;
  }
}

/** A clock that stands still until told to move: for unit tests. */
export class ManualClock implements Clock {
  #now: number;
  constructor(startMs = Date.UTC(2026, 10, 21, 13, 45, 0)) {
    this.#now = startMs;
  }
  now(): number {
    return this.#now;
  }
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward');
    this.#now += ms;
  }
  set(ms: number): void {
    this.#now = ms;
  }
}

/**
 * Epoch-like milliseconds that only move forward with the machine's own time, whatever the
 * OS clock is set to: for durations measured at a till (its idle time), never for domain time.
 */
export const monotonicClock: Clock = { now: () => performance.timeOrigin + performance.now() };
