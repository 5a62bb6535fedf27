import { describe, expect, it } from 'vitest';
import { FIXTURE_TOKENS } from '../../sandbox/fixture.ts';
import type { JournalEntry } from '../journal/port.ts';
import type { Sale } from '../sales/lifecycle.ts';
import { childCoresPerTest } from './fixtures/child-cores.ts';
import { waitFor } from './fixtures/service.ts';

/**
 * A crash between a refund's intent and its answer (as crash.int.test.ts does for sales):
 * the core runs as a child process against a sandbox in this process, is SIGKILLed while
 * the service holds its refund request unanswered, and is started again on the same data
 * dir. The service ignores refund keys (the sandbox's ignore_key fault: contract 5 promises
 * nothing), so asking again could refund twice: the restarted core never asks by itself;
 * the refund is Refund not confirmed, and the supervisor's answer (It was refunded, or Send
 * again) leaves exactly one refund at the service, whether or not the lost attempt reached it.
 */
const cores = childCoresPerTest();

describe('a crash between a refund’s intent and its answer', () => {
  it.each([
    ['the lost attempt never reached the service', false],
    ['the service had made the refund before the crash', true],
  ] as const)('%s: recovered at the next start, refunded exactly once', async (_name, madeBeforeCrash) => {
    const { sandbox, svc, env } = await cores.setUp('pos-refund-crash-');
    const refundApi = (body: unknown, key?: string) =>
      fetch(`${sandbox.url}/v2/pay_in_refunds/request`, {
        method: 'POST',
        headers: { authorization: `Bearer ${FIXTURE_TOKENS.supervisor}`, 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
        body: JSON.stringify(body),
      });

    let core = await cores.start(env);
    await core.call('charge', { amountCents: 1000 });
    const paid = await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    expect(paid.status).toBe(200);
    const serviceId = String(paid.body.service_id);
    const [sale] = await waitFor(async () => {
      const sales = await core.call<Sale[]>('sales');
      return sales[0]?.status === 'paid' ? sales : undefined;
    }, 'the sale to be paid');
    const saleId = (sale as Sale).sale_id;

    // The service holds the refund request open and never answers it, and ignores refund keys.
    await svc('POST', '/_sandbox/faults', { target: 'route', method: 'POST', path: '/v2/pay_in_refunds/request', fault: 'timeout', count: 1 });
    await svc('POST', '/_sandbox/faults', { target: 'idempotency', method: 'POST', path: '/v2/pay_in_refunds/request', fault: 'ignore_key', count: 1000 });
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
    const leftAtService = async () => {
      const probe = await refundApi({ service_id: serviceId, amount: '999999.99' });
      expect(probe.status).toBe(422);
      return ((await probe.json()) as { detail: { ctx?: { le?: string } }[] }).detail[0]?.ctx?.le;
    };

    core = await cores.start(env);
    // Ticks across more than a day of clock: the core never asks again by itself.
    let ticks = 0;
    const unconfirmed = await waitFor(
      async () => {
        const s = await core.call<Sale>('sale', { saleId });
        return s.refunds?.[0]?.state === 'unconfirmed' && ticks >= 4 ? s : undefined;
      },
      'the restarted core to leave the refund to a supervisor',
      { between: async () => {
        ticks += 1;
        await core.call('advanceClock', { ms: 8 * 3_600_000 });
        await core.call('tick');
      } },
    );
    expect(unconfirmed.status).toBe('paid');
    expect(unconfirmed.attention).toContainEqual({ reason: 'refund_not_confirmed', subject: unconfirmed.refunds?.[0]?.refund_id });
    expect(await leftAtService()).toBe(madeBeforeCrash ? '6.00' : '10.00');

    // The supervisor checked the service: their answer, in their name.
    const refundId = unconfirmed.refunds?.[0]?.refund_id;
    if (madeBeforeCrash) await core.call('refundWasMade', { saleId, refundId });
    else await core.call('refundSendAgain', { saleId, refundId, amountCents: 400 });
    const answered = await core.call<Sale>('sale', { saleId });
    expect(answered.status).toBe('partly_refunded');
    expect(answered.refunds).toHaveLength(1);
    expect(answered.refunds?.[0]).toMatchObject({ state: 'made', made: { refunded_cents: 400 } });
    expect(answered.attention).toEqual([]);
    const events = await core.call<JournalEntry[]>('events', { saleId });
    const answer = events.find((e) => e.type === (madeBeforeCrash ? 'refund.made' : 'refund.resent'));
    expect(answer?.data.by).toBe('crash-test-supervisor');

    // Exactly 4.00 refunded at the service: a request for more than could be left says 6.00 is.
    expect(await leftAtService()).toBe('6.00');
    await svc('DELETE', '/_sandbox/faults');
    await core.stop();
  });
});
