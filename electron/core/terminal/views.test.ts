import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../shared/freeze.ts';
import type { Sale } from '../sales/lifecycle.ts';
import { SaleFacts } from './fixtures/sale-facts.ts';
import { created, displaced, paid, requested } from './fixtures/sale-events.ts';
import { saleSummary } from './views.ts';

/** The sales as the journal hands them out: frozen, a new object at each change. */
function journaled(facts: SaleFacts): Map<string, Sale> {
  return new Map(facts.sales.map((s) => [s.sale_id, deepFreeze(structuredClone(s))]));
}

describe('saleSummary', () => {
  it('hands out the same frozen summary for a sale that did not change, equal to one built anew', () => {
    const facts = new SaleFacts();
    facts.write([requested('a', 1, 1000), created('a'), paid('a', '10.00', 'E1')]);
    const sale = journaled(facts).get('a')!;
    const first = saleSummary(sale, [sale]);
    expect(saleSummary(sale, [sale])).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.description)).toBe(true);
    // Built from an unfrozen copy of the same sale, nothing is kept: the same text.
    const copy = structuredClone(sale);
    const fresh = saleSummary(copy, [copy]);
    expect(fresh).not.toBe(first);
    expect(fresh).toEqual(first);
    expect(saleSummary(copy, [copy])).not.toBe(fresh);
  });

  it('a changed sale (a new object) gets a new summary', () => {
    const facts = new SaleFacts();
    facts.write([requested('a', 1, 1000), created('a')]);
    const pending = journaled(facts).get('a')!;
    expect(saleSummary(pending, [pending]).status).toBe('pending');
    facts.write([paid('a', '10.00', 'E1')]);
    const nowPaid = journaled(facts).get('a')!;
    expect(saleSummary(nowPaid, [nowPaid]).status).toBe('paid');
    expect(saleSummary(pending, [pending]).status).toBe('pending');
  });

  it('a late payment is described anew as the newer sale changes, though the late sale did not', () => {
    const facts = new SaleFacts();
    facts.write([requested('a', 1, 1000), created('a'), requested('b', 2, 1200), displaced('a', 'b', 2), created('b'), paid('a', '10.00', 'E1')]);
    const before = journaled(facts);
    const late = before.get('a')!;
    const whileOpen = saleSummary(late, [late, before.get('b')!]);
    expect(whileOpen.description.key).toBe('sale.paid_late.newer_open');
    expect(whileOpen.description.attention[0]?.params).toMatchObject({ newer_open: true, newer_paid: false });

    facts.write([paid('b', '12.00', 'E2')]);
    const newerPaid = journaled(facts).get('b')!;
    // The same late sale object, its newer sale now paid: "the customer paid twice".
    const afterwards = saleSummary(late, [late, newerPaid]);
    expect(afterwards.description.key).toBe('sale.paid_late.newer_paid');
    expect(afterwards.description.attention[0]?.params).toMatchObject({ newer_open: false, newer_paid: true });
  });
  it('a late payment after two corrections is described anew as the chain’s last sale changes', () => {
    const facts = new SaleFacts();
    facts.write([requested('a', 1, 1000), created('a'), requested('b', 2, 1200), displaced('a', 'b', 2), created('b')]);
    facts.write([requested('c', 3, 1300), displaced('b', 'c', 3), created('c'), paid('a', '10.00', 'E1')]);
    const before = journaled(facts);
    const late = before.get('a')!;
    expect(saleSummary(late, [...before.values()]).description.key).toBe('sale.paid_late.newer_open');
    facts.write([paid('c', '13.00', 'E3')]);
    const after = journaled(facts);
    // The same late sale object, the chain's last sale now paid: never the kept "still open".
    expect(saleSummary(late, [late, after.get('b')!, after.get('c')!]).description.key).toBe('sale.paid_late.newer_paid');
  });
});
