import { describe, expect, it } from 'vitest';
import { StepRecorder } from './steps.ts';

describe('the step recorder', () => {
  it('records nothing while off, and its clock is not asked', () => {
    const steps = new StepRecorder();
    const t0 = steps.now();
    steps.add('append', t0);
    steps.mark('in');
    expect(steps.since('in', 'to charge')).toBe(false);
    expect(steps.on).toBe(false);
    expect(steps.stop()).toEqual({});
  });

  it('times steps and marked spans with the clock it is given, each mark once', () => {
    let now = 100;
    const steps = new StepRecorder();
    steps.start(() => now);
    const t0 = steps.now();
    now = 103.5;
    steps.add('append', t0);
    steps.mark('in');
    now = 110;
    expect(steps.since('in', 'to charge')).toBe(true);
    expect(steps.since('in', 'to charge')).toBe(false);
    steps.add('append', steps.now() - 2);
    expect(steps.stop()).toEqual({ append: [3.5, 2], 'to charge': [6.5] });
    // Stopped: off again, and what was handed over is not kept.
    steps.add('append', 0);
    expect(steps.stop()).toEqual({});
  });
});
