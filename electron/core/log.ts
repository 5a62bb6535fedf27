import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
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

/**
 * The app's log: every line to `<dataDir>/logs/pix-cashier-YYYY-MM-DD.log` (readable by this
 * user only), and warnings and errors also to stderr as one readable line, so the console
 * stays calm while the file keeps everything for a supervisor or support.
 */
export function createAppLogger(dataDir: string, clock: Clock, echo: (line: string) => void = (l) => process.stderr.write(l + '\n')): Logger & { close(): void } {
  const dir = join(dataDir, 'logs');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let day = '';
  let fd: number | null = null;
  const fileFor = (now: number) => {
    const today = new Date(now).toISOString().slice(0, 10);
    if (today !== day || fd === null) {
      if (fd !== null) closeSync(fd);
      day = today;
      fd = openSync(join(dir, `pix-cashier-${today}.log`), 'a', 0o600);
    }
    return fd;
  };
  const file = createLogger((line) => {
    try {
      writeSync(fileFor(clock.now()), line + '\n');
    } catch {
      echo(line);
    }
  }, clock);
  const both = (level: 'warn' | 'error') => (msg: string, fields?: Record<string, unknown>) => {
    file[level](msg, fields);
    echo(`${level}: ${String(redact(msg))}`);
  };
  return {
    info: file.info,
    warn: both('warn'),
    error: both('error'),
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
