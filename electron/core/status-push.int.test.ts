import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { systemClock } from '../shared/clock.ts';
import { STATUS_COALESCE_MS, type Core, type CoreStatus } from './core.ts';
import { memoryLogger } from './log.ts';
import { startCoreOnSandbox, type CoreOnSandbox } from './terminal/fixtures/core.ts';
import type { ServiceControl } from './terminal/fixtures/service.ts';

/**
 * Issue 9, point 5: a busy store's sales do not each push the status to every till. What a
 * sale changes in it (the journal's entry count, the last webhook's time) goes out at most
 * once per STATUS_COALESCE_MS. The core's timers are faked, so the window is moved by hand:
 * nothing here depends on how fast the machine is.
 */
let env: CoreOnSandbox | undefined;
let core: Core;
let svc: ServiceControl;

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  env = await startCoreOnSandbox('status-push', memoryLogger(systemClock));
  ({ core, svc } = env);
});

afterAll(async () => {
  vi.useRealTimers();
  await env?.stop();
});

/** Waits on real time (node:timers is not faked) until the journal has the sale paid. */
async function paid(saleId: string): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if ((await core.journal.sales.get(saleId))?.sale.status === 'paid') return;
    await sleep(10);
  }
  throw new Error(`sale ${saleId} was never paid`);
}

it('six sales on two checkouts, rung up and paid, push the status once, with the journal as it ends', async () => {
  // Whatever the start left to say is said first.
  vi.advanceTimersByTime(STATUS_COALESCE_MS);
  const pushed: CoreStatus[] = [];
  const off = core.events.on('core.status', (status) => pushed.push(status));
  await Promise.all(
    [1, 2].map(async (checkoutId) => {
      for (let n = 0; n < 3; n++) {
        const view = await core.charge({ storeId: 1, checkoutId, by: 'Ana', amountCents: 1000 + n });
        const pay = await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: checkoutId });
        expect(pay.status).toBe(200);
        await paid(view.newest?.sale_id ?? '');
      }
    }),
  );
  expect(pushed).toEqual([]);

  vi.advanceTimersByTime(STATUS_COALESCE_MS);
  expect(pushed).toHaveLength(1);
  expect(pushed[0]?.journal.entries).toBe(core.status().journal.entries);
  expect(pushed[0]?.webhooks.mode).toBe('webhooks');
  off();
}, 60_000);
