import { describe, expect, it } from 'vitest';
import { paid } from '../terminal/fixtures/sale-events.ts';
import { SaleFacts } from '../terminal/fixtures/sale-facts.ts';
import { APP_WITHDRAWER, checkoutScreen, CREATE_KEY_WINDOW_MS, EXPIRY_GRACE_MS, newestSaleFor, openSales, planCharge, planCreateOutcome, planTxStatus, planWithdraw, withdrawIfMadeTooLate } from './checkout.ts';
import type { CreateOutcome, SaleIntent } from './checkout.ts';
import { describeSale } from './describe.ts';
import { SALE_LIFETIME_MS } from './lifecycle.ts';
import type { PaymentReceived } from './lifecycle.ts';

const T0 = Date.UTC(2026, 10, 21, 13, 45, 0);

const intent = (id: string, amount = 1000, at = T0): SaleIntent => ({
  sale_id: id,
  idempotency_key: `k-${id}`,
  store_id: 1,
  checkout_id: 3,
  amount_cents: amount,
  requested_by: 'ana',
  at,
});
const createdOutcome = (id: string, at: number): CreateOutcome => ({
  kind: 'created',
  pix_id: `pix_${id}`,
  service_id: `svc_${id}`,
  qr_type: 'printed_dynamic',
  emv: `EMV-L-${id}`,
  pqr_emv: 'EMV-P',
  amount_brl: '10.00',
  created_at: at,
  expires_at: at + SALE_LIFETIME_MS,
});
const refusedOutcome: CreateOutcome = { kind: 'refused', error: { status: 503, code: 'printed_qr_disabled', detail: 'printed_qr_disabled' } };
const uncertainOutcome: CreateOutcome = { kind: 'uncertain', reason: 'timeout', attempts: 3 };

/** Drives a checkout as the terminal does: plan, journal, fold with the journal's reducer. */
class CheckoutFacts extends SaleFacts {
  charge(id: string, amount = 1000, at = T0): void {
    const plan = planCharge(this.sales, intent(id, amount, at));
    if (!plan.ok) throw new Error(`plan refused: ${plan.reason}`);
    this.write(plan.events);
  }
  answer(id: string, outcome: CreateOutcome, at: number): void {
    this.write(planCreateOutcome(this.sales, id, outcome, at));
  }
  /** Charged at `at`, and the service's 201 journaled at `answeredAt`. */
  chargeCreated(id: string, amount = 1000, at = T0, answeredAt = at): void {
    this.charge(id, amount, at);
    this.answer(id, createdOutcome(id, answeredAt), answeredAt);
  }
}

const pay = (id: string, amount = '10.00', e2e = 'E1'): PaymentReceived => paid(id, amount, e2e, { paidAt: T0 + 100_000, at: T0 + 101_000 });

describe('planCharge', () => {
  it('journals the intent with the next seq, and displaces the unpaid pending sale at once', () => {
    const checkout = new CheckoutFacts();
    checkout.chargeCreated('a', 1000, T0, T0 + 1_000);
    const plan = planCharge(checkout.sales, intent('b', 1200, T0 + 20_000));
    expect(plan).toEqual({
      ok: true,
      events: [
        { type: 'sale.requested', sale_id: 'b', idempotency_key: 'k-b', store_id: 1, checkout_id: 3, seq: 2, amount_cents: 1200, requested_by: 'ana', at: T0 + 20_000 },
        { type: 'sale.displaced', sale_id: 'a', by: 'b', by_seq: 2, evidence: 'newer_sale_requested', at: T0 + 20_000 },
      ],
    });
  });

  it('neither displaces nor closes a pending sale past its expires_at: it waits for its last read, noted as left behind', () => {
    const checkout = new CheckoutFacts();
    checkout.chargeCreated('a', 1000, T0, T0 + 1_000);
    const expiresAt = checkout.sale('a').created?.expires_at ?? 0;
    const plan = planCharge(checkout.sales, intent('b', 1200, expiresAt + 1_000));
    if (!plan.ok) throw new Error('refused');
    // The service expired it (or it was paid in its last seconds): the new sale cannot displace it.
    expect(plan.events.slice(1)).toEqual([{ type: 'sale.expired', sale_id: 'a', source: 'newer_sale', at: expiresAt + 1_000 }]);
    checkout.write(plan.events);
    expect(checkout.sale('a').status).toBe('pending');
    expect(openSales(checkout.sales, expiresAt + 2_000)).toContainEqual({ sale_id: 'a', how: 'tx_status', pix_id: 'pix_a' });
    // A later charge notes nothing more, and still does not displace it.
    checkout.answer('b', createdOutcome('b', expiresAt + 1_000), expiresAt + 1_000);
    const again = planCharge(checkout.sales, intent('c', 1300, expiresAt + 5_000));
    if (!again.ok) throw new Error('refused');
    expect(again.events.map((e) => e.sale_id)).toEqual(['c', 'b']);
  });

  it('a payment its last read finds once the next sale was charged is paid, and held for a person: the customer may be paying the new sale too', () => {
    const checkout = new CheckoutFacts();
    checkout.chargeCreated('a');
    const expiresAt = T0 + SALE_LIFETIME_MS;
    checkout.charge('b', 1200, expiresAt + 1_000);
    checkout.write([paid('a', '10.00', 'E1', { paidAt: expiresAt - 10_000, at: expiresAt + EXPIRY_GRACE_MS })]);
    expect(checkout.sale('a')).toMatchObject({ status: 'paid', attention: [{ reason: 'paid_after_expiry', subject: '' }] });
  });

  it('a sale left behind past its expiry is described as expiring until its last read', () => {
    const checkout = new CheckoutFacts();
    checkout.chargeCreated('a');
    expect(describeSale(checkout.sale('a')).key).toBe('sale.pending');
    checkout.charge('b', 1200, T0 + SALE_LIFETIME_MS + 1_000);
    expect(describeSale(checkout.sale('a'))).toMatchObject({ key: 'sale.expiring', params: { amount_cents: 1000, expires_at: T0 + SALE_LIFETIME_MS } });
    checkout.write(planTxStatus(checkout.sale('a'), 'expired', T0 + SALE_LIFETIME_MS + EXPIRY_GRACE_MS));
    expect(describeSale(checkout.sale('a')).key).toBe('sale.expired');
  });

  it('does not displace a paid, expired or refused sale, nor a sale of another checkout', () => {
    const checkout = new CheckoutFacts();
    checkout.chargeCreated('paid');
    checkout.write([pay('paid')]);
    checkout.chargeCreated('expired', 1000, T0 + 1);
    checkout.write([{ type: 'sale.expired', sale_id: 'expired', source: 'tx_status', at: T0 + 400_000 }]);
    checkout.charge('refused', 1000, T0 + 2);
    checkout.answer('refused', refusedOutcome, T0 + 2);
    const elsewhere = planCharge(checkout.sales, { ...intent('other'), checkout_id: 4 });
    if (!elsewhere.ok) throw new Error('refused');
    checkout.write(elsewhere.events);
    checkout.answer('other', createdOutcome('other', T0 + 3), T0 + 3);

    const plan = planCharge(checkout.sales, intent('next', 1000, T0 + 500_000));
    expect(plan.ok && plan.events.slice(1)).toEqual([]);
  });

  it('refuses a second sale while the newest create has no outcome: nobody could say which one the service holds', () => {
    const checkout = new CheckoutFacts();
    checkout.charge('a');
    expect(planCharge(checkout.sales, intent('b'))).toEqual({ ok: false, reason: 'create_in_flight', sale_id: 'a' });
  });

  it('an uncertain sale is displaced by whatever is requested next', () => {
    const checkout = new CheckoutFacts();
    checkout.charge('a');
    checkout.answer('a', uncertainOutcome, T0 + 30_000);
    expect(checkout.sale('a').status).toBe('uncertain');
    checkout.charge('b', 1000, T0 + 40_000);
    expect(checkout.sale('a').status).toBe('displaced');
    expect(checkout.sale('a').displaced_by).toBe('b');
  });

  it.each([
    [0, 'invalid_amount'],
    [-100, 'invalid_amount'],
    [12.5, 'invalid_amount'],
    [100_000_001, 'invalid_amount'],
  ] as const)('refuses amount %s cents', (amount, reason) => {
    expect(planCharge([], intent('a', amount))).toEqual({ ok: false, reason });
  });

  it('refuses a sale id already used', () => {
    const checkout = new CheckoutFacts();
    checkout.chargeCreated('a');
    expect(planCharge(checkout.sales, intent('a'))).toMatchObject({ ok: false, reason: 'sale_id_taken' });
  });
});

describe('the displacement rule across create outcomes', () => {
  function correcting(outcome: CreateOutcome): CheckoutFacts {
    const checkout = new CheckoutFacts();
    checkout.chargeCreated('a', 1000, T0, T0 + 1_000);
    checkout.charge('b', 1200, T0 + 20_000);
    checkout.answer('b', outcome, T0 + 21_000);
    return checkout;
  }

  it('newer create succeeds: the displacement is confirmed; only the newer QR shows', () => {
    const checkout = correcting(createdOutcome('b', T0 + 21_000));
    expect(checkout.sale('a').status).toBe('displaced');
    expect(checkout.sale('a').displacements.map((d) => d.evidence).sort()).toEqual(['newer_sale_created', 'newer_sale_requested']);
    expect(checkoutScreen(checkout.sales, 1, 3, T0 + 22_000)).toEqual({ kind: 'qr', sale_id: 'b', emv: 'EMV-P', amount_cents: 1200, expires_at: T0 + 21_000 + SALE_LIFETIME_MS });
  });

  it('newer create refused for certain: the earlier sale is pending again and its QR is back', () => {
    const checkout = correcting(refusedOutcome);
    expect(checkout.sale('b').status).toBe('failed');
    expect(checkout.sale('a').status).toBe('pending');
    expect(newestSaleFor(checkout.sales, 1, 3)?.sale_id).toBe('a');
    expect(checkoutScreen(checkout.sales, 1, 3, T0 + 22_000)).toMatchObject({ kind: 'qr', sale_id: 'a' });
  });

  it('newer create refused after the earlier sale was paid meanwhile: an ordinary payment, no warning', () => {
    const checkout = new CheckoutFacts();
    checkout.chargeCreated('a', 1000, T0, T0 + 1_000);
    checkout.charge('b', 1200, T0 + 20_000);
    checkout.write([pay('a')]);
    expect(checkout.sale('a').status).toBe('paid_late');
    checkout.answer('b', refusedOutcome, T0 + 30_000);
    expect(checkout.sale('a').status).toBe('paid');
    expect(checkout.sale('a').attention).toEqual([]);
  });

  it('newer create uncertain: the earlier sale stays displaced, and no QR shows at all', () => {
    const checkout = correcting(uncertainOutcome);
    expect(checkout.sale('a').status).toBe('displaced');
    expect(checkout.sale('b').status).toBe('uncertain');
    expect(checkoutScreen(checkout.sales, 1, 3, T0 + 22_000)).toEqual({ kind: 'uncertain', sale_id: 'b' });
  });

  it('an uncertain sale refused late cannot bring the first sale back once a third exists', () => {
    const checkout = correcting(uncertainOutcome);
    checkout.charge('c', 1300, T0 + 60_000);
    checkout.answer('b', refusedOutcome, T0 + 61_000);
    expect(checkout.sale('a').status).toBe('displaced');
    expect(checkout.sale('a').displaced_by).toBe('c');
  });

  it('while the newer create is in flight the screen shows no QR', () => {
    const checkout = new CheckoutFacts();
    checkout.chargeCreated('a', 1000, T0, T0 + 1_000);
    checkout.charge('b', 1200, T0 + 20_000);
    expect(checkoutScreen(checkout.sales, 1, 3, T0 + 20_500)).toEqual({ kind: 'creating', sale_id: 'b' });
  });
});

describe('expiry', () => {
  const checkout = new CheckoutFacts();
  checkout.chargeCreated('a');
  const expiresAt = T0 + SALE_LIFETIME_MS;

  it('the clock alone never closes a sale: it is followed by Tx Status past its expiry, however long', () => {
    expect(openSales(checkout.sales, expiresAt + 3_600_000)).toEqual([{ sale_id: 'a', how: 'tx_status', pix_id: 'pix_a' }]);
    expect(checkout.sale('a').status).toBe('pending');
  });

  it('Tx Status expired closes it only as the last read, made at least a minute after expires_at', () => {
    expect(planTxStatus(checkout.sale('a'), 'expired', expiresAt + 1)).toEqual([]);
    expect(planTxStatus(checkout.sale('a'), 'expired', expiresAt + EXPIRY_GRACE_MS - 1)).toEqual([]);
    expect(planTxStatus(checkout.sale('a'), 'expired', expiresAt + EXPIRY_GRACE_MS)).toEqual([{ type: 'sale.expired', sale_id: 'a', source: 'tx_status', at: expiresAt + EXPIRY_GRACE_MS }]);
  });

  it('past expires_at the screen shows the sale expiring, with no QR, until the last read closes it', () => {
    expect(checkoutScreen(checkout.sales, 1, 3, expiresAt)).toMatchObject({ kind: 'qr' });
    expect(checkoutScreen(checkout.sales, 1, 3, expiresAt + 1)).toEqual({ kind: 'expiring', sale_id: 'a', amount_cents: 1000, expires_at: expiresAt });
    const closed = new CheckoutFacts();
    closed.charge('a');
    closed.answer('a', createdOutcome('a', T0), T0);
    closed.write(planTxStatus(closed.sale('a'), 'expired', expiresAt + EXPIRY_GRACE_MS));
    expect(checkoutScreen(closed.sales, 1, 3, expiresAt + EXPIRY_GRACE_MS)).toEqual({ kind: 'settled', sale_id: 'a', status: 'expired' });
  });

  it('a displaced sale never expires by itself (reference 4.5 rule 4): read once after the newer sale is created, then left to webhooks', () => {
    const t = new CheckoutFacts();
    t.charge('a');
    t.answer('a', createdOutcome('a', T0), T0);
    t.charge('b', 1200, T0 + 10_000);
    // The newer create is in flight: the earlier sale may still be paid as the newest.
    expect(openSales(t.sales, T0 + 11_000)).toContainEqual({ sale_id: 'a', how: 'webhook_only' });
    t.answer('b', createdOutcome('b', T0 + 10_000), T0 + 10_000);
    expect(openSales(t.sales, T0 + 11_000)).toContainEqual({ sale_id: 'a', how: 'tx_status', pix_id: 'pix_a' });
    // TX not found: the service displaced it too; no person is needed, and it is read no more.
    const events = planTxStatus(t.sale('a'), 'not_found', T0 + 12_000);
    expect(events).toEqual([{ type: 'sale.displaced', sale_id: 'a', by: 'b', by_seq: 2, evidence: 'tx_not_found', at: T0 + 12_000 }]);
    t.write(events);
    expect(t.sale('a')).toMatchObject({ status: 'displaced', attention: [] });
    expect(openSales(t.sales, T0 + 3_600_000)).toContainEqual({ sale_id: 'a', how: 'webhook_only' });
  });

  it('a displaced sale paid just before the newer create reached the service: its read finds the payment, a late payment for a person', () => {
    const t = new CheckoutFacts();
    t.charge('a');
    t.answer('a', createdOutcome('a', T0), T0);
    t.charge('b', 1200, T0 + 290_000);
    t.answer('b', createdOutcome('b', T0 + 290_000), T0 + 290_000);
    t.write([{ ...paid('a', '10.00', 'E1', { paidAt: T0 + 289_000, at: T0 + 291_000 }), source: 'tx_status' }]);
    expect(t.sale('a')).toMatchObject({ status: 'paid_late', attention: [{ reason: 'paid_late', subject: '' }] });
    expect(openSales(t.sales, T0 + 292_000).map((f) => f.sale_id)).not.toContain('a');
  });
});

describe('planTxStatus', () => {
  const checkout = new CheckoutFacts();
  checkout.chargeCreated('a');

  it('expired from Tx Status, as the last read, is an expiry with its source', () => {
    const at = T0 + SALE_LIFETIME_MS + EXPIRY_GRACE_MS;
    expect(planTxStatus(checkout.sale('a'), 'expired', at)).toEqual([{ type: 'sale.expired', sale_id: 'a', source: 'tx_status', at }]);
  });

  it('TX not found for a sale we hold as pending: displaced by something we did not create, for a person', () => {
    const events = planTxStatus(checkout.sale('a'), 'not_found', T0 + 1);
    expect(events).toEqual([{ type: 'sale.displaced', sale_id: 'a', by: null, by_seq: null, evidence: 'tx_not_found', at: T0 + 1 }]);
    checkout.write(events);
    expect(checkout.sale('a').status).toBe('displaced');
    expect(checkout.sale('a').attention).toEqual([{ reason: 'displaced_unknown', subject: '' }]);
  });

  it('pending says nothing new', () => {
    expect(planTxStatus(checkout.sale('a'), 'pending', T0 + 1)).toEqual([]);
  });
});

describe('openSales', () => {
  it('follows pending by Tx Status, retries the newest unresolved create, and reads a displaced one once its displacement is confirmed', () => {
    const checkout = new CheckoutFacts();
    checkout.chargeCreated('a', 1000, T0, T0 + 1_000);
    checkout.charge('b', 1200, T0 + 20_000); // in flight, or the app crashed here
    expect(openSales(checkout.sales, T0 + 30_000)).toEqual([
      { sale_id: 'a', how: 'webhook_only' },
      { sale_id: 'b', how: 'retry_create', idempotency_key: 'k-b' },
    ]);
    checkout.answer('b', createdOutcome('b', T0 + 31_000), T0 + 31_000);
    expect(openSales(checkout.sales, T0 + 32_000)).toEqual([
      { sale_id: 'a', how: 'tx_status', pix_id: 'pix_a' },
      { sale_id: 'b', how: 'tx_status', pix_id: 'pix_b' },
    ]);
    checkout.write(planTxStatus(checkout.sale('a'), 'not_found', T0 + 33_000));
    expect(openSales(checkout.sales, T0 + 34_000)).toEqual([
      { sale_id: 'a', how: 'webhook_only' },
      { sale_id: 'b', how: 'tx_status', pix_id: 'pix_b' },
    ]);
  });

  it('a create left unresolved is retried however long it waited, while its key lasts (contract 2: 24 hours); then it becomes uncertain', () => {
    const checkout = new CheckoutFacts();
    checkout.charge('a');
    expect(openSales(checkout.sales, T0 + SALE_LIFETIME_MS)).toEqual([{ sale_id: 'a', how: 'retry_create', idempotency_key: 'k-a' }]);
    expect(openSales(checkout.sales, T0 + CREATE_KEY_WINDOW_MS - 1)).toEqual([{ sale_id: 'a', how: 'retry_create', idempotency_key: 'k-a' }]);
    expect(openSales(checkout.sales, T0 + CREATE_KEY_WINDOW_MS)).toEqual([{ sale_id: 'a', how: 'mark_uncertain' }]);
  });

  it('an uncertain sale is retried only while it is the newest and its key lasts; then only a webhook can tell', () => {
    const checkout = new CheckoutFacts();
    checkout.charge('a');
    checkout.answer('a', uncertainOutcome, T0 + 30_000);
    expect(openSales(checkout.sales, T0 + 60_000)).toEqual([{ sale_id: 'a', how: 'retry_create', idempotency_key: 'k-a' }]);
    expect(openSales(checkout.sales, T0 + 2 * SALE_LIFETIME_MS)).toEqual([{ sale_id: 'a', how: 'retry_create', idempotency_key: 'k-a' }]);
    expect(openSales(checkout.sales, T0 + CREATE_KEY_WINDOW_MS)).toEqual([{ sale_id: 'a', how: 'webhook_only' }]);
  });

  it('final states are not followed', () => {
    const checkout = new CheckoutFacts();
    checkout.chargeCreated('a');
    checkout.write([pay('a')]);
    checkout.charge('b', 1000, T0 + 1);
    checkout.answer('b', refusedOutcome, T0 + 1);
    expect(openSales(checkout.sales, T0 + 2)).toEqual([]);
  });
});

describe('checkoutScreen', () => {
  it('idle with no sale; settled once the newest sale is paid', () => {
    expect(checkoutScreen([], 1, 3, T0)).toEqual({ kind: 'idle' });
    const checkout = new CheckoutFacts();
    checkout.chargeCreated('a');
    checkout.write([pay('a')]);
    expect(checkoutScreen(checkout.sales, 1, 3, T0 + 1)).toEqual({ kind: 'settled', sale_id: 'a', status: 'paid' });
  });

  it('shows the emv when the gateway fell back to a dynamic QR', () => {
    const checkout = new CheckoutFacts();
    checkout.charge('a');
    checkout.answer('a', { ...createdOutcome('a', T0), qr_type: 'dynamic', pqr_emv: null } as CreateOutcome, T0);
    expect(checkoutScreen(checkout.sales, 1, 3, T0 + 1)).toMatchObject({ kind: 'qr', emv: 'EMV-L-a' });
  });
});

describe('planWithdraw: the service has no cancel, so a withdrawn sale stays payable', () => {
  const withdrawnCheckout = () => {
    const checkout = new CheckoutFacts();
    checkout.chargeCreated('a', 1000, T0, T0 + 1_000);
    const plan = planWithdraw(checkout.sales, 'a', 'ana', T0 + 10_000);
    if (!plan.ok) throw new Error(plan.reason);
    checkout.write(plan.events);
    return checkout;
  };

  it('withdraws a pending sale only; its QR is shown no more', () => {
    const checkout = withdrawnCheckout();
    expect(checkout.sale('a').status).toBe('withdrawn');
    expect(checkoutScreen(checkout.sales, 1, 3, T0 + 20_000)).toEqual({ kind: 'settled', sale_id: 'a', status: 'withdrawn' });
    expect(planWithdraw(checkout.sales, 'a', 'ana', T0 + 20_000)).toEqual({ ok: false, reason: 'not_pending' });
    expect(planWithdraw(checkout.sales, 'zz', 'ana', T0 + 20_000)).toEqual({ ok: false, reason: 'unknown_sale' });
  });

  it('is still followed by Tx Status, expires by its last read and is displaced by the next charge', () => {
    const checkout = withdrawnCheckout();
    expect(openSales(checkout.sales, T0 + 20_000)).toEqual([{ sale_id: 'a', how: 'tx_status', pix_id: 'pix_a' }]);
    expect(planTxStatus(checkout.sale('a'), 'expired', T0 + 1_000 + SALE_LIFETIME_MS + EXPIRY_GRACE_MS)).toMatchObject([{ type: 'sale.expired', sale_id: 'a', source: 'tx_status' }]);
    expect(planTxStatus(checkout.sale('a'), 'not_found', T0 + 30_000)).toMatchObject([{ type: 'sale.displaced', sale_id: 'a', evidence: 'tx_not_found' }]);
    checkout.charge('b', 1200, T0 + 40_000);
    expect(checkout.sale('a').status).toBe('displaced');
  });

  it('a payment that still arrives is a late payment for a person, never Paid', () => {
    const checkout = withdrawnCheckout();
    checkout.write([pay('a')]);
    expect(checkout.sale('a').status).toBe('paid_late');
    expect(checkout.sale('a').attention).toEqual([{ reason: 'paid_withdrawn', subject: '' }]);
  });
});

describe('withdrawIfMadeTooLate: a resent create answered with a sale made after its life', () => {
  const answered = (createdAt: number) => {
    const checkout = new CheckoutFacts();
    checkout.charge('a');
    checkout.write([{ type: 'sale.create_uncertain', sale_id: 'a', reason: 'timeout', attempts: 3, at: T0 + 15_000 }]);
    const sale = checkout.sales.find((x) => x.sale_id === 'a');
    if (!sale) throw new Error('no sale a');
    const planned = planCreateOutcome(checkout.sales, 'a', createdOutcome('a', createdAt), createdAt + 10);
    return { planned, events: withdrawIfMadeTooLate(sale, planned, createdAt, createdAt + 10) };
  };

  it('a replayed 201 (made within the sale’s life) is journaled as it is', () => {
    const { planned, events } = answered(T0 + SALE_LIFETIME_MS);
    expect(events).toEqual(planned);
  });

  it('a sale made later is withdrawn by the app in the same events, never left pending', () => {
    const { planned, events } = answered(T0 + SALE_LIFETIME_MS + 1);
    expect(events).toEqual([...planned, { type: 'sale.withdrawn', sale_id: 'a', by: APP_WITHDRAWER, at: T0 + SALE_LIFETIME_MS + 11 }]);
    const checkout = new CheckoutFacts();
    checkout.charge('a');
    checkout.write(events);
    expect(checkout.sales.find((x) => x.sale_id === 'a')?.status).toBe('withdrawn');
  });
});
