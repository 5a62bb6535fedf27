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
});
