/**
 * Issue 26, an edit's clear, through BackOffice.changeStore itself against a payment service
 * that keeps what it is asked to clear (reference 4.1: "a field cannot be cleared"): the edit's
 * other fields are saved and journaled, and the manager is told the field was kept, never that
 * it was cleared. The sandbox clears (backoffice.int.test.ts); this is the other answer.
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import type { Store, StorePatch } from '../api/routes/stores.ts';
import { memoryLogger } from '../log.ts';
import { BackOffice, OFFICE_STORE_CHANGED } from './backoffice.ts';

const STORE: Store = { merchant_id: 1, store_id: 4, store_name: 'Loja Sul', address: 'Rua G, 7', phone_number: '+55 11 5555-0808', email: 'sul@example.com' };

/** A service holding one store that applies a PATCH as `apply` says; every PATCH is kept. */
function officeOn(apply: (store: Store, patch: StorePatch) => Store) {
  let store = { ...STORE };
  const patches: StorePatch[] = [];
  const entries: { type: string; data: unknown }[] = [];
  const client = {
    listStores: async () => [{ ...store }],
    patchStore: async (storeId: number, patch: StorePatch) => {
      expect(storeId).toBe(STORE.store_id);
      patches.push(patch);
      store = apply(store, patch);
      return { ...store };
    },
  };
  const journal = { append: async (inputs: readonly { type: string; data: unknown }[]) => void entries.push(...inputs) };
  const office = new BackOffice({ client: client as never, journal: journal as never, clock: systemClock, log: memoryLogger(systemClock) });
  return { office, patches, entries, held: () => store };
}

const FORM = { store_name: 'Loja Sul Nova', address: 'Rua G, 7', phone_number: '', email: 'sul@example.com', clear: ['phone_number'] as const };

describe('changeStore clears an optional field only when the service does', () => {
  it('a service that clears: said cleared, absent in the store returned', async () => {
    const { office, patches, entries } = officeOn((s, p) => ({ ...s, ...p }));
    const { store, kept, cleared } = await office.changeStore('Marta', STORE.store_id, FORM);
    expect(patches).toEqual([{ store_name: 'Loja Sul Nova', phone_number: '' }]);
    expect(cleared).toEqual(['phone_number']);
    expect(kept).toEqual([]);
    expect(store).toEqual({ ...STORE, store_name: 'Loja Sul Nova', phone_number: null });
    expect(entries).toEqual([{ type: OFFICE_STORE_CHANGED, data: { by: 'Marta', store_id: STORE.store_id, fields: 'store_name,phone_number', cleared: 'phone_number' } }]);
  });

  it('a service that keeps a field sent empty: refused in words naming it; the rest saved and journaled', async () => {
    // As 4.1 allows: an empty value leaves the field as it was.
    const { office, entries, held } = officeOn((s, p) => ({ ...s, ...Object.fromEntries(Object.entries(p).filter(([, v]) => v !== '')) }));
    await expect(office.changeStore('Marta', STORE.store_id, FORM)).rejects.toMatchObject({ code: 'service_rejected', params: { problem: 'store_clear_kept', field: 'phone_number' } });
    expect(held()).toEqual({ ...STORE, store_name: 'Loja Sul Nova' });
    expect(entries).toEqual([{ type: OFFICE_STORE_CHANGED, data: { by: 'Marta', store_id: STORE.store_id, fields: 'store_name,phone_number', cleared: 'phone_number' } }]);
  });

  it('a field both cleared and typed: refused before anything is sent', async () => {
    const { office, patches, entries } = officeOn((s, p) => ({ ...s, ...p }));
    await expect(office.changeStore('Marta', STORE.store_id, { ...FORM, phone_number: '+55 11 5555-0909' })).rejects.toMatchObject({ params: { problem: 'store_clear_with_value' } });
    expect(patches).toEqual([]);
    expect(entries).toEqual([]);
  });
});
