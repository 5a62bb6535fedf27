import { describe, expect, it } from 'vitest';
import { applySaleEvent, paymentKey, reduceSale, reportKey, SALE_LIFETIME_MS, SALE_STATUSES } from './lifecycle.ts';
import type { IllegalCode, PaymentReceived, Sale, SaleEvent, SaleStatus } from './lifecycle.ts';

const T0 = Date.UTC(2026, 10, 21, 13, 45, 0);
const S1 = 'sale-1';

const requested: SaleEvent = {
  type: 'sale.requested',
  sale_id: S1,
  idempotency_key: 'idem-1',
  store_id: 1,
  checkout_id: 3,
  seq: 1,
  amount_cents: 1000,
  requested_by: 'ana',
  at: T0,
};
const created: SaleEvent = {
  type: 'sale.created',
  sale_id: S1,
  pix_id: 'pix_1',
  service_id: 'svc_1',
  qr_type: 'printed_dynamic',
  emv: 'EMV-LOCATION',
  pqr_emv: 'EMV-PRINTED',
  amount_brl: '10.00',
  store_id: 1,
  checkout_id: 3,
  created_at: T0 + 1_000,
  expires_at: T0 + 1_000 + SALE_LIFETIME_MS,
  at: T0 + 1_000,
};
const refused: SaleEvent = { type: 'sale.create_failed', sale_id: S1, error: { status: 422, code: 'no_printed_qr' }, at: T0 + 1_000 };
const uncertain: SaleEvent = { type: 'sale.create_uncertain', sale_id: S1, reason: 'timeout', attempts: 3, at: T0 + 30_000 };
const displacedBy2: SaleEvent = { type: 'sale.displaced', sale_id: S1, by: 'sale-2', by_seq: 2, evidence: 'newer_sale_requested', at: T0 + 60_000 };
const withdrawnByAna: SaleEvent = { type: 'sale.withdrawn', sale_id: S1, by: 'ana', at: T0 + 50_000 };
const expiredByClock: SaleEvent = { type: 'sale.expired', sale_id: S1, source: 'clock', at: T0 + 400_000 };
const paidE1 = (amount: string): PaymentReceived => ({
  type: 'payment.received',
  source: 'webhook',
  webhook_id: 'wh-1',
  pix_id: 'pix_1',
  service_id: 'svc_1',
  amount_brl: amount,
  paid_at: T0 + 90_000,
  e2e_id: 'E1',
  at: T0 + 91_000,
});
/** Tx Status `refunded` for the payment E1: paid, then refunded in full (contract 3). */
const refundedE1: PaymentReceived = { ...paidE1('10.00'), source: 'tx_status', webhook_id: undefined, refunded: true, at: T0 + 200_000 };

/** How each state of the table is reached, through the reducer itself. */
const STATES: Record<SaleStatus, readonly SaleEvent[]> = {
  requested: [requested],
  pending: [requested, created],
  paid: [requested, created, paidE1('10.00')],
  amount_mismatch: [requested, created, paidE1('9.00')],
  expired: [requested, created, expiredByClock],
  displaced: [requested, created, displacedBy2],
  withdrawn: [requested, created, withdrawnByAna],
  paid_late: [requested, created, displacedBy2, paidE1('10.00')],
  refunded: [requested, created, paidE1('10.00'), refundedE1],
  partly_refunded: [
    requested,
    created,
    paidE1('10.00'),
    { type: 'refund.requested', sale_id: S1, refund_id: 'r1', idempotency_key: 'k-r1', amount_cents: 400, requested_by: 'sue', at: T0 + 150_000 },
    { type: 'refund.made', sale_id: S1, refund_id: 'r1', pay_in_refund_request_id: 'rpir_1', service_refund_id: 'rpi_1', refunded_cents: 400, at: T0 + 151_000 },
  ],
  uncertain: [requested, uncertain],
  failed: [requested, refused],
};

function build(events: readonly SaleEvent[]): Sale {
  let sale: Sale | undefined;
  for (const e of events) sale = reduceSale(sale, e);
  if (!sale) throw new Error('fixture produced no sale');
  return sale;
}

const payment = (amount: string | number, ids: { pix_id: string; service_id: string } = { pix_id: 'pix_1', service_id: 'svc_1' }): SaleEvent => ({
  type: 'payment.received',
  source: 'webhook',
  webhook_id: 'wh-2',
  ...ids,
  amount_brl: amount,
  paid_at: T0 + 120_000,
  e2e_id: 'E2',
  at: T0 + 121_000,
});

const EVENTS = {
  'sale.requested (repeated)': requested,
  'sale.requested (another amount)': { ...requested, amount_cents: 2000 },
  'sale.created': created,
  'sale.created (other ids)': { ...created, pix_id: 'pix_9', service_id: 'svc_9' },
  'sale.create_failed': refused,
  'sale.create_uncertain': uncertain,
  'sale.displaced (newer requested)': displacedBy2,
  'sale.displaced (newer created)': { ...displacedBy2, evidence: 'newer_sale_created' },
  'sale.displaced (TX not found)': { ...displacedBy2, by: null, by_seq: null, evidence: 'tx_not_found' },
  'sale.reinstated': { type: 'sale.reinstated', sale_id: S1, by: 'sale-2', at: T0 + 70_000 },
  'sale.expired (clock)': expiredByClock,
  'sale.expired (Tx Status)': { ...expiredByClock, source: 'tx_status' },
  'payment (equal)': payment('10.00'),
  'payment (under)': payment('9.99'),
  'payment (unreadable)': payment('1e3'),
  'payment (other ids)': payment('10.00', { pix_id: 'pix_9', service_id: 'svc_9' }),
  'charge.done': { type: 'charge.done', webhook_id: 'wh-d', pix_id: 'pix_1', service_id: 'svc_1', amount_brl: '10.00', settlement_id: null, at: T0 + 200_000 },
  'sale.withdrawn': { ...withdrawnByAna, at: T0 + 95_000 },
  'sale.acknowledged (paid_late)': { type: 'sale.acknowledged', sale_id: S1, reason: 'paid_late', subject: '', by: 'rui', at: T0 + 300_000 },
  'sale.acknowledged (amount_mismatch)': { type: 'sale.acknowledged', sale_id: S1, reason: 'amount_mismatch', subject: '', by: 'rui', at: T0 + 300_000 },
} satisfies Record<string, SaleEvent>;

/**
 * `=`: duplicate, nothing changes. `x:code`: rejected, nothing changes.
 * `status`: applied, an expected transition. `status!code`: recorded, but reported illegal.
 */
type Expect = '=' | `x:${IllegalCode}` | SaleStatus | `${SaleStatus}!${IllegalCode}`;
type Row = Record<SaleStatus, Expect>;

const every = (f: (s: SaleStatus) => Expect): Row =>
  Object.fromEntries(SALE_STATUSES.map((s) => [s, f(s)])) as Row;

// Whatever the evidence, a displacement is taken alike; only the provisional one (newer
// requested) is a duplicate of a sale it already displaced.
const DISPLACEMENT: Row = {
  requested: 'displaced!displaced_in_flight',
  pending: 'displaced',
  paid: 'paid_late!displaced_after_payment',
  amount_mismatch: 'paid_late!displaced_after_payment',
  expired: 'displaced!displaced_after_expiry',
  withdrawn: 'displaced',
  displaced: 'displaced',
  paid_late: 'paid_late',
  refunded: 'refunded!displaced_after_payment',
  partly_refunded: 'partly_refunded!displaced_after_payment',
  uncertain: 'displaced',
  failed: 'failed!displaced_refused_sale',
};

// Either source of an expiry ends the sale alike (reference 4.5 rule 4 on a displaced one).
const EXPIRY: Omit<Row, 'expired'> = {
  requested: 'requested!expired_before_created',
  pending: 'expired',
  paid: 'paid!expired_after_payment',
  amount_mismatch: 'amount_mismatch!expired_after_payment',
  withdrawn: 'expired',
  displaced: 'displaced!expired_while_displaced',
  paid_late: 'paid_late!expired_while_displaced',
  refunded: 'refunded!expired_after_payment',
  partly_refunded: 'partly_refunded!expired_after_payment',
  uncertain: 'uncertain!expired_before_created',
  failed: 'failed!expired_before_created',
};

// A payment of another amount than the sale's, too little or unreadable.
const OFF_AMOUNT: Row = {
  requested: 'amount_mismatch',
  pending: 'amount_mismatch',
  paid: 'paid',
  amount_mismatch: 'amount_mismatch',
  expired: 'amount_mismatch',
  withdrawn: 'paid_late',
  displaced: 'paid_late',
  paid_late: 'paid_late',
  refunded: 'refunded',
  partly_refunded: 'partly_refunded',
  uncertain: 'amount_mismatch',
  failed: 'amount_mismatch!payment_on_refused_sale',
};

const TABLE: Record<keyof typeof EVENTS, Row> = {
  'sale.requested (repeated)': every(() => '='),
  'sale.requested (another amount)': every((s) => `${s}!requested_twice`),
  'sale.created': {
    requested: 'pending',
    pending: '=',
    paid: '=',
    amount_mismatch: '=',
    expired: '=',
    withdrawn: '=',
    displaced: '=',
    paid_late: '=',
    refunded: '=',
    partly_refunded: '=',
    uncertain: 'pending', // resolved late: the sale existed after all
    failed: 'pending!created_after_refusal',
  },
  'sale.created (other ids)': {
    requested: 'pending',
    pending: 'pending!created_twice',
    paid: 'paid!created_twice',
    amount_mismatch: 'amount_mismatch!created_twice',
    expired: 'expired!created_twice',
    withdrawn: 'withdrawn!created_twice',
    displaced: 'displaced!created_twice',
    paid_late: 'paid_late!created_twice',
    refunded: 'refunded!created_twice',
    partly_refunded: 'partly_refunded!created_twice',
    uncertain: 'pending',
    failed: 'pending!created_after_refusal',
  },
  'sale.create_failed': {
    requested: 'failed',
    pending: 'pending!refused_after_created',
    paid: 'paid!refused_after_created',
    amount_mismatch: 'amount_mismatch!refused_after_created',
    expired: 'expired!refused_after_created',
    withdrawn: 'withdrawn!refused_after_created',
    displaced: 'displaced!refused_after_created',
    paid_late: 'paid_late!refused_after_created',
    refunded: 'refunded!refused_after_created',
    partly_refunded: 'partly_refunded!refused_after_created',
    uncertain: 'failed', // a later retry got a definite answer: nothing was created
    failed: '=',
  },
  'sale.create_uncertain': {
    requested: 'uncertain',
    pending: 'pending!uncertain_after_outcome',
    paid: 'paid!uncertain_after_outcome',
    amount_mismatch: 'amount_mismatch!uncertain_after_outcome',
    expired: 'expired!uncertain_after_outcome',
    withdrawn: 'withdrawn!uncertain_after_outcome',
    displaced: 'displaced!uncertain_after_outcome',
    paid_late: 'paid_late!uncertain_after_outcome',
    refunded: 'refunded!uncertain_after_outcome',
    partly_refunded: 'partly_refunded!uncertain_after_outcome',
    uncertain: '=',
    failed: 'failed!uncertain_after_outcome',
  },
  'sale.displaced (newer requested)': { ...DISPLACEMENT, displaced: '=', paid_late: '=' },
  // On a displaced sale the provisional displacement is confirmed.
  'sale.displaced (newer created)': DISPLACEMENT,
  'sale.displaced (TX not found)': DISPLACEMENT,
  'sale.reinstated': {
    requested: 'requested!reinstated_without_displacement',
    pending: 'pending!reinstated_without_displacement',
    paid: 'paid!reinstated_without_displacement',
    amount_mismatch: 'amount_mismatch!reinstated_without_displacement',
    expired: 'expired!reinstated_without_displacement',
    withdrawn: 'withdrawn!reinstated_without_displacement',
    displaced: 'pending', // the newer create was refused: the service still holds this one
    paid_late: 'paid', // ...and its payment is an ordinary one
    refunded: 'refunded!reinstated_without_displacement',
    partly_refunded: 'partly_refunded!reinstated_without_displacement',
    uncertain: 'uncertain!reinstated_without_displacement',
    failed: 'failed!reinstated_without_displacement',
  },
  'sale.expired (clock)': { ...EXPIRY, expired: '=' },
  'sale.expired (Tx Status)': { ...EXPIRY, expired: 'expired' }, // a second source agrees
  'payment (equal)': {
    requested: 'paid',
    pending: 'paid',
    paid: 'paid', // an extra payment, for a person
    amount_mismatch: 'amount_mismatch',
    expired: 'paid', // credited, flagged paid_after_expiry
    withdrawn: 'paid_late', // withdrawn, then paid: a person settles it
    displaced: 'paid_late',
    paid_late: 'paid_late',
    refunded: 'refunded',
    partly_refunded: 'partly_refunded',
    uncertain: 'paid', // the sale existed after all
    failed: 'paid!payment_on_refused_sale', // never drop money
  },
  'payment (under)': OFF_AMOUNT,
  'payment (unreadable)': OFF_AMOUNT,
  'payment (other ids)': {
    // No identity yet: the caller vouched for it (a person's attribution), the sale learns the ids.
    requested: 'paid',
    pending: 'x:identity_mismatch',
    paid: 'x:identity_mismatch',
    amount_mismatch: 'x:identity_mismatch',
    expired: 'x:identity_mismatch',
    withdrawn: 'x:identity_mismatch',
    displaced: 'x:identity_mismatch',
    paid_late: 'x:identity_mismatch',
    refunded: 'x:identity_mismatch',
    partly_refunded: 'x:identity_mismatch',
    uncertain: 'paid',
    failed: 'paid!payment_on_refused_sale',
  },
  'charge.done': {
    requested: 'paid',
    pending: 'paid', // charge.done before charge.paid: a completed charge was paid
    paid: 'paid',
    amount_mismatch: 'amount_mismatch',
    expired: 'paid',
    withdrawn: 'paid_late',
    displaced: 'paid_late',
    paid_late: 'paid_late',
    refunded: 'refunded',
    partly_refunded: 'partly_refunded',
    uncertain: 'paid',
    failed: 'paid!payment_on_refused_sale',
  },
  // Only a pending sale is withdrawn; otherwise the fact is kept and reported, the status stays.
  'sale.withdrawn': every((s) => (s === 'pending' ? 'withdrawn' : s === 'withdrawn' ? '=' : `${s}!withdrawn_not_pending`)),
  'sale.acknowledged (paid_late)': every((s) => (s === 'paid_late' ? 'paid_late' : `${s}!nothing_to_acknowledge`)),
  'sale.acknowledged (amount_mismatch)': every((s) => (s === 'amount_mismatch' ? 'amount_mismatch' : `${s}!nothing_to_acknowledge`)),
};

describe('every state × every event', () => {
  for (const [name, event] of Object.entries(EVENTS) as [keyof typeof EVENTS, SaleEvent][]) {
    describe(name, () => {
      it.each(SALE_STATUSES)(`from %s`, (state) => {
        const before = build(STATES[state]);
        expect(before.status).toBe(state);
        const step = applySaleEvent(before, event);
        const expected = TABLE[name][state];
        if (expected === '=') {
          expect(step.report).toEqual({ effect: 'duplicate', from: state, to: state, illegal: null });
          expect(step.sale).toBe(before);
        } else if (expected.startsWith('x:')) {
          expect(step.report).toEqual({ effect: 'rejected', from: state, to: state, illegal: expected.slice(2) });
          expect(step.sale).toBe(before);
        } else {
          const [to, illegal] = expected.split('!');
          expect(step.report).toEqual({ effect: 'applied', from: state, to, illegal: illegal ?? null });
          expect(step.sale?.status).toBe(to);
        }
      });
    });
  }

  it('the undefined sale takes only its intent; anything else is reported, not invented', () => {
    for (const [name, event] of Object.entries(EVENTS)) {
      const step = applySaleEvent(undefined, event);
      if (name.startsWith('sale.requested')) {
        expect(step.sale?.status).toBe('requested');
        expect(step.report).toEqual({ effect: 'applied', from: null, to: 'requested', illegal: null });
      } else {
        expect(step.sale).toBeUndefined();
        expect(step.report).toEqual({ effect: 'rejected', from: null, to: null, illegal: 'unknown_sale' });
      }
    }
  });

  it("another sale's event is rejected, whatever the state", () => {
    for (const state of SALE_STATUSES) {
      const before = build(STATES[state]);
      const step = applySaleEvent(before, { ...expiredByClock, sale_id: 'sale-9' });
      expect(step.report.illegal).toBe('wrong_sale');
      expect(step.sale).toBe(before);
    }
  });
});

describe('what each outcome records', () => {
  it('a settlement including the sale is recorded once per line, changes no status, and keeps the first time it was learnt', () => {
    const paid = build(STATES.paid);
    const settled = (at: number, settled_at: number | null, line: 'charge' | 'refund' = 'charge'): SaleEvent => ({ type: 'sale.settled', sale_id: S1, settlement_id: 42, line, settled_at, at });
    const first = applySaleEvent(paid, settled(T0 + 5_000_000, null));
    expect(first.report).toEqual({ effect: 'applied', from: 'paid', to: 'paid', illegal: null });
    // Learnt again (the settlement read by REST after its webhook): its settled_at is kept, the first time stands.
    const again = applySaleEvent(first.sale, settled(T0 + 6_000_000, T0 + 4_000_000));
    expect(again.sale?.settlements).toEqual([{ settlement_id: 42, line: 'charge', settled_at: T0 + 4_000_000, at: T0 + 5_000_000 }]);
    expect(applySaleEvent(again.sale, settled(T0 + 7_000_000, T0 + 4_000_000)).report.effect).toBe('duplicate');
    // A refund deduction in the same settlement is a line of its own; either order gives one record.
    const both = [settled(T0 + 5_000_000, T0 + 4_000_000), settled(T0 + 5_000_000, T0 + 4_000_000, 'refund')];
    expect(build([...STATES.paid, ...both]).settlements).toEqual(build([...STATES.paid, ...[...both].reverse()]).settlements);
    expect(build([...STATES.paid, ...both]).status).toBe('paid');
  });

  it('pending + equal payment: paid, with expected and received cents and the payment details', () => {
    const sale = build([...STATES.pending, paidE1('10.00')]);
    expect(sale.paid).toEqual({
      payment_key: 'e2e:E1',
      implied_by_done: false,
      amount_brl: '10.00',
      received_cents: 1000,
      expected_cents: 1000,
      amount_check: 'equal',
      paid_at: T0 + 90_000,
      e2e_id: 'E1',
    });
    expect(sale.webhook_ids).toEqual(['wh-1']);
    expect(sale.attention).toEqual([]);
  });

  it('amount_mismatch needs an acknowledgement and keeps expected vs received; the acknowledgement records who and when', () => {
    const mismatch = build(STATES.amount_mismatch);
    expect(mismatch.paid).toMatchObject({ expected_cents: 1000, received_cents: 900, amount_check: 'under' });
    expect(mismatch.attention).toEqual([{ reason: 'amount_mismatch', subject: '' }]);
    const acked = build([...STATES.amount_mismatch, EVENTS['sale.acknowledged (amount_mismatch)']]);
    expect(acked.status).toBe('amount_mismatch');
    expect(acked.attention).toEqual([]);
    expect(acked.acknowledgements).toEqual([{ reason: 'amount_mismatch', subject: '', by: 'rui', at: T0 + 300_000 }]);
  });

  it('paid_late records whether the amount matched, and needs a person', () => {
    const matched = build(STATES.paid_late);
    expect(matched.paid?.amount_check).toBe('equal');
    expect(matched.displaced_by).toBe('sale-2');
    expect(matched.attention).toEqual([{ reason: 'paid_late', subject: '' }]);
    const short = build([requested, created, displacedBy2, paidE1('7.00')]);
    expect(short.status).toBe('paid_late');
    expect(short.paid?.amount_check).toBe('under');
  });

  it('expired + payment: paid (it was credited) but flagged for a person', () => {
    const sale = build([...STATES.expired, paidE1('10.00')]);
    expect(sale.status).toBe('paid');
    expect(sale.attention).toEqual([{ reason: 'paid_after_expiry', subject: '' }]);
  });

  it('paid + a second payment with another e2e_id: kept as an extra payment needing a person', () => {
    const sale = build([...STATES.paid, EVENTS['payment (equal)']]);
    expect(sale.status).toBe('paid');
    expect(sale.payments.map((p) => p.key)).toEqual(['e2e:E1', 'e2e:E2']);
    expect(sale.paid?.payment_key).toBe('e2e:E1');
    expect(sale.attention).toEqual([{ reason: 'extra_payment', subject: 'e2e:E2' }]);
  });

  it('the same payment applied twice changes nothing: by e2e_id, by webhook-id without one, by ids and paid_at without either', () => {
    const once = build(STATES.paid);
    const twice = applySaleEvent(once, paidE1('10.00'));
    expect(twice.report.effect).toBe('duplicate');
    expect(twice.sale).toBe(once);

    const noE2e: PaymentReceived = { ...paidE1('10.00'), e2e_id: null };
    const a = build([...STATES.pending, noE2e]);
    expect(applySaleEvent(a, noE2e).sale).toBe(a);

    const bare: PaymentReceived = { ...paidE1('10.00'), e2e_id: null, webhook_id: undefined, source: 'tx_status' };
    const b = build([...STATES.pending, bare]);
    expect(applySaleEvent(b, { ...bare, at: bare.at + 5_000 }).sale).toBe(b); // a later poll of the same answer
  });

  it('the same payment by webhook and by Tx Status is one payment, with both sources', () => {
    const viaTx: SaleEvent = { ...paidE1('10.00'), source: 'tx_status', webhook_id: undefined, at: T0 + 95_000 };
    const sale = build([...STATES.paid, viaTx]);
    expect(sale.payments).toHaveLength(1);
    expect(sale.payments[0]?.sources).toEqual(['tx_status', 'webhook']);
    expect(sale.attention).toEqual([]);
  });

  it('two reports of one payment that disagree on the amount are a conflict for a person', () => {
    const sale = build([...STATES.paid, { ...paidE1('11.00'), webhook_id: 'wh-1b' }]);
    expect(sale.issues).toEqual([{ code: 'payment_amounts_disagree', detail: 'e2e:E1' }]);
    expect(sale.attention).toContainEqual({ reason: 'conflict', subject: 'payment_amounts_disagree:e2e:E1' });
  });

  it('charge.done before charge.paid: paid at once, and the later charge.paid is not a second payment', () => {
    const done = EVENTS['charge.done'];
    const first = build([...STATES.pending, done]);
    expect(first.status).toBe('paid');
    expect(first.paid?.implied_by_done).toBe(true);
    const then = build([...STATES.pending, done, paidE1('10.00')]);
    expect(then.status).toBe('paid');
    expect(then.paid?.implied_by_done).toBe(false);
    expect(then.attention).toEqual([]);
    expect(then).toEqual(build([...STATES.pending, paidE1('10.00'), done]));
  });

  it('uncertain + the late 201: pending, and a later newer sale displaces it as any other', () => {
    const sale = build([...STATES.uncertain, created]);
    expect(sale.status).toBe('pending');
    expect(sale.uncertain?.reason).toBe('timeout');
    expect(build([...STATES.uncertain, displacedBy2]).status).toBe('displaced');
  });

  it('a refused newer sale reinstates only its provisional displacement, never a confirmed one', () => {
    const reinstated = { type: 'sale.reinstated', sale_id: S1, by: 'sale-2', at: T0 + 70_000 } as const;
    expect(build([...STATES.displaced, reinstated]).status).toBe('pending');
    const confirmed = build([...STATES.displaced, EVENTS['sale.displaced (newer created)'], reinstated]);
    expect(confirmed.status).toBe('displaced');
    // A later displacer keeps it displaced when the intermediate one is refused.
    const byThree = build([...STATES.displaced, { ...displacedBy2, by: 'sale-3', by_seq: 3 }, reinstated]);
    expect(byThree.status).toBe('displaced');
    expect(byThree.displaced_by).toBe('sale-3');
  });

  it('a displaced sale keeps its ids, so its late payment is still recognised', () => {
    const sale = build(STATES.displaced);
    expect(sale.pix_id).toBe('pix_1');
    expect(sale.service_id).toBe('svc_1');
  });

  it('a sale shows the printed QR, or the dynamic emv when the gateway fell back', () => {
    expect(build(STATES.pending).display_emv).toBe('EMV-PRINTED');
    const fallback = build([requested, { ...created, qr_type: 'dynamic', pqr_emv: null, emv: 'EMV-DYNAMIC' }]);
    expect(fallback.display_emv).toBe('EMV-DYNAMIC');
  });

  it('a 201 for another amount or another checkout than asked is a conflict for a person', () => {
    const sale = build([requested, { ...created, amount_brl: '100.00', checkout_id: 4 }]);
    expect(sale.issues.map((i) => i.code)).toEqual(['created_amount_differs', 'created_location_differs']);
  });

  it("a sale's payment is named by its e2e_id, or is the sale's one payment without it; a report kept apart also by webhook-id, then its ids", () => {
    const base = { type: 'payment.received', source: 'tx_status', amount_brl: '1.00', at: 0 } as const;
    expect(paymentKey({ e2e_id: 'E' })).toBe('e2e:E');
    expect(paymentKey({ e2e_id: null })).toBe('payment');
    expect(reportKey({ ...base, e2e_id: 'E', webhook_id: 'w' })).toBe('e2e:E');
    expect(reportKey({ ...base, e2e_id: null, webhook_id: 'w' })).toBe('webhook:w');
    expect(reportKey({ ...base, pix_id: 'p', service_id: 's', paid_at: 5 })).toBe('tx_status:p:s:5');
  });

  it('a report without e2e_id is the payment of a sale already paid, whichever came first; two e2e_ids are two payments', () => {
    const bare: PaymentReceived = { ...paidE1('10.00'), e2e_id: null, webhook_id: 'wh-bare', paid_at: null };
    for (const order of [[paidE1('10.00'), bare], [bare, paidE1('10.00')]]) {
      const sale = build([...STATES.pending, ...order]);
      expect(sale.payments.map((p) => [p.key, p.sources, p.webhook_ids])).toEqual([['e2e:E1', ['webhook'], ['wh-1', 'wh-bare']]]);
      expect(sale.attention).toEqual([]);
    }
    const second = build([...STATES.pending, bare, paidE1('10.00'), EVENTS['payment (equal)']]);
    expect(second.payments.map((p) => p.key)).toEqual(['e2e:E1', 'e2e:E2']);
    expect(second.attention).toEqual([{ reason: 'extra_payment', subject: 'e2e:E2' }]);
  });

  it('Tx Status refunded: the sale reads refunded, whatever order the paid and refunded reports came in', () => {
    const a = build([...STATES.pending, paidE1('10.00'), refundedE1]);
    const b = build([...STATES.pending, refundedE1, paidE1('10.00')]);
    expect(a.status).toBe('refunded');
    expect(a.payments).toHaveLength(1);
    expect(a.payments[0]?.refunded).toBe(true);
    expect(a).toEqual(b);
  });
});
