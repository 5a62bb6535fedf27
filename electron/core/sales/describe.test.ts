import { describe, expect, it } from 'vitest';
import { SaleFacts } from '../terminal/fixtures/sale-facts.ts';
import { describeSale } from './describe.ts';
import { created, displaced, paid, requested, T0 } from '../terminal/fixtures/sale-events.ts';
import type { Sale, SaleEvent } from './lifecycle.ts';

function describeIn(events: SaleEvent[], id: string): ReturnType<typeof describeSale> {
  const facts = new SaleFacts();
  for (const e of events) facts.write([e]);
  const all: Sale[] = facts.sales;
  return describeSale(facts.sale(id), all);
}

describe('describeSale', () => {
  // Sale a rung up, then displaced by sale b, both created: the start of every late payment here.
  // What a payment of sale a (10.00, withdrawn by ana) says to a person, under the reason the journal gave it.
  const paidWithdrawn = (reason: string) => ({
    reason,
    subject: '',
    key: 'attention.paid_withdrawn',
    params: { received_cents: 1000, expected_cents: 1000, amount_matches: true, withdrawn_by: 'ana', newer_open: false, newer_paid: false },
  });
  const displacedByB: SaleEvent[] = [requested('a', 1, 1000), created('a'), requested('b', 2, 1200), displaced('a', 'b', 2), created('b')];

  it('late payment while the newer sale is open: warns not to collect twice, with cents, not text', () => {
    const d = describeIn([...displacedByB, paid('a', '10.00')], 'a');
    expect(d.key).toBe('sale.paid_late.newer_open');
    expect(d.params).toEqual({
      expected_cents: 1000,
      received_cents: 1000,
      amount_matches: true,
      newer_sale_id: 'b',
      newer_amount_cents: 1200,
      newer_status: 'pending',
    });
    expect(d.tone).toBe('danger');
    expect(d.needs_person).toBe(true);
    expect(d.attention).toEqual([
      {
        reason: 'paid_late',
        subject: '',
        key: 'attention.paid_late',
        params: { received_cents: 1000, expected_cents: 1000, amount_matches: true, newer_sale_id: 'b', newer_open: true, newer_paid: false, newer_known: true },
      },
    ]);
  });

  it('late payment when the newer sale was paid too: says the customer paid twice, not "if"', () => {
    const d = describeIn(
      [...displacedByB, paid('b', '12.00', 'E2'), paid('a', '10.00')],
      'a',
    );
    expect(d.key).toBe('sale.paid_late.newer_paid');
    expect(d.params.newer_status).toBe('paid');
    expect(d.attention[0]?.params).toMatchObject({ newer_open: false, newer_paid: true });
  });

  it('late payment once the newer sale expired unpaid: the plain late-payment message', () => {
    const d = describeIn(
      [
        ...displacedByB,
        { type: 'sale.expired', sale_id: 'b', source: 'clock', at: T0 + 40 },
        paid('a', '10.00'),
      ],
      'a',
    );
    expect(d.key).toBe('sale.paid_late');
    expect(d.attention[0]?.params).toMatchObject({ newer_open: false, newer_paid: false });
  });

  it('late payment whose newer sale is not known here: says "if", never "was not paid"', () => {
    const facts = new SaleFacts();
    for (const e of [...displacedByB, paid('a', '10.00')]) facts.write([e]);
    const d = describeSale(facts.sale('a'), [facts.sale('a')]);
    expect(d.key).toBe('sale.paid_late.newer_unknown');
    expect(d.attention[0]?.params).toMatchObject({ newer_known: false, newer_open: false, newer_paid: false });
  });

  it('a withdrawn sale says who withdrew it; paid afterwards, it is a payment on a withdrawn sale for a person', () => {
    const withdrawn: SaleEvent = { type: 'sale.withdrawn', sale_id: 'a', by: 'ana', at: T0 + 20 };
    const before = describeIn([requested('a', 1, 1000), created('a'), withdrawn], 'a');
    expect(before).toMatchObject({ key: 'sale.withdrawn', params: { amount_cents: 1000, by: 'ana', withdrawn_at: T0 + 20 }, needs_person: false });
    const after = describeIn([requested('a', 1, 1000), created('a'), withdrawn, paid('a', '10.00')], 'a');
    expect(after).toMatchObject({ key: 'sale.paid_withdrawn', tone: 'danger', needs_person: true });
    expect(after.attention).toEqual([paidWithdrawn('paid_withdrawn')]);
  });

  // Issue 24 point 7: only a sale of the late sale's own correction chain (the sale that
  // displaced it, and the sales that displaced that one) is the same customer's.
  const expired = (id: string): SaleEvent => ({ type: 'sale.expired', sale_id: id, source: 'clock', at: T0 + 40 });
  const withdrawn = (id: string): SaleEvent => ({ type: 'sale.withdrawn', sale_id: id, by: 'ana', at: T0 + 20 });
  it.each([
    ['expired', [expired('b')]],
    ['withdrawn', [withdrawn('b'), displaced('b', 'c', 3)]],
  ] as [string, SaleEvent[]][])('the chain ended %s: the next customer’s sale, paid or open, is not this customer’s', (_end, ending) => {
    const chain = [...displacedByB, ...ending];
    const nextPaid = describeIn([...chain, requested('c', 3, 3000), created('c'), paid('c', '30.00', 'E3'), paid('a', '10.00')], 'a');
    expect(nextPaid.key).toBe('sale.paid_late');
    expect(nextPaid.attention[0]?.params).toMatchObject({ newer_paid: false, newer_open: false, newer_known: true });
    const nextOpen = describeIn([...chain, requested('c', 3, 3000), created('c'), paid('a', '10.00')], 'a');
    expect(nextOpen.key).toBe('sale.paid_late');
    expect(nextOpen.attention[0]?.params).toMatchObject({ newer_paid: false, newer_open: false, newer_known: true });
  });

  it('the chain ended paid: the customer paid twice, whatever the next customer did', () => {
    const d = describeIn(
      [
        ...displacedByB,
        paid('b', '12.00', 'E2'),
        requested('c', 3, 3000),
        created('c'),
        expired('c'),
        paid('a', '10.00'),
      ],
      'a',
    );
    expect(d.key).toBe('sale.paid_late.newer_paid');
    expect(d.params).toMatchObject({ newer_sale_id: 'b', newer_amount_cents: 1200, newer_status: 'paid' });
  });

  it('after two corrections, the chain’s last sale is this customer’s: paid, the customer paid twice; unknown, "if"', () => {
    const chain = [...displacedByB, requested('c', 3, 1300), displaced('b', 'c', 3), created('c')];
    const facts = new SaleFacts();
    for (const e of [...chain, paid('c', '13.00', 'E3'), requested('d', 4, 4000), created('d'), paid('a', '10.00')]) facts.write([e]);
    expect(describeSale(facts.sale('a'), facts.sales).key).toBe('sale.paid_late.newer_paid');
    // Without the chain's second link, nothing else of the checkout is taken for it.
    const d = describeSale(facts.sale('a'), facts.sales.filter((s) => s.sale_id !== 'c'));
    expect(d.key).toBe('sale.paid_late.newer_unknown');
    expect(d.attention[0]?.params).toMatchObject({ newer_paid: false, newer_open: false, newer_known: false });
  });

  it('withdrawn, then displaced by the next customer’s paid sale: a payment on a withdrawn sale, never "paid twice"', () => {
    const d = describeIn(
      [requested('a', 1, 1000), created('a'), withdrawn('a'), requested('c', 2, 3000), displaced('a', 'c', 2), created('c'), paid('c', '30.00', 'E3'), paid('a', '10.00')],
      'a',
    );
    expect(d).toMatchObject({ key: 'sale.paid_withdrawn', tone: 'danger', needs_person: true });
    // Acknowledged under the reason the journal gave it; said as a withdrawn sale's payment.
    expect(d.attention).toEqual([paidWithdrawn('paid_late')]);
  });

  it('amount mismatch: expected vs received and the direction; acknowledged, it no longer needs a person', () => {
    const events = [requested('a', 1, 1000), created('a'), paid('a', '9.50')];
    const d = describeIn(events, 'a');
    expect(d).toMatchObject({ key: 'sale.amount_mismatch', params: { expected_cents: 1000, received_cents: 950, amount_brl: '9.50', direction: 'under' }, needs_person: true });
    const acked = describeIn([...events, { type: 'sale.acknowledged', sale_id: 'a', reason: 'amount_mismatch', subject: '', by: 'rui', at: T0 + 99 }], 'a');
    expect(acked.needs_person).toBe(false);
    expect(acked.attention).toEqual([]);
    expect(acked.acknowledged).toEqual([{ reason: 'amount_mismatch', subject: '', by: 'rui', at: T0 + 99 }]);
  });

  it('an unreadable amount keeps the raw text for the person', () => {
    const d = describeIn([requested('a', 1, 1000), created('a'), paid('a', '1e3')], 'a');
    expect(d.params).toMatchObject({ received_cents: null, amount_brl: '1e3', direction: 'invalid' });
  });

  it('an extra payment on a paid sale is an attention item naming that payment', () => {
    const d = describeIn([requested('a', 1, 1000), created('a'), paid('a', '10.00'), { ...paid('a', '10.00', 'E2'), paid_at: T0 + 70 } as SaleEvent], 'a');
    expect(d.key).toBe('sale.paid');
    expect(d.tone).toBe('warning');
    expect(d.attention).toEqual([{ reason: 'extra_payment', subject: 'e2e:E2', key: 'attention.extra_payment', params: { received_cents: 1000, paid_at: T0 + 70, e2e_id: 'E2' } }]);
  });

  it.each([
    [[requested('a', 1, 1000)], 'sale.requested', 'info'],
    [[requested('a', 1, 1000), created('a')], 'sale.pending', 'info'],
    [[requested('a', 1, 1000), created('a'), paid('a', '10.00')], 'sale.paid', 'success'],
    [[requested('a', 1, 1000), created('a'), { type: 'sale.expired', sale_id: 'a', source: 'clock', at: T0 + 1 }], 'sale.expired', 'warning'],
    [[requested('a', 1, 1000), created('a'), displaced('a', 'b', 2)], 'sale.displaced', 'info'],
    [[requested('a', 1, 1000), { type: 'sale.create_uncertain', sale_id: 'a', reason: 'timeout', attempts: 3, at: T0 + 1 }], 'sale.uncertain', 'warning'],
    [[requested('a', 1, 1000), { type: 'sale.create_failed', sale_id: 'a', error: { status: 422, code: 'no_printed_qr' }, at: T0 + 1 }], 'sale.failed', 'danger'],
  ] as [SaleEvent[], string, string][])('%#: %s (%s)', (events, key, tone) => {
    const d = describeIn(events, 'a');
    expect(d.key).toBe(key);
    expect(d.tone).toBe(tone);
    expect(d.needs_person).toBe(false);
  });

  it('a conflict names its code and detail', () => {
    const d = describeIn([requested('a', 1, 1000), { ...created('a'), amount_brl: '99.00' } as SaleEvent], 'a');
    expect(d.attention).toEqual([
      { reason: 'conflict', subject: 'created_amount_differs:99.00', key: 'attention.conflict', params: { code: 'created_amount_differs', detail: '99.00' } },
    ]);
  });
});
