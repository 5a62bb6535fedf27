import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.ts';
import { SandboxTimers } from './timers.ts';

describe('SandboxTimers (sandbox time)', () => {
  it('runs tasks when the clock reaches them, in due order, on poke', () => {
    const clock = new ManualClock(1_000_000);
    const timers = new SandboxTimers(clock);
    const ran: string[] = [];
    timers.after(30_000, () => ran.push('30s'));
    timers.after(5_000, () => ran.push('5s'));
    timers.at(1_000_000 + 5_000, () => ran.push('5s again'));
    timers.poke();
    expect(ran).toEqual([]);
    clock.advance(29_999);
    timers.poke();
    expect(ran).toEqual(['5s', '5s again']);
    clock.advance(1);
    timers.poke();
    expect(ran).toEqual(['5s', '5s again', '30s']);
    expect(timers.pending).toBe(0);
    timers.stop();
  });

  it('cancels, survives a throwing task, and does nothing after stop', () => {
    const clock = new ManualClock();
    const errors: unknown[] = [];
    const timers = new SandboxTimers(clock, (e) => errors.push(e));
    const ran: number[] = [];
    const cancel = timers.after(10, () => ran.push(1));
    timers.after(10, () => {
      throw new Error('boom');
    });
    timers.after(10, () => ran.push(3));
    cancel();
    clock.advance(10);
    timers.poke();
    expect(ran).toEqual([3]);
    expect(errors).toHaveLength(1);
    timers.stop();
    timers.after(0, () => ran.push(4));
    timers.poke();
    expect(ran).toEqual([3]);
  });

  it('a task scheduled by a task runs on a later poke, not in the same one', () => {
    const clock = new ManualClock();
    const timers = new SandboxTimers(clock);
    const ran: string[] = [];
    timers.after(0, () => {
      ran.push('first');
      timers.after(0, () => ran.push('second'));
    });
    timers.poke();
    expect(ran).toEqual(['first']);
    timers.poke();
    expect(ran).toEqual(['first', 'second']);
    timers.stop();
  });
});
