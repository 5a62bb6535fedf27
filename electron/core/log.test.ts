import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.ts';
import { memoryLogger, redact } from './log.ts';

describe('log redaction', () => {
  it('never writes tokens, secrets or bearer strings', () => {
    const log = memoryLogger(new ManualClock());
    log.info('calling Bearer abc.def-123 now', {
      token: 'sandbox-manager-token',
      headers: { Authorization: 'Bearer xyz', accept: 'application/json' },
      nested: [{ webhookSecret: 'whsec_AAAA' }, 'see whsec_c2FuZGJveA== here'],
      error: new Error('failed with Bearer qqq'),
    });
    const line = log.lines[0] ?? '';
    for (const secret of ['abc.def-123', 'sandbox-manager-token', 'xyz', 'whsec_AAAA', 'c2FuZGJveA', 'qqq']) {
      expect(line).not.toContain(secret);
    }
    expect(JSON.parse(line)).toMatchObject({ level: 'info', at: '2026-11-21T13:45:00.000Z', headers: { accept: 'application/json' } });
  });

  it('survives cycles-deep structures without throwing', () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 20; i++) deep = (deep.next = {}) as Record<string, unknown>;
    expect(() => JSON.stringify(redact(root))).not.toThrow();
  });
});

describe('app log file', () => {
  it('keeps every line in a file only this user can read, and echoes only problems', async () => {
    const { mkdtemp, readFile, readdir, stat, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { createAppLogger } = await import('./log.ts');
    const dir = await mkdtemp(join(tmpdir(), 'pos-log-'));
    const echoed: string[] = [];
    const log = createAppLogger(dir, new ManualClock(), (l) => echoed.push(l));
    log.info('core ready', { token: 'abc-secret' });
    log.warn('service check failed');
    log.close();
    const [file] = await readdir(join(dir, 'logs'));
    expect(file).toBe('pix-cashier-2026-11-21.log');
    const text = await readFile(join(dir, 'logs', file ?? ''), 'utf8');
    expect(text.trim().split('\n')).toHaveLength(2);
    expect(text).not.toContain('abc-secret');
    expect((await stat(join(dir, 'logs', file ?? ''))).mode & 0o077).toBe(0);
    expect(echoed).toEqual(['warn: service check failed']);
    await rm(dir, { recursive: true, force: true });
  });
});
