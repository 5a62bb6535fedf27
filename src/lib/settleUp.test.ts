import { describe, expect, it } from 'vitest';
import type { AttentionMessage, SaleSummary } from '../../electron/core/contract.ts';
import { settleUp } from './settleUp.ts';

type Item = Pick<AttentionMessage, 'key' | 'params'>;
const mismatch = (direction: string, received: number | null, expected: number | null): Item => ({
  key: 'attention.amount_mismatch',
  params: { direction, received_cents: received, expected_cents: expected },
});
const late = (params: Item['params']): Item => ({ key: 'attention.paid_late', params: { received_cents: 1500, expected_cents: 1500, ...params } });

describe('how much an attention item asks to give back or collect (issue 26)', () => {
  it.each<[string, Item, number, ReturnType<typeof settleUp>]>([
    ['paid R$ 12 for R$ 10: give back R$ 2', mismatch('over', 1200, 1000), 1200, { kind: 'give_back', cents: 200, refundable: true }],
    ['paid R$ 8 for R$ 10: collect R$ 2', mismatch('under', 800, 1000), 800, { kind: 'collect', cents: 200 }],
    ['an unreadable amount: nothing to say in money', mismatch('invalid', null, 1000), 0, null],
    ['a direction that contradicts the amounts', mismatch('over', 800, 1000), 800, null],
    ['a negative amount is not money owed', mismatch('over', -5, 1000), 0, null],
    ['a fractional amount is not cents', mismatch('over', 1200.5, 1000), 1200, null],
    ['over, but less left to refund than the difference', mismatch('over', 1200, 1000), 100, { kind: 'give_back', cents: 200, refundable: false }],
    ['a late payment with the newer sale paid too: give it all back', late({ newer_paid: true, newer_open: false, newer_known: true }), 1500, { kind: 'give_back', cents: 1500, refundable: true }],
    ['a late payment, newer sale unknown: only if paid twice', late({ newer_paid: false, newer_open: false, newer_known: false }), 1500, { kind: 'if_paid_twice', cents: 1500, refundable: true }],
    ['a late payment, newer sale still open: nothing to give back yet', late({ newer_paid: false, newer_open: true, newer_known: true }), 1500, null],
    ['a late payment, newer sale closed unpaid', late({ newer_paid: false, newer_open: false, newer_known: true }), 1500, null],
    ['paid on a withdrawn sale, newer sale paid too', { key: 'attention.paid_withdrawn', params: { received_cents: 900, expected_cents: 900, newer_paid: true } }, 900, { kind: 'give_back', cents: 900, refundable: true }],
    ['paid on a withdrawn sale, nothing else paid', { key: 'attention.paid_withdrawn', params: { received_cents: 900, expected_cents: 900, newer_paid: false } }, 900, null],
    ['paid after expiry: only if paid twice', { key: 'attention.paid_after_expiry', params: { received_cents: 700 } }, 700, { kind: 'if_paid_twice', cents: 700, refundable: true }],
    ['a refund not confirmed is answered, not refunded again', { key: 'attention.refund_not_confirmed', params: { amount_cents: 400 } }, 600, null],
    ['a conflict is for a supervisor to read', { key: 'attention.conflict', params: { code: 'x' } }, 600, null],
  ])('%s', (_name, item, refundable, expected) => {
    expect(settleUp({ refundable_cents: refundable, refunds: [] }, item)).toEqual(expected);
  });

  const refund = (amount_cents: number, state: SaleSummary['refunds'][number]['state'], refunded_cents: number | null = null): SaleSummary['refunds'][number] => ({
    refund_id: `r-${amount_cents}-${state}`,
    amount_cents,
    reason: null,
    requested_by: 'Rui',
    requested_at: 0,
    state,
    refunded_cents,
    error_code: null,
    error_detail: null,
    resent_by: null,
    confirmed_by: null,
  });

  it.each<[string, SaleSummary['refunds'], ReturnType<typeof settleUp>]>([
    ['refunded in full: never offered again', [refund(200, 'made', 200)], { kind: 'refunded', cents: 200 }],
    ['a refund still on its way counts: a second one could pay twice', [refund(200, 'requested')], { kind: 'refunded', cents: 200 }],
    ['a refund without an answer counts too', [refund(200, 'unconfirmed')], { kind: 'refunded', cents: 200 }],
    ['a refused refund gave nothing back', [refund(200, 'refused')], { kind: 'give_back', cents: 200, refundable: true }],
    ['part refunded: the rest is offered', [refund(50, 'made', 50)], { kind: 'give_back', cents: 150, refundable: true }],
  ])('%s', (_name, refunds, expected) => {
    expect(settleUp({ refundable_cents: 1150, refunds }, mismatch('over', 1200, 1000))).toEqual(expected);
  });
});
