/**
 * When and how long to wait before sending a failed request again: exponential backoff
 * with jitter, never shorter than the service's `Retry-After`, and never past the call's
 * deadline. Pure apart from the injected random and sleep, so tests are deterministic.
 */
import { setTimeout as delay } from 'node:timers/promises';

export interface RetryOptions {
  /** Requests per call, the first included. */
  maxAttempts: number;
  /** Backoff before the first retry, doubled for each further one. */
  baseDelayMs: number;
  /** Ceiling of the backoff (a longer Retry-After is still honoured, within the deadline). */
  maxDelayMs: number;
  /** Uniform in [0, 1): the jitter. */
  random: () => number;
  /** Waits `ms`; rejects when `signal` aborts (the call's deadline). */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 4_000,
  random: Math.random,
  sleep: (ms, signal) => delay(ms, undefined, { signal }),
};

/**
 * `Retry-After` as milliseconds from now: delta-seconds ("120") or an HTTP date
 * ("Wed, 21 Nov 2026 13:47:00 GMT", RFC 9110 10.2.3). A date in the past gives 0.
 * Null when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return null;
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : null;
  }
  // An HTTP date names a weekday and a month; refuse anything else Date.parse would guess at.
  if (!/^[A-Za-z]{3},? /.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

/**
 * Backoff before retry number `retry` (1 = the first retry): half of the exponential step
 * is fixed and half is jitter, so retries of many terminals spread out yet never collapse
 * to zero.
 */
export function backoffDelay(retry: number, options: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs' | 'random'>): number {
  const step = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, retry - 1));
  const r = Math.min(Math.max(options.random(), 0), 1);
  return Math.round(step / 2 + (r * step) / 2);
}

export interface RetryDecisionInput {
  /** Attempts already made (≥ 1). */
  attempts: number;
  retryAfterMs: number | null;
  nowMs: number;
  deadlineAt: number;
  options: Pick<RetryOptions, 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs' | 'random'>;
}

/**
 * How long to wait before the next attempt, or null to give up: attempts used up, or the
 * wait (the longer of backoff and Retry-After) would end past the deadline.
 */
export function nextRetryDelay(input: RetryDecisionInput): number | null {
  if (input.attempts >= input.options.maxAttempts) return null;
  const wait = Math.max(backoffDelay(input.attempts, input.options), input.retryAfterMs ?? 0);
  if (input.nowMs + wait >= input.deadlineAt) return null;
  return wait;
}
