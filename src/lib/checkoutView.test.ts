import { describe, expect, it } from 'vitest';
import type { CheckoutView, SaleSummary } from '../../electron/core/contract.ts';
import { CROSSING_MS, acceptView, isExpiringAt, isLive, resyncEveryMs, saleToReplace, screenSale, viewSeq } from './checkoutView.ts';

function sale(id: string, status: SaleSummary['status'], amount = 1000, seq = 1): SaleSummary {
  return {
    sale_id: id,
    store_id: 1,
    checkout_id: 1,
    seq,
    status,
    amount_cents: amount,
    external_id: null,
    requested_at: 0,
    requested_by: 'cashier',
    pix_id: null,
    service_id: null,
    qr_type: null,
    expires_at: null,
    displaced_by: null,
    received_cents: null,
    received_total_cents: 0,
    refunded_cents: 0,
    refundable_cents: 0,
    refunds: [],
    paid_at: null,
    e2e_id: null,
    settlement: null,
    description: { key: 'sale.pending', params: {}, tone: 'info', needs_person: false, attention: [], acknowledged: [] },
    issues: [],
  };
}

function view(now: number, screen: CheckoutView['screen'], recent: SaleSummary[] = [], at = { store: 1, checkout: 1 }): CheckoutView {
  return { store_id: at.store, checkout_id: at.checkout, now, screen, newest: recent[0] ?? null, recent, attention: [], hold: null };
}

const key = { storeId: 1, checkoutId: 1 };

describe('acceptView', () => {
  it('takes the first view of its checkout and ignores other checkouts', () => {
    expect(acceptView(null, view(10, { kind: 'idle' }), key)).toBe(true);
    expect(acceptView(null, view(10, { kind: 'idle' }, [], { store: 1, checkout: 2 }), key)).toBe(false);
    expect(acceptView(null, view(10, { kind: 'idle' }), null)).toBe(false);
  });
  it('never lets an older answer replace a newer view (a crossing call answer)', () => {
    const held = view(2_000, { kind: 'qr', sale_id: 'b', emv: 'x', amount_cents: 1200, expires_at: 9, printed: true });
    expect(acceptView(held, view(1_000, { kind: 'qr', sale_id: 'a', emv: 'x', amount_cents: 1000, expires_at: 9, printed: true }), key, 100)).toBe(false);
    expect(acceptView(held, view(2_000, { kind: 'idle' }), key, 100)).toBe(true);
    expect(acceptView(held, view(2_500, { kind: 'idle' }), key, 100)).toBe(true);
  });
  it('accepts an earlier `now` after a while, so a clock set back cannot freeze the screen', () => {
    const held = view(2_000, { kind: 'idle' });
    expect(acceptView(held, view(1_000, { kind: 'idle' }), key, CROSSING_MS + 1)).toBe(true);
  });
  it('orders views by the newest sale first, then by the core clock', () => {
    const qrOf = (id: string, amount: number) => ({ kind: 'qr' as const, sale_id: id, emv: 'x', amount_cents: amount, expires_at: 9, printed: true });
    const older = view(2_000, qrOf('a', 1000), [sale('a', 'pending', 1000, 1)]);
    const newer = view(2_000, qrOf('b', 1200), [sale('b', 'pending', 1200, 2), sale('a', 'displaced', 1000, 1)]);
    // Two reads within the same millisecond: the one that knows the newer sale wins.
    expect(acceptView(newer, older, key, 100)).toBe(false);
    expect(acceptView(older, newer, key, 100)).toBe(true);
    // A newer sale wins even if its read carries an earlier `now`.
    expect(acceptView(view(2_500, qrOf('a', 1000), [sale('a', 'pending', 1000, 1)]), newer, key, 100)).toBe(true);
    // And an older sale never wins by a later `now`: a slow answer cannot bring back its QR.
    expect(acceptView(newer, view(2_500, qrOf('a', 1000), [sale('a', 'pending', 1000, 1)]), key, 100)).toBe(false);
  });
  it('takes the view after a refused charge, whose newest steps back to the earlier sale', () => {
    const creating = view(1_000, { kind: 'creating', sale_id: 'b' }, [sale('b', 'requested', 1200, 2), sale('a', 'displaced', 1000, 1)]);
    const refused = view(1_100, { kind: 'qr', sale_id: 'a', emv: 'x', amount_cents: 1000, expires_at: 9, printed: true }, [sale('b', 'failed', 1200, 2), sale('a', 'pending', 1000, 1)]);
    const reinstated = { ...refused, newest: sale('a', 'pending', 1000, 1) };
    expect(viewSeq(reinstated)).toBe(2);
    expect(acceptView(creating, reinstated, key, 100)).toBe(true);
  });
  it('replaces a view of the previous checkout after the terminal changed checkout', () => {
    const other = view(9_000, { kind: 'idle' }, [], { store: 1, checkout: 2 });
    expect(acceptView(other, view(1, { kind: 'idle' }), key)).toBe(true);
  });
});

describe('saleToReplace / screenSale / isLive', () => {
  const pending = sale('b', 'pending', 1200);
  it('names the pending sale a charge would displace', () => {
    const v = view(1, { kind: 'qr', sale_id: 'b', emv: 'x', amount_cents: 1200, expires_at: 9, printed: true }, [pending, sale('a', 'displaced')]);
    expect(saleToReplace(v)?.sale_id).toBe('b');
    expect(screenSale(v)?.amount_cents).toBe(1200);
    expect(isLive(v)).toBe(true);
  });
  it('names nothing once the sale is settled or when idle', () => {
    const paid = view(1, { kind: 'settled', sale_id: 'b', status: 'paid' }, [sale('b', 'paid')]);
    expect(saleToReplace(paid)).toBeNull();
    expect(screenSale(paid)?.status).toBe('paid');
    expect(isLive(paid)).toBe(false);
    expect(saleToReplace(view(1, { kind: 'idle' }))).toBeNull();
    expect(screenSale(null)).toBeNull();
  });
  it('an expiring sale is live (its last read is awaited) but not one a charge corrects: the service cannot displace it', () => {
    const expiring = view(1, { kind: 'expiring', sale_id: 'b', amount_cents: 1200, expires_at: 9 }, [pending]);
    expect(isLive(expiring)).toBe(true);
    expect(saleToReplace(expiring)).toBeNull();
    expect(screenSale(expiring)?.sale_id).toBe('b');
    expect(resyncEveryMs(expiring)).toBe(10_000);
  });
  it('a pending sale reads Expiring once the core clock is past its expiry, until its last read closes it', () => {
    expect(isExpiringAt({ status: 'pending', expires_at: 9 }, 9)).toBe(false);
    expect(isExpiringAt({ status: 'pending', expires_at: 9 }, 10)).toBe(true);
    expect(isExpiringAt({ status: 'expired', expires_at: 9 }, 10)).toBe(false);
    expect(isExpiringAt({ status: 'pending', expires_at: null }, 10)).toBe(false);
  });
});

describe('resyncEveryMs', () => {
  it('reads the view every 2 s while a QR is shown, only then', () => {
    expect(resyncEveryMs(view(1, { kind: 'qr', sale_id: 'b', emv: 'x', amount_cents: 1, expires_at: 9, printed: true }))).toBe(2_000);
    expect(resyncEveryMs(view(1, { kind: 'creating', sale_id: 'b' }))).toBe(10_000);
    expect(resyncEveryMs(view(1, { kind: 'uncertain', sale_id: 'b' }))).toBe(10_000);
    expect(resyncEveryMs(view(1, { kind: 'idle' }))).toBeNull();
    expect(resyncEveryMs(view(1, { kind: 'settled', sale_id: 'b', status: 'paid' }))).toBeNull();
    expect(resyncEveryMs(null)).toBeNull();
  });
});
