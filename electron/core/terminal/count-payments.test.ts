import { describe, expect, it } from 'vitest';
import type { ChargeDone, PaymentReceived } from '../sales/lifecycle.ts';
import { countPayments } from './terminal.ts';

const paid = (over: Partial<PaymentReceived>): PaymentReceived => ({ type: 'payment.received', source: 'webhook', amount_brl: '10.00', at: 1, ...over });
const done = (over: Partial<ChargeDone>): ChargeDone => ({ type: 'charge.done', amount_brl: '10.00', at: 1, ...over });

describe('countPayments', () => {
  it('counts a payment once, whatever reported it, and a charge.done only without its payment', () => {
    expect(countPayments([])).toBe(0);
    expect(countPayments([paid({ pix_id: 'p1', e2e_id: 'E1' }), paid({ pix_id: 'p1', e2e_id: 'E1', source: 'tx_status' })])).toBe(1);
    expect(countPayments([paid({ pix_id: 'p1', e2e_id: 'E1' }), done({ pix_id: 'p1' })])).toBe(1);
    expect(countPayments([done({ pix_id: 'p2' }), done({ pix_id: 'p2', webhook_id: 'w2' })])).toBe(1);
    expect(countPayments([paid({ pix_id: 'p1', e2e_id: 'E1' }), paid({ pix_id: 'p3', e2e_id: 'E3' }), done({ service_id: 's9' })])).toBe(3);
  });

  it('counts a kept webhook without e2e_id and the Tx Status answer of the same charge as one payment, in any order; two e2e_ids as two', () => {
    const webhook = paid({ pix_id: 'p1', service_id: 's1', webhook_id: 'w1', e2e_id: null });
    const poll = paid({ pix_id: 'p1', service_id: 's1', source: 'tx_status', e2e_id: 'E1' });
    expect(countPayments([webhook, poll])).toBe(1);
    expect(countPayments([poll, webhook])).toBe(1);
    expect(countPayments([webhook, paid({ service_id: 's1', webhook_id: 'w9', e2e_id: null })])).toBe(1);
    expect(countPayments([poll, paid({ pix_id: 'p1', e2e_id: 'E2' }), webhook])).toBe(2);
    // Without ids nothing ties two reports to one charge.
    expect(countPayments([paid({ webhook_id: 'a' }), paid({ webhook_id: 'b' })])).toBe(2);
  });
});
