import { describe, expect, it } from 'vitest';
import { formatCountdown, remainingMs } from './countdown.ts';

describe('remainingMs', () => {
  const expiresAt = 1_000_000 + 300_000;
  it('counts from the core clock plus the local time since the view arrived', () => {
    expect(remainingMs(expiresAt, 1_000_000, 50, 50)).toBe(300_000);
    expect(remainingMs(expiresAt, 1_000_000, 50, 10_050)).toBe(290_000);
  });
  it('follows the core clock when it jumps forward (sandbox clock advance)', () => {
    expect(remainingMs(expiresAt, 1_000_000 + 330_000, 0, 0)).toBe(0);
  });
  it('never goes below zero, nor counts a local clock going backwards', () => {
    expect(remainingMs(expiresAt, expiresAt + 5, 0, 0)).toBe(0);
    expect(remainingMs(expiresAt, 1_000_000, 500, 100)).toBe(300_000);
  });
});

describe('formatCountdown', () => {
  it.each([
    [300_000, '5:00'],
    [299_001, '5:00'],
    [299_000, '4:59'],
    [61_000, '1:01'],
    [5_000, '0:05'],
    [1, '0:01'],
    [0, '0:00'],
    [-10, '0:00'],
  ])('%d ms -> %s', (ms, text) => {
    expect(formatCountdown(ms)).toBe(text);
  });
});
