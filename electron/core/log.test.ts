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
