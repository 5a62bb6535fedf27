import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemClock } from '../shared/clock.ts';
import type { Core } from './core.ts';
import { dispatcherAs } from './operators/fixtures/sign-in.ts';
import { memoryLogger } from './log.ts';
import { waitFor, type ServiceControl } from './terminal/fixtures/service.ts';
import { startCoreOnSandbox, type CoreOnSandbox } from './terminal/fixtures/core.ts';

/**
 * Issue 8, point 8: the status bar never shows the service reachable while its last calls
 * failed. Every call the core makes tells the status, not only the periodic check.
 */
let env: CoreOnSandbox | undefined;
let core: Core;
let svc: ServiceControl;

beforeAll(async () => {
  env = await startCoreOnSandbox('service-status', memoryLogger(systemClock), { secondCheckout: false });
  ({ core, svc } = env);
});

afterAll(async () => {
  await env?.stop();
});

it('a follow-up call that gets no answer makes the service unreachable at once; the next answer makes it reachable again', async () => {
  expect(core.status().service.reachable).toBe(true);
  await core.charge({ storeId: 1, checkoutId: 1, by: 'Ana', amountCents: 1000 });
  await svc('POST', '/_sandbox/faults', { target: 'route', method: 'GET', path: '/v2/tx_status/:pix_id', fault: 'lost_response', count: 1000 });
  await svc('POST', '/_sandbox/clock/advance', { seconds: 30 });
  await waitFor(async () => (core.status().service.reachable === false ? true : undefined), 'a failed poll to mark the service unreachable', {
    between: () => core.terminal.tick(),
  });
  expect(core.status().service.problem).not.toBeNull();

  await svc('DELETE', '/_sandbox/faults');
  await svc('POST', '/_sandbox/clock/advance', { seconds: 30 });
  await waitFor(async () => (core.status().service.reachable === true ? true : undefined), 'an answered poll to mark the service reachable', {
    between: () => core.terminal.tick(),
  });
  expect(core.status().service.problem).toBeNull();
}, 60_000);

it("answers core.status with the core's clock, which moves with the service's, not the machine's", async () => {
  const dispatch = await dispatcherAs(core);
  const before = core.clock.now();
  const first = await dispatch('core.status', undefined);
  expect(first).toMatchObject({ ok: true, result: { state: 'ready' } });
  const firstNow = first.ok ? (first.result as { now: number }).now : Number.NaN;
  expect(firstNow).toBeGreaterThanOrEqual(before);
  expect(firstNow).toBeLessThanOrEqual(core.clock.now());

  await svc('POST', '/_sandbox/clock/advance', { seconds: 2 * 86_400 });
  const moved = await dispatch('core.status', undefined);
  const movedNow = moved.ok ? (moved.result as { now: number }).now : Number.NaN;
  expect(movedNow - firstNow).toBeGreaterThanOrEqual(2 * 86_400_000);
  expect(movedNow).toBeLessThanOrEqual(core.clock.now());
  // The push says what changed, never the time: it would differ at every read.
  expect(core.status()).not.toHaveProperty('now');
}, 60_000);
