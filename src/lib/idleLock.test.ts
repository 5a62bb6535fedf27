import { describe, expect, it } from 'vitest';
import { watchIdle, type IdleTimers } from './idleLock.ts';

/** Timers a test fires by hand: the lock's time is the window's, never the core's clock. */
function handTimers() {
  let now = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  let next = 1;
  const timers: IdleTimers = {
    set: (fn, ms) => {
      pending.set(next, { at: now + ms, fn });
      return next++;
    },
    clear: (handle) => pending.delete(handle as number),
  };
  return {
    timers,
    pass(ms: number) {
      now += ms;
      for (const [id, t] of [...pending]) {
        if (t.at <= now) {
          pending.delete(id);
          t.fn();
        }
      }
    },
    get armed() {
      return pending.size;
    },
  };
}

describe('the idle lock', () => {
  it('locks after the minutes without a key or a touch, once', () => {
    const hand = handTimers();
    const target = new EventTarget();
    let locked = 0;
    watchIdle({ minutes: 10, target, timers: hand.timers, onIdle: () => locked++ });
    hand.pass(9 * 60_000);
    expect(locked).toBe(0);
    hand.pass(60_000);
    expect(locked).toBe(1);
    target.dispatchEvent(new Event('keydown'));
    hand.pass(20 * 60_000);
    expect(locked).toBe(1);
    expect(hand.armed).toBe(0);
  });

  it.each(['keydown', 'pointerdown', 'touchstart', 'wheel'])('a %s starts the minutes again', (name) => {
    const hand = handTimers();
    const target = new EventTarget();
    let locked = 0;
    watchIdle({ minutes: 10, target, timers: hand.timers, onIdle: () => locked++ });
    hand.pass(9 * 60_000);
    target.dispatchEvent(new Event(name));
    hand.pass(9 * 60_000);
    expect(locked).toBe(0);
    hand.pass(60_000);
    expect(locked).toBe(1);
  });

  it('never locks with 0 minutes, and stops when told', () => {
    const hand = handTimers();
    let locked = 0;
    watchIdle({ minutes: 0, target: new EventTarget(), timers: hand.timers, onIdle: () => locked++ });
    expect(hand.armed).toBe(0);
    const stop = watchIdle({ minutes: 1, target: new EventTarget(), timers: hand.timers, onIdle: () => locked++ });
    stop();
    hand.pass(5 * 60_000);
    expect(locked).toBe(0);
  });

  it('tells the core of a person at the page at the first act, then at most every 20 seconds, and never by itself', () => {
    const hand = handTimers();
    const target = new EventTarget();
    let reported = 0;
    watchIdle({ minutes: 10, target, timers: hand.timers, onIdle: () => undefined, onActivity: () => reported++ });
    hand.pass(5 * 60_000);
    expect(reported).toBe(0);
    target.dispatchEvent(new Event('keydown'));
    target.dispatchEvent(new Event('pointerdown'));
    expect(reported).toBe(1);
    hand.pass(19_000);
    target.dispatchEvent(new Event('keydown'));
    expect(reported).toBe(1);
    hand.pass(1_000);
    target.dispatchEvent(new Event('touchstart'));
    expect(reported).toBe(2);
    hand.pass(9 * 60_000);
    expect(reported).toBe(2);
  });
});
