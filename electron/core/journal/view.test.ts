import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { entriesOf, generatedSaleReducer } from '../../bench/generate-history.ts';
import type { GeneratedInput, GeneratedSale } from '../../bench/generate-history.ts';
import { openView } from './view.ts';
import type { SaleIndex } from './view.ts';

/**
 * The working set's IndexedDB holds the back office's external ids (the status, the shift and
 * created_at are indexed in memory, checkout-index.ts). An apply does not wait for the
 * engine to commit them (it runs one request per turn of the event loop), yet every index
 * query asked after an apply answers as if it had: the keys still waiting are candidates too,
 * and a query's rows are the ones whose keys, as memory has them now, match.
 */

interface EngineTransaction {
  mode: string;
  addEventListener(type: 'complete', listener: () => void): void;
}
const ENGINE_DATABASE = new URL('../../../node_modules/fake-indexeddb/build/esm/FDBDatabase.js', import.meta.url).href;
const Database = ((await import(ENGINE_DATABASE)) as { default: { prototype: { transaction(...args: unknown[]): EngineTransaction } } }).default;

const AT = Date.UTC(2026, 10, 26, 9);
const SALES = 12;

function created(i: number): GeneratedInput {
  return { at: AT + i, type: 'sale.created', data: { sale_id: `s${i}`, store_id: 1, checkout_id: 1 + (i % 3), amount_cents: 100 + i, external_id: `order-${i}`, shift_id: 'shift-1' } };
}
/** Sale i, under an external id all of them share (so an IndexedDB query finds many). */
function createdAs(i: number, externalId: string): GeneratedInput {
  const input = created(i);
  return { ...input, data: { ...input.data, external_id: externalId } };
}
function paid(i: number): GeneratedInput {
  return { at: AT + 1_000 + i, type: 'charge.paid', data: { sale_id: `s${i}`, amount_cents: 100 + i } };
}

/** The journal's entries for these inputs, numbered after `before` of them. */
function entries(inputs: GeneratedInput[], before: GeneratedInput[] = []) {
  return entriesOf([...before, ...inputs]).slice(before.length);
}

const ids = (sales: GeneratedSale[]) => sales.map((s) => s.sale_id).sort();
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

let view: SaleIndex<GeneratedSale>;
let failures: unknown[];

beforeEach(async () => {
  failures = [];
  view = await openView(generatedSaleReducer, undefined, (err) => failures.push(err));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await view.close();
  expect(failures).toEqual([]);
});

describe('the back office keys of the working set', () => {
  it('an apply resolves before the engine commits its keys, and a query asked right after sees them', async () => {
    const writes: EngineTransaction[] = [];
    const spy = vi.spyOn(Database.prototype, 'transaction');
    const inputs = Array.from({ length: SALES }, (_, i) => createdAs(i, 'order-day'));
    await view.applyEntries(entries(inputs));
    for (const r of spy.mock.results) if ((r.value as EngineTransaction).mode === 'readwrite') writes.push(r.value as EngineTransaction);
    spy.mockRestore();
    expect(writes).toHaveLength(1);
    let committed = false;
    writes[0]!.addEventListener('complete', () => (committed = true));
    // Twelve puts take twelve turns of the engine: the apply did not wait for them.
    expect(committed).toBe(false);

    expect(ids(await view.salesByExternalId('order-day'))).toEqual(ids(inputs.map((_, i) => ({ sale_id: `s${i}` }) as GeneratedSale)));
    expect(committed).toBe(true);
    expect(ids(await view.salesByStatus('created'))).toHaveLength(SALES);
    expect(ids(await view.salesByShift('shift-1'))).toHaveLength(SALES);
    expect(ids(await view.salesCreatedBetween(AT, AT + 3))).toEqual(['s0', 's1', 's2']);
  });

  it('a query finds the sales whose keys are still waiting to be written, in the engine\'s order, without waiting for them all', async () => {
    const original = Database.prototype.transaction;
    const writes = { started: 0, committed: 0 };
    vi.spyOn(Database.prototype, 'transaction').mockImplementation(function (this: unknown, ...args: unknown[]) {
      const tx = original.apply(this, args);
      if (tx.mode === 'readwrite') {
        writes.started++;
        tx.addEventListener('complete', () => writes.committed++);
      }
      return tx;
    });
    const many = 200;
    const inputs = Array.from({ length: many }, (_, i) => createdAs(i, 'order-day'));
    await view.applyEntries(entries(inputs));
    // One batch at a time: a read waits for the one under way, never for all of them.
    expect(writes.started).toBe(1);

    const byExternalId = await view.salesByExternalId('order-day');
    const byStatus = await view.salesByStatus('created');
    const byCreation = await view.salesCreatedBetween(AT, AT + many);
    expect(writes.committed).toBeLessThan(Math.ceil(many / 64));
    // By the index's key, then the sale id in code-unit order ("s10" before "s2"), as IndexedDB answers.
    expect(byExternalId.map((s) => s.sale_id)).toEqual(inputs.map((_, i) => `s${i}`).sort());
    expect(byStatus.map((s) => s.sale_id)).toEqual(inputs.map((_, i) => `s${i}`).sort());
    expect(byCreation.map((s) => s.sale_id)).toEqual(inputs.map((_, i) => `s${i}`));

    for (let turns = 0; writes.committed < Math.ceil(many / 64); turns++) {
      if (turns > 10_000) throw new Error('the keys were never written');
      await turn();
    }
    expect(writes.started).toBe(Math.ceil(many / 64));
    expect((await view.salesByExternalId('order-day')).map((s) => s.sale_id)).toEqual(byExternalId.map((s) => s.sale_id));
    expect((await view.salesByStatus('created')).map((s) => s.sale_id)).toEqual(byStatus.map((s) => s.sale_id));
  });

  it('a query answered after a newer apply leaves out the rows whose keys moved meanwhile', async () => {
    const made = Array.from({ length: SALES }, (_, i) => createdAs(i, 'order-day'));
    await view.applyEntries(entries(made));
    await view.salesByExternalId('order-day');

    // The query's transaction is created on its turn; s0 and s5 are created again under other
    // external ids after that, before its keys come back: the keys say "order-day", the rows not.
    const asked = view.salesByExternalId('order-day');
    const askedByStatus = view.salesByStatus('created');
    await turn();
    const moved = [0, 5].map((i) => ({ ...created(i), at: AT + 1_000 + i, data: { ...created(i).data, external_id: `order-${i}-again`, shift_id: 'shift-2' } }));
    await view.applyEntries(entries([...moved, paid(1)], made));
    const answer = await asked;
    expect(ids(answer)).toEqual(ids(made.map((_, i) => ({ sale_id: `s${i}` }) as GeneratedSale)).filter((id) => id !== 's0' && id !== 's5'));
    expect(answer.every((s) => s.external_id === 'order-day')).toBe(true);
    // A key that did not move keeps every row, whatever else changed in it (s1 is paid now).
    expect(answer.find((s) => s.sale_id === 's1')?.status).toBe('paid');
    // The status is answered from memory: as the working set was when it was asked.
    expect(ids(await askedByStatus)).toHaveLength(SALES);

    expect(ids(await view.salesByShift('shift-2'))).toEqual(['s0', 's5']);
    expect(ids(await view.salesByExternalId('order-day'))).toHaveLength(SALES - 2);
    expect(ids(await view.salesByExternalId('order-5-again'))).toEqual(['s5']);
    expect(ids(await view.salesByStatus('paid'))).toEqual(['s1']);
    expect(ids(await view.salesByStatus('created'))).toHaveLength(SALES - 1);
  });
});
