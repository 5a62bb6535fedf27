import { beforeEach, describe, expect, it } from 'vitest';
import type { CheckoutView, SaleView } from '../../electron/core/contract.ts';
import type { Outcome } from '../lib/messages.ts';
import { connectOutcomeSounds, useCheckout } from './checkout.ts';

function sale(id: string, status: SaleView['status']): SaleView {
  return { sale_id: id, status, amount_cents: 1000, description: { attention: [] } } as unknown as SaleView;
}

function view(now: number, sales: SaleView[], checkout = 1): CheckoutView {
  return { store_id: 1, checkout_id: checkout, now, screen: { kind: 'idle' }, newest: sales[0] ?? null, recent: sales, attention: [] };
}

describe('checkout store', () => {
  beforeEach(() => {
    useCheckout.setState({ key: { storeId: 1, checkoutId: 1 }, view: null, receivedAt: 0 });
  });

  it('keeps the newest view of its own checkout only', () => {
    const { receive } = useCheckout.getState();
    receive(view(2_000, [sale('b', 'pending')]));
    receive(view(1_000, [sale('a', 'pending')]));
    receive(view(3_000, [sale('x', 'paid')], 2));
    expect(useCheckout.getState().view?.recent[0]?.sale_id).toBe('b');
    receive(view(2_500, [sale('b', 'paid')]));
    expect(useCheckout.getState().view?.recent[0]?.status).toBe('paid');
  });

  it('sounds the loudest outcome once, and nothing for the first view', () => {
    const played: Outcome[] = [];
    const off = connectOutcomeSounds((o) => played.push(o));
    const { receive } = useCheckout.getState();
    receive(view(1, [sale('b', 'pending'), sale('a', 'paid')]));
    expect(played).toEqual([]);
    receive(view(2, [sale('b', 'paid'), sale('a', 'paid_late')]));
    expect(played).toEqual(['paid_late']);
    receive(view(3, [sale('b', 'paid'), sale('a', 'paid_late')]));
    expect(played).toEqual(['paid_late']);
    off();
  });
});
