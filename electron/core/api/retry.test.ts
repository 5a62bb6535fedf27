import { describe, expect, it } from 'vitest';
import { backoffDelay, nextRetryDelay, parseRetryAfter } from './retry.ts';

const NOW = Date.UTC(2026, 10, 21, 13, 45, 0);
const fixed = (r: number) => ({ baseDelayMs: 200, maxDelayMs: 3_000, random: () => r });

describe('parseRetryAfter', () => {
  it.each([
    ['120', 120_000],
    [' 0 ', 0],
    ['Sat, 21 Nov 2026 13:45:30 GMT', 30_000],
    // A date already past means "now".
    ['Sat, 21 Nov 2026 13:44:00 GMT', 0],
  ])('%s → %d ms', (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toBe(ms);
  });

  it.each([undefined, '', 'soon', '-5', '1.5', '2026-11-21T13:45:30Z', '99999999999999999999'])('refuses %o', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeNull();
  });

  it('reads the first of repeated headers', () => {
    expect(parseRetryAfter(['7', '9'], NOW)).toBe(7_000);
  });
});

describe('backoffDelay', () => {
  it('doubles each retry, half fixed and half jitter', () => {
    expect(backoffDelay(1, fixed(0))).toBe(100);
    expect(backoffDelay(1, fixed(0.999999))).toBe(200);
    expect(backoffDelay(2, fixed(0))).toBe(200);
    expect(backoffDelay(3, fixed(0.5))).toBe(600);
  });

  it('never exceeds the ceiling, whatever the retry count', () => {
    expect(backoffDelay(30, fixed(0.999999))).toBe(3_000);
    expect(backoffDelay(30, fixed(0))).toBe(1_500);
  });

  it('clamps a random source out of range', () => {
    expect(backoffDelay(1, fixed(7))).toBe(200);
    expect(backoffDelay(1, fixed(-1))).toBe(100);
  });
});

describe('nextRetryDelay', () => {
  const options = { maxAttempts: 4, ...fixed(0) };

  it('waits the backoff when there is no Retry-After', () => {
    expect(nextRetryDelay({ attempts: 1, retryAfterMs: null, nowMs: NOW, deadlineAt: NOW + 10_000, options })).toBe(100);
    expect(nextRetryDelay({ attempts: 2, retryAfterMs: null, nowMs: NOW, deadlineAt: NOW + 10_000, options })).toBe(200);
  });

  it('waits at least the Retry-After', () => {
    expect(nextRetryDelay({ attempts: 1, retryAfterMs: 2_000, nowMs: NOW, deadlineAt: NOW + 10_000, options })).toBe(2_000);
  });

  it('gives up when the wait would end past the deadline', () => {
    expect(nextRetryDelay({ attempts: 1, retryAfterMs: 60_000, nowMs: NOW, deadlineAt: NOW + 10_000, options })).toBeNull();
    expect(nextRetryDelay({ attempts: 1, retryAfterMs: null, nowMs: NOW + 9_950, deadlineAt: NOW + 10_000, options })).toBeNull();
  });

  it('gives up when the attempts are used up', () => {
    expect(nextRetryDelay({ attempts: 4, retryAfterMs: null, nowMs: NOW, deadlineAt: NOW + 60_000, options })).toBeNull();
  });
});
