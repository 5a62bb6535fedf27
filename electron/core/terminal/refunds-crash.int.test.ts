import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_TOKENS } from '../../sandbox/fixture.ts';
import { startSandbox } from '../../sandbox/server.ts';
import type { JournalEntry } from '../journal/journal.ts';
import type { Sale } from '../sales/lifecycle.ts';
import { startCoreProcess } from './fixtures/core-child.ts';
import { remoteCoreEnv } from './fixtures/remote-core.ts';
import { serviceControl, waitFor } from './fixtures/service.ts';

/**
 * A crash between a refund's intent and its answer (as crash.int.test.ts does for sales):
 * the core runs as a child process against a sandbox in this process, is SIGKILLed while
 * the service holds its refund request unanswered, and is started again on the same data
 * dir. The journaled intent is asked again with its one Idempotency-Key, so the service
 * refunds it exactly once, whether or not the lost attempt had reached it.
 */
const children = new Set<ChildProcess>();
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a crash between a refund’s intent and its answer', () => {
  it.each([
    ['the lost attempt never reached the service', false],
    ['the service had made the refund before the crash', true],
  ] as const)('%s: recovered at the next start, refunded exactly once', async (_name, madeBeforeCrash) => {
    const sandbox = await startSandbox({ port: 0 });
    const dir = await mkdtemp(join(tmpdir(), 'pos-refund-crash-'));
    cleanups.push(async () => {
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    });
    const svc = serviceControl(sandbox.url);
    const env = await remoteCoreEnv(sandbox.url, dir);
    const refundApi = (body: unknown, key?: string) =>
      fetch(`${sandbox.url}/v2/pay_in_refunds/request`, {
        method: 'POST',
        headers: { authorization: `Bearer ${FIXTURE_TOKENS.supervisor}`, 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
        body: JSON.stringify(body),
      });

    let core = await startCoreProcess(env, children);
    await core.call('charge', { amountCents: 1000 });
    const paid = await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    expect(paid.status).toBe(200);
    const serviceId = String(paid.body.service_id);
    const [sale] = await waitFor(async () => {
      const sales = await core.call<Sale[]>('sales');
      return sales[0]?.status === 'paid' ? sales : undefined;
    }, 'the sale to be paid');
    const saleId = (sale as Sale).sale_id;

    // The service holds the refund request open and never answers it.
    await svc('POST', '/_sandbox/faults', { target: 'route', method: 'POST', path: '/v2/pay_in_refunds/request', fault: 'timeout', count: 1 });
    void core.call('refund', { saleId, amountCents: 400 }).catch(() => undefined);
    const intent = await waitFor(async () => {
      const events = await core.call<JournalEntry[]>('events', { saleId });
      return events.find((e) => e.type === 'refund.requested');
    }, 'the refund intent to be journaled');
    await core.kill();
    const asked = (intent.data as { events: { idempotency_key: string; amount_cents: number }[] }).events[0];
    expect(asked?.amount_cents).toBe(400);
    if (madeBeforeCrash) {
      // What the lost attempt did at the service: the same request under the same key.
      expect((await refundApi({ service_id: serviceId, amount: '4.00' }, asked?.idempotency_key)).status).toBe(201);
    }
    await svc('DELETE', '/_sandbox/faults');

    core = await startCoreProcess(env, children);
    const recovered = await waitFor(
      async () => {
        const s = await core.call<Sale>('sale', { saleId });
        return s.refunds?.[0]?.state === 'made' ? s : undefined;
      },
      'the restarted core to resolve the refund',
      { between: () => core.call('tick') },
    );
    expect(recovered.status).toBe('partly_refunded');
    expect(recovered.refunds).toHaveLength(1);
    expect(recovered.refunds?.[0]?.made?.refunded_cents).toBe(400);

    // Exactly 4.00 refunded at the service: a request for more than could be left says 6.00 is.
    const probe = await refundApi({ service_id: serviceId, amount: '999999.99' });
    expect(probe.status).toBe(422);
    expect(((await probe.json()) as { detail: { ctx?: { le?: string } }[] }).detail[0]?.ctx?.le).toBe('6.00');
    await core.stop();
  });
});
