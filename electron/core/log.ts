import type { Clock } from '../shared/clock.ts';

/**
 * Structured log lines (one JSON object each). Tokens and secrets never reach a log:
 * fields whose name says secret are replaced, and bearer strings are masked wherever
 * they appear in a value.
 */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const SECRET_KEY = /token|secret|authorization|password|cookie|signature/i;
const BEARER = /\b(Bearer\s+)[^\s"',;]+/gi;
const WHSEC = /\bwhsec_[A-Za-z0-9+/=]+/g;

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return '[…]';
  if (typeof value === 'string') return value.replace(BEARER, '$1[redacted]').replace(WHSEC, 'whsec_[redacted]');
  if (value instanceof Error) return { name: value.name, message: redact(value.message, depth + 1) };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1);
    return out;
  }
  return value;
}

export function createLogger(sink: (line: string) => void, clock: Clock): Logger {
  const write = (level: string, msg: string, fields?: Record<string, unknown>) => {
    const line = { at: new Date(clock.now()).toISOString(), level, msg: redact(msg), ...(fields ? (redact(fields) as object) : {}) };
    sink(JSON.stringify(line));
  };
  return {
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}

/** A logger that keeps lines in memory: for tests that assert what was (not) logged. */
export function memoryLogger(clock: Clock): Logger & { lines: string[] } {
  const lines: string[] = [];
  return Object.assign(createLogger((l) => lines.push(l), clock), { lines });
}
