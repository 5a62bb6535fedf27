import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.ts';
import { CoreHealth, healthStatus, startHealthServer } from './health.ts';

describe('a core’s health, as its lease and its start tell it', () => {
  it('is 503 until the core serves, 200 while it is active and its database answers, 503 once it stepped down', () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 28, 0, 0));
    const health = new CoreHealth(clock, true);
    expect(health.report()).toEqual({ role: 'starting', term: null, database: 'reachable', since: '2026-11-28T00:00:00.000Z' });
    expect(healthStatus(health.report())).toBe(503);
    health.lease({ kind: 'standby', holder: 'store-pc:/data' });
    expect(health.report()).toMatchObject({ role: 'standby', active_core: 'store-pc:/data' });
    expect(healthStatus(health.report())).toBe(503);
    clock.advance(7_000);
    health.lease({ kind: 'taken', term: 4 });
    expect(health.report()).toEqual({ role: 'starting', term: 4, database: 'reachable', since: '2026-11-28T00:00:07.000Z' });
    health.serving();
    expect(healthStatus(health.report())).toBe(200);
    health.lease({ kind: 'renewed', reachable: false });
    expect(healthStatus(health.report())).toBe(503);
    health.lease({ kind: 'renewed', reachable: true });
    expect(healthStatus(health.report())).toBe(200);
    clock.advance(1_000);
    health.lease({ kind: 'lost', term: 4 });
    health.serving();
    expect(health.report()).toEqual({ role: 'stepped_down', term: 4, database: 'reachable', since: '2026-11-28T00:00:08.000Z' });
    expect(healthStatus(health.report())).toBe(503);
  });

  it('without a database: active once serving, no term, no database', () => {
    const health = new CoreHealth(new ManualClock(0), false);
    health.serving();
    expect(health.report()).toMatchObject({ role: 'active', term: null, database: null });
    expect(healthStatus(health.report())).toBe(200);
  });

  it('with a database, counts the webhook inbox at each report on either role, and says null when the count does not come', async () => {
    const health = new CoreHealth(new ManualClock(0), true);
    let depth: () => Promise<number> = async () => 3;
    health.inbox(() => depth());
    health.lease({ kind: 'standby', holder: 'store-pc:/data' });
    expect(await health.measured()).toMatchObject({ role: 'standby', inbox_depth: 3 });
    depth = async () => {
      throw new Error('the database does not answer');
    };
    expect(await health.measured()).toMatchObject({ role: 'standby', inbox_depth: null });
    health.lease({ kind: 'taken', term: 2 });
    health.serving();
    depth = async () => 0;
    const server = await startHealthServer({ host: '127.0.0.1', port: 0, health });
    try {
      const res = await fetch(server.url);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ role: 'active', term: 2, inbox_depth: 0 });
    } finally {
      await server.close();
    }
  });

  it('answers GET and HEAD /health only, over HTTP on its address', async () => {
    const health = new CoreHealth(new ManualClock(0), false);
    const server = await startHealthServer({ host: '127.0.0.1', port: 0, health });
    try {
      const starting = await fetch(server.url);
      expect(starting.status).toBe(503);
      expect(starting.headers.get('cache-control')).toBe('no-store');
      expect(await starting.json()).toMatchObject({ role: 'starting' });
      health.serving();
      expect((await fetch(server.url, { method: 'HEAD' })).status).toBe(200);
      expect((await fetch(server.url.replace('/health', '/'))).status).toBe(404);
      expect((await fetch(server.url, { method: 'POST' })).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
