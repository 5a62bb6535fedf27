// Contract 4 promises no order, so the sandbox delivers webhooks concurrently, bounded: up to
// `webhookConcurrency` attempts are under way at once and never more; a sale's own events go
// one at a time (charge.paid before its charge.done); a receiver slow or failing on some
// events holds only their slots, and only when every slot is held does the outbox wait, until
// the 10 s answer limit frees them. A real receiver on 127.0.0.1:0 holds requests open and
// counts the ones under way; every check reads what it received and GET /_sandbox/events.
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestSandbox, waitFor } from './harness.ts';
import type { Json, TestSandbox } from './harness.ts';

interface Arrival {
  event: string;
  pixId: string;
  externalId: string;
  webhookId: string;
  /** What the receiver answered; null while it holds the request open. */
  answered: number | null;
}

interface Held {
  arrival: Arrival;
  release(status: number): void;
}

/** Answers each request now (a status) or holds it open until the test releases it. */
class HoldingReceiver {
  readonly arrivals: Arrival[] = [];
  readonly open: Held[] = [];
  /** The most requests it ever had open at once. */
  maxOpen = 0;
  decide: (arrival: Arrival) => number | 'hold' = () => 'hold';
  url = '';
  #server: Server | null = null;

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.#receive(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json, String(req.headers['webhook-id']), res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  #receive(json: Json, webhookId: string, res: ServerResponse): void {
    const arrival: Arrival = { event: json.event, pixId: json.pix_id, externalId: json.external_id, webhookId, answered: null };
    this.arrivals.push(arrival);
    const decision = this.decide(arrival);
    if (decision !== 'hold') {
      arrival.answered = decision;
      res.writeHead(decision).end();
      return;
    }
    const held: Held = {
      arrival,
      release: (status) => {
        this.#forget(held);
        arrival.answered = status;
        res.writeHead(status).end();
      },
    };
    this.open.push(held);
    this.maxOpen = Math.max(this.maxOpen, this.open.length);
    // The sandbox gave up on it (its 10 s answer limit): no longer under way.
    res.on('close', () => this.#forget(held));
  }

  #forget(held: Held): void {
    const index = this.open.indexOf(held);
    if (index >= 0) this.open.splice(index, 1);
  }

  /** Arrivals answered 2xx, as `event pix_id`. */
  delivered(): string[] {
    return this.arrivals.filter((a) => a.answered !== null && a.answered < 300).map((a) => `${a.event} ${a.pixId}`);
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (server === null) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

let t: TestSandbox | null = null;
let receiver: HoldingReceiver | null = null;
afterEach(async () => {
  await t?.close();
  await receiver?.close();
  t = null;
  receiver = null;
});

async function start(concurrency: number): Promise<{ t: TestSandbox; receiver: HoldingReceiver }> {
  receiver = await new HoldingReceiver().start();
  t = await startTestSandbox({ webhookConcurrency: concurrency, webhook: { url: receiver.url } });
  return { t, receiver };
}

/** A standard dynamic sale, paid by the payer: two events, charge.paid then charge.done. Returns its pix_id. */
async function paidSale(sandbox: TestSandbox, n: number): Promise<string> {
  const sale = await sandbox.api.sale({ amount: `${10 + n}.00`, external_id: `order-${n}` });
  expect(sale.status).toBe(201);
  const pay = await sandbox.api.control('POST', '/pay', { emv: sale.body.emv });
  expect(pay.status).toBe(200);
  return sale.body.pix_id as string;
}

async function eventStates(sandbox: TestSandbox): Promise<Record<string, number>> {
  const events = (await sandbox.api.control('GET', '/events')).body as Json[];
  const states: Record<string, number> = {};
  for (const e of events) states[e.state] = (states[e.state] ?? 0) + 1;
  return states;
}

const both = (pixIds: readonly string[]) => pixIds.flatMap((p) => [`charge.paid ${p}`, `charge.done ${p}`]);

describe('concurrent delivery, bounded (webhookConcurrency)', () => {
  it.each([1, 4])('with a bound of %i: that many attempts under way at once, never more, and a sale’s paid before its done', async (bound) => {
    const { t, receiver } = await start(bound);
    const sales: string[] = [];
    for (let n = 0; n < 6; n++) sales.push(await paidSale(t, n));
    // Twelve events of six sales are due; the receiver answers none of them yet.
    await waitFor(() => (receiver.open.length >= bound ? true : undefined), `${bound} deliveries under way`);
    expect(await eventStates(t)).toEqual({ in_flight: bound, pending: 12 - bound });
    expect(receiver.open).toHaveLength(bound);

    // Answered one at a time, the oldest first: each answer frees one slot for the next.
    while (receiver.delivered().length < 12) {
      const [oldest] = await waitFor(() => (receiver.open.length > 0 ? receiver.open : undefined), 'a delivery under way');
      oldest!.release(200);
    }
    expect(receiver.maxOpen).toBe(bound);
    expect(receiver.delivered().sort()).toEqual(both(sales).sort());
    for (const pixId of sales) {
      const order = receiver.delivered().filter((d) => d.endsWith(pixId));
      expect(order).toEqual([`charge.paid ${pixId}`, `charge.done ${pixId}`]);
    }
    expect(await eventStates(t)).toEqual({ delivered: 12 });
  });

  it('a receiver slow on two sales and failing on a third does not stall the others', async () => {
    const { t, receiver } = await start(4);
    const slowOrders = ['order-0', 'order-1'];
    receiver.decide = (a) => (a.event !== 'charge.paid' ? 200 : slowOrders.includes(a.externalId) ? 'hold' : a.externalId === 'order-2' ? 500 : 200);
    const slow = [await paidSale(t, 0), await paidSale(t, 1)];
    const failing = await paidSale(t, 2);
    const others: string[] = [];
    for (let n = 3; n < 7; n++) others.push(await paidSale(t, n));

    // Two slots stay held by the slow sales; the other two carry every other sale through.
    const expected = [...both(others), `charge.done ${failing}`];
    await waitFor(() => (expected.every((d) => receiver.delivered().includes(d)) ? true : undefined), 'the other sales delivered');
    expect(receiver.open.map((h) => `${h.arrival.event} ${h.arrival.pixId}`).sort()).toEqual(slow.map((p) => `charge.paid ${p}`).sort());
    expect(receiver.arrivals.find((a) => a.pixId === failing && a.event === 'charge.paid')?.answered).toBe(500);
    expect(receiver.maxOpen).toBe(2);

    // The failed one is retried 5 s later (sandbox time); the slow ones finish when answered.
    receiver.decide = () => 200;
    await t.api.advance(5);
    for (const held of [...receiver.open]) held.release(200);
    await waitFor(() => (new Set(receiver.delivered()).size >= 14 ? true : undefined), 'every event delivered');
    expect([...new Set(receiver.delivered())].sort()).toEqual(both([...slow, failing, ...others]).sort());
    expect(await eventStates(t)).toEqual({ delivered: 14 });
  });

  it('only when every slot is held does the outbox wait, and the 10 s answer limit frees the slots', async () => {
    const { t, receiver } = await start(4);
    const slowOrders = ['order-0', 'order-1', 'order-2', 'order-3'];
    receiver.decide = (a) => (a.event === 'charge.paid' && slowOrders.includes(a.externalId) ? 'hold' : 200);
    const slow: string[] = [];
    for (let n = 0; n < 4; n++) slow.push(await paidSale(t, n));
    await waitFor(() => (receiver.open.length >= 4 ? true : undefined), 'four deliveries under way');
    const next = await paidSale(t, 4);
    // Every slot is held: the slow sales' charge.done and the next sale's two events wait.
    expect(await eventStates(t)).toEqual({ in_flight: 4, pending: 6 });
    expect(receiver.arrivals.some((a) => a.pixId === next)).toBe(false);

    // No answer within 10 s of sandbox time: those attempts fail, and what waited goes out.
    await t.api.advance(10);
    const waited = [...both([next]), ...slow.map((p) => `charge.done ${p}`)];
    await waitFor(() => (waited.every((d) => receiver.delivered().includes(d)) ? true : undefined), 'what waited delivered');
    const attempts = (await t.api.control('GET', '/webhooks')).body as Json[];
    expect(attempts.filter((a) => a.error === 'timeout')).toHaveLength(4);

    // Their retries (5 s after the failure) are answered.
    receiver.decide = () => 200;
    await t.api.advance(5);
    await waitFor(() => (new Set(receiver.delivered()).size >= 10 ? true : undefined), 'every event delivered');
    expect([...new Set(receiver.delivered())].sort()).toEqual(both([...slow, next]).sort());
    expect(await eventStates(t)).toEqual({ delivered: 10 });
  });
});
