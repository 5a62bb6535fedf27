import { describe, expect, it } from 'vitest';
import type { ChargeDone, PaymentReceived } from '../sales/lifecycle.ts';
import { attributionFact, paymentFact, saleFact } from './entries.ts';
import { NO_UNMATCHED, reduceUnmatched, type UnmatchedFoldEntry } from './payment-intake.ts';

const report: PaymentReceived = { type: 'payment.received', source: 'webhook', webhook_id: 'w1', pix_id: 'pix_1', service_id: 'svc_1', amount_brl: '10.00', paid_at: 1, e2e_id: 'E1', at: 1 };
const done: ChargeDone = { type: 'charge.done', webhook_id: 'w2', pix_id: 'pix_9', amount_brl: '5.00', settlement_id: null, at: 2 };
const entry = (seq: number, input: { type: string; data: Readonly<Record<string, unknown>> }): UnmatchedFoldEntry => ({ seq, ...input });

describe('reduceUnmatched: the payments kept apart, folded from the journal in seq order', () => {
  const log = [
    entry(1, saleFact([{ type: 'sale.requested', sale_id: 's1', idempotency_key: 'k', store_id: 1, checkout_id: 1, seq: 1, amount_cents: 1000, requested_by: 'ana', at: 0 }])),
    entry(2, paymentFact(report, null, { unmatched_reason: 'unknown_ids' })),
    entry(3, paymentFact(done, null, { unmatched_reason: 'ambiguous' })),
    entry(4, paymentFact({ ...report, webhook_id: 'w3' }, 's1')),
    entry(5, paymentFact(report, 's1', { rematch_of: 2 })),
    entry(6, paymentFact({ ...done, pix_id: undefined }, null, { unmatched_reason: 'made up' })),
    entry(7, attributionFact(done, 3, { saleId: 's1', by: 'rui', at: 7 })),
    entry(8, { type: 'settlement.settled', data: { settlement_id: 1 } }),
  ];

  it('keeps what no sale took, releases what a re-match or an attribution named, ignores the rest', () => {
    const after = (n: number) => log.slice(0, n).reduce(reduceUnmatched, NO_UNMATCHED);
    expect(after(3).kept.map((k) => [k.seq, k.reason])).toEqual([
      [2, 'unknown_ids'],
      [3, 'ambiguous'],
    ]);
    expect(after(5).kept.map((k) => k.seq)).toEqual([3]);
    // A reason it does not know is read as unknown_ids, never passed on.
    expect(after(8).kept.map((k) => [k.seq, k.reason])).toEqual([[6, 'unknown_ids']]);
  });

  it('is plain JSON, and folding a prefix then the rest equals folding it all: a checkpoint can hold it', () => {
    const whole = log.reduce(reduceUnmatched, NO_UNMATCHED);
    const checkpoint = JSON.parse(JSON.stringify(log.slice(0, 4).reduce(reduceUnmatched, NO_UNMATCHED)));
    expect(log.slice(4).reduce(reduceUnmatched, checkpoint)).toEqual(whole);
  });

  it('returns the same state for entries that change nothing', () => {
    const state = log.slice(0, 3).reduce(reduceUnmatched, NO_UNMATCHED);
    expect(reduceUnmatched(state, log[7] as UnmatchedFoldEntry)).toBe(state);
    expect(reduceUnmatched(state, log[3] as UnmatchedFoldEntry)).toBe(state);
  });
});
