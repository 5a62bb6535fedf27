import { describe, expect, it } from 'vitest';
import { projectBook, reduceBook } from './book.ts';
import type { BookEvent, SalesBook } from './book.ts';
import { checkoutScreen, EXPIRY_GRACE_MS, newestSaleFor, openSales, planCharge, planCreateOutcome, planExpiry, planTxStatus } from './checkout.ts';
import type { CreateOutcome, SaleIntent } from './checkout.ts';
import { SALE_LIFETIME_MS } from './lifecycle.ts';
import type { PaymentReceived, Sale } from './lifecycle.ts';

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

/** Drives a checkout as the app does: plan, journal, fold. */
class Till {
  book: SalesBook = projectBook([]);
  journal: BookEvent[] = [];
  get sales(): Sale[] {
    return Object.values(this.book.sales);
  }
  sale(id: string): Sale {
    const s = this.book.sales[id];
    if (!s) throw new Error(`no sale ${id}`);
    return s;
  }
  write(events: readonly BookEvent[]): void {
    for (const e of events) {
      this.journal.push(e);
      this.book = reduceBook(this.book, e).book;
    }
  }
  charge(id: string, amount = 1000, at = T0): void {
    const plan = planCharge(this.sales, intent(id, amount, at));
    if (!plan.ok) throw new Error(`plan refused: ${plan.reason}`);
    this.write(plan.events);
  }
  answer(id: string, outcome: CreateOutcome, at: number): void {
    this.write(planCreateOutcome(this.sales, id, outcome, at));
  }
}

const pay = (id: string, amount = '10.00', e2e = 'E1'): PaymentReceived => ({
  type: 'payment.received',
  source: 'webhook',
  webhook_id: `wh-${e2e}`,
  pix_id: `pix_${id}`,
  service_id: `svc_${id}`,
  amount_brl: amount,
  paid_at: T0 + 100_000,
  e2e_id: e2e,
  at: T0 + 101_000,
});

describe('planCharge', () => {
  it('journals the intent with the next seq, and displaces the unpaid pending sale at once', () => {
    const till = new Till();
    till.charge('a');
    till.answer('a', createdOutcome('a', T0 + 1_000), T0 + 1_000);
    const plan = planCharge(till.sales, intent('b', 1200, T0 + 20_000));
    expect(plan).toEqual({
      ok: true,
      events: [
        { type: 'sale.requested', sale_id: 'b', idempotency_key: 'k-b', store_id: 1, checkout_id: 3, seq: 2, amount_cents: 1200, requested_by: 'ana', at: T0 + 20_000 },
        { type: 'sale.displaced', sale_id: 'a', by: 'b', by_seq: 2, evidence: 'newer_sale_requested', at: T0 + 20_000 },
      ],
    });
  });

  it('does not displace a paid, expired or refused sale, nor a sale of another checkout', () => {
    const till = new Till();
    till.charge('paid');
    till.answer('paid', createdOutcome('paid', T0), T0);
    till.write([pay('paid')]);
    till.charge('expired', 1000, T0 + 1);
    till.answer('expired', createdOutcome('expired', T0 + 1), T0 + 1);
    till.write([{ type: 'sale.expired', sale_id: 'expired', source: 'tx_status', at: T0 + 400_000 }]);
    till.charge('refused', 1000, T0 + 2);
    till.answer('refused', refusedOutcome, T0 + 2);
    const elsewhere = planCharge(till.sales, { ...intent('other'), checkout_id: 4 });
    if (!elsewhere.ok) throw new Error('refused');
    till.write(elsewhere.events);
    till.answer('other', createdOutcome('other', T0 + 3), T0 + 3);

    const plan = planCharge(till.sales, intent('next', 1000, T0 + 500_000));
    expect(plan.ok && plan.events.slice(1)).toEqual([]);
  });

  it('refuses a second sale while the newest create has no outcome: nobody could say which one the service holds', () => {
    const till = new Till();
    till.charge('a');
    expect(planCharge(till.sales, intent('b'))).toEqual({ ok: false, reason: 'create_in_flight', sale_id: 'a' });
  });

  it('an uncertain sale is displaced by whatever is requested next', () => {
    const till = new Till();
    till.charge('a');
    till.answer('a', uncertainOutcome, T0 + 30_000);
    expect(till.sale('a').status).toBe('uncertain');
    till.charge('b', 1000, T0 + 40_000);
    expect(till.sale('a').status).toBe('displaced');
    expect(till.sale('a').displaced_by).toBe('b');
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
    const till = new Till();
    till.charge('a');
    till.answer('a', createdOutcome('a', T0), T0);
    expect(planCharge(till.sales, intent('a'))).toMatchObject({ ok: false, reason: 'sale_id_taken' });
  });
});

describe('the displacement rule across create outcomes', () => {
  function correcting(outcome: CreateOutcome): Till {
    const till = new Till();
    till.charge('a', 1000);
    till.answer('a', createdOutcome('a', T0 + 1_000), T0 + 1_000);
    till.charge('b', 1200, T0 + 20_000);
    till.answer('b', outcome, T0 + 21_000);
    return till;
  }

  it('newer create succeeds: the displacement is confirmed; only the newer QR shows', () => {
    const till = correcting(createdOutcome('b', T0 + 21_000));
    expect(till.sale('a').status).toBe('displaced');
    expect(till.sale('a').displacements.map((d) => d.evidence).sort()).toEqual(['newer_sale_created', 'newer_sale_requested']);
    expect(checkoutScreen(till.sales, 1, 3, T0 + 22_000)).toEqual({ kind: 'qr', sale_id: 'b', emv: 'EMV-P', amount_cents: 1200, expires_at: T0 + 21_000 + SALE_LIFETIME_MS });
  });

  it('newer create refused for certain: the earlier sale is pending again and its QR is back', () => {
    const till = correcting(refusedOutcome);
    expect(till.sale('b').status).toBe('failed');
    expect(till.sale('a').status).toBe('pending');
    expect(newestSaleFor(till.sales, 1, 3)?.sale_id).toBe('a');
    expect(checkoutScreen(till.sales, 1, 3, T0 + 22_000)).toMatchObject({ kind: 'qr', sale_id: 'a' });
  });

  it('newer create refused after the earlier sale was paid meanwhile: an ordinary payment, no warning', () => {
    const till = new Till();
    till.charge('a');
    till.answer('a', createdOutcome('a', T0 + 1_000), T0 + 1_000);
    till.charge('b', 1200, T0 + 20_000);
    till.write([pay('a')]);
    expect(till.sale('a').status).toBe('paid_late');
    till.answer('b', refusedOutcome, T0 + 30_000);
    expect(till.sale('a').status).toBe('paid');
    expect(till.sale('a').attention).toEqual([]);
  });

  it('newer create uncertain: the earlier sale stays displaced, and no QR shows at all', () => {
    const till = correcting(uncertainOutcome);
    expect(till.sale('a').status).toBe('displaced');
    expect(till.sale('b').status).toBe('uncertain');
    expect(checkoutScreen(till.sales, 1, 3, T0 + 22_000)).toEqual({ kind: 'uncertain', sale_id: 'b' });
  });

  it('an uncertain sale refused late cannot bring the first sale back once a third exists', () => {
    const till = correcting(uncertainOutcome);
    till.charge('c', 1300, T0 + 60_000);
    till.answer('b', refusedOutcome, T0 + 61_000);
    expect(till.sale('a').status).toBe('displaced');
    expect(till.sale('a').displaced_by).toBe('c');
  });

  it('while the newer create is in flight the screen shows no QR', () => {
    const till = new Till();
    till.charge('a');
    till.answer('a', createdOutcome('a', T0 + 1_000), T0 + 1_000);
    till.charge('b', 1200, T0 + 20_000);
    expect(checkoutScreen(till.sales, 1, 3, T0 + 20_500)).toEqual({ kind: 'creating', sale_id: 'b' });
  });
});

describe('expiry', () => {
  const till = new Till();
  till.charge('a');
  till.answer('a', createdOutcome('a', T0), T0);
  const expiresAt = T0 + SALE_LIFETIME_MS;

  it('the clock expires a pending sale only after the grace', () => {
    expect(planExpiry(till.sales, expiresAt + EXPIRY_GRACE_MS)).toEqual([]);
    expect(planExpiry(till.sales, expiresAt + EXPIRY_GRACE_MS + 1)).toEqual([{ type: 'sale.expired', sale_id: 'a', source: 'clock', at: expiresAt + EXPIRY_GRACE_MS + 1 }]);
  });

  it('the screen stops showing the QR at expires_at, before the clock journals the expiry', () => {
    expect(checkoutScreen(till.sales, 1, 3, expiresAt)).toMatchObject({ kind: 'qr' });
    expect(checkoutScreen(till.sales, 1, 3, expiresAt + 1)).toEqual({ kind: 'settled', sale_id: 'a', status: 'expired' });
  });

  it('a displaced sale never expires by the clock (reference 4.5 rule 4)', () => {
    const t = new Till();
    t.charge('a');
    t.answer('a', createdOutcome('a', T0), T0);
    t.charge('b', 1200, T0 + 10_000);
    expect(planExpiry(t.sales, T0 + 3_600_000).map((e) => e.sale_id)).toEqual([]);
  });
});

describe('planTxStatus', () => {
  const till = new Till();
  till.charge('a');
  till.answer('a', createdOutcome('a', T0), T0);

  it('expired from Tx Status is an expiry with its source', () => {
    expect(planTxStatus(till.sale('a'), 'expired', T0 + 1)).toEqual([{ type: 'sale.expired', sale_id: 'a', source: 'tx_status', at: T0 + 1 }]);
  });

  it('TX not found for a sale we hold as pending: displaced by something we did not create, for a person', () => {
    const events = planTxStatus(till.sale('a'), 'not_found', T0 + 1);
    expect(events).toEqual([{ type: 'sale.displaced', sale_id: 'a', by: null, by_seq: null, evidence: 'tx_not_found', at: T0 + 1 }]);
    till.write(events);
    expect(till.sale('a').status).toBe('displaced');
    expect(till.sale('a').attention).toEqual([{ reason: 'displaced_unknown', subject: '' }]);
  });

  it('pending says nothing new', () => {
    expect(planTxStatus(till.sale('a'), 'pending', T0 + 1)).toEqual([]);
  });
});

describe('openSales', () => {
  it('follows pending by Tx Status, retries the newest unresolved create, and only listens for displaced ones', () => {
    const till = new Till();
    till.charge('a');
    till.answer('a', createdOutcome('a', T0 + 1_000), T0 + 1_000);
    till.charge('b', 1200, T0 + 20_000); // in flight, or the app crashed here
    expect(openSales(till.sales, T0 + 30_000)).toEqual([
      { sale_id: 'a', how: 'webhook_only' },
      { sale_id: 'b', how: 'retry_create', idempotency_key: 'k-b' },
    ]);
    till.answer('b', createdOutcome('b', T0 + 31_000), T0 + 31_000);
    expect(openSales(till.sales, T0 + 32_000)).toEqual([
      { sale_id: 'a', how: 'webhook_only' },
      { sale_id: 'b', how: 'tx_status', pix_id: 'pix_b' },
    ]);
  });

  it('a create left unresolved past the sale lifetime is not retried: it becomes uncertain', () => {
    const till = new Till();
    till.charge('a');
    expect(openSales(till.sales, T0 + SALE_LIFETIME_MS)).toEqual([{ sale_id: 'a', how: 'mark_uncertain' }]);
  });

  it('an uncertain sale is retried only while it is the newest and young; then only a webhook can tell', () => {
    const till = new Till();
    till.charge('a');
    till.answer('a', uncertainOutcome, T0 + 30_000);
    expect(openSales(till.sales, T0 + 60_000)).toEqual([{ sale_id: 'a', how: 'retry_create', idempotency_key: 'k-a' }]);
    expect(openSales(till.sales, T0 + SALE_LIFETIME_MS)).toEqual([{ sale_id: 'a', how: 'webhook_only' }]);
  });

  it('final states are not followed', () => {
    const till = new Till();
    till.charge('a');
    till.answer('a', createdOutcome('a', T0), T0);
    till.write([pay('a')]);
    till.charge('b', 1000, T0 + 1);
    till.answer('b', refusedOutcome, T0 + 1);
    expect(openSales(till.sales, T0 + 2)).toEqual([]);
  });
});

describe('checkoutScreen', () => {
  it('idle with no sale; settled once the newest sale is paid', () => {
    expect(checkoutScreen([], 1, 3, T0)).toEqual({ kind: 'idle' });
    const till = new Till();
    till.charge('a');
    till.answer('a', createdOutcome('a', T0), T0);
    till.write([pay('a')]);
    expect(checkoutScreen(till.sales, 1, 3, T0 + 1)).toEqual({ kind: 'settled', sale_id: 'a', status: 'paid' });
  });

  it('shows the emv when the gateway fell back to a dynamic QR', () => {
    const till = new Till();
    till.charge('a');
    till.answer('a', { ...createdOutcome('a', T0), qr_type: 'dynamic', pqr_emv: null } as CreateOutcome, T0);
    expect(checkoutScreen(till.sales, 1, 3, T0 + 1)).toMatchObject({ kind: 'qr', emv: 'EMV-L-a' });
  });
});
