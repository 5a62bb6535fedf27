import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CheckoutView, SaleSummary, ScreenView } from '../../electron/core/contract.ts';
import type { Outcome } from '../lib/messages.ts';
import { useAuth } from './auth.ts';
import { connectCheckout, connectOutcomeSounds, useCheckout } from './checkout.ts';
import { preloadStub } from './fixtures/preload-stub.ts';
import { useStatus } from './status.ts';

const SIGNED_IN = { setup: false, operator: { id: 'op-1', name: 'Caio', role: 'cashier' as const }, lockMinutes: 10, ended: null };
const SIGNED_OUT = { setup: false, operator: null, lockMinutes: 10, ended: null };

function sale(id: string, status: SaleSummary['status'], seq = 1): SaleSummary {
  return { sale_id: id, seq, status, amount_cents: 1000, description: { attention: [] } } as unknown as SaleSummary;
}

function view(now: number, sales: SaleSummary[], checkout = 1, screen: ScreenView = { kind: 'idle' }): CheckoutView {
  return { store_id: 1, checkout_id: checkout, now, screen, newest: sales[0] ?? null, recent: sales, attention: [], hold: null };
}

const qr = (id: string): ScreenView => ({ kind: 'qr', sale_id: id, emv: 'x', amount_cents: 1000, expires_at: 9e15, printed: true });

const core = preloadStub((method) => method);
const { answers, calls } = core;
beforeAll(core.install);

describe('checkout store', () => {
  beforeEach(() => {
    useCheckout.setState({ key: { storeId: 1, checkoutId: 1 }, view: null, receivedAt: 0, chargeError: null, lostCharge: null, landed: null, charging: false });
    for (const k of Object.keys(answers)) delete answers[k];
    calls.length = 0;
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

  it('does not let a view of the same moment with an older newest sale replace a newer one', () => {
    const { receive } = useCheckout.getState();
    receive(view(2_000, [sale('b', 'pending', 2), sale('a', 'displaced', 1)]));
    receive(view(2_000, [sale('a', 'pending', 1)]));
    expect(useCheckout.getState().view?.newest?.sale_id).toBe('b');
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

  it('sounds the expiry when the screen shows it, before the sale status follows, and only once', () => {
    const played: Outcome[] = [];
    const off = connectOutcomeSounds((o) => played.push(o));
    const { receive } = useCheckout.getState();
    receive(view(1, [sale('a', 'pending')], 1, qr('a')));
    expect(played).toEqual([]);
    // The core's clock passed expires_at: the screen says Expired, the sale is still pending.
    receive(view(2, [sale('a', 'pending')], 1, { kind: 'settled', sale_id: 'a', status: 'expired' }));
    expect(played).toEqual(['expired']);
    // A minute later the expiry is journaled: the same outcome of the same sale, not heard again.
    receive(view(3, [sale('a', 'expired')], 1, { kind: 'settled', sale_id: 'a', status: 'expired' }));
    expect(played).toEqual(['expired']);
    off();
  });

  it('does not replay an expiry already on screen when the page loaded', () => {
    useCheckout.setState({ view: null });
    const played: Outcome[] = [];
    const off = connectOutcomeSounds((o) => played.push(o));
    const { receive } = useCheckout.getState();
    receive(view(1, [sale('a', 'pending')], 1, { kind: 'settled', sale_id: 'a', status: 'expired' }));
    receive(view(2, [sale('a', 'expired')], 1, { kind: 'settled', sale_id: 'a', status: 'expired' }));
    expect(played).toEqual([]);
    off();
  });
});

describe('a charge whose answer is lost', () => {
  beforeEach(() => {
    useCheckout.setState({ key: { storeId: 1, checkoutId: 1 }, view: null, receivedAt: 0, chargeError: null, lostCharge: null, landed: null, charging: false });
    for (const k of Object.keys(answers)) delete answers[k];
  });

  const before = view(1_000, [sale('a', 'paid', 1)], 1, { kind: 'settled', sale_id: 'a', status: 'paid' });
  const made = view(1_500, [sale('b', 'pending', 2), sale('a', 'paid', 1)], 1, qr('b'));
  const lost = () => Promise.resolve({ ok: false as const, error: { code: 'disconnected' as never, message: 'The connection to the cashier app was lost; try again.' } });

  it('keeps what was typed and says so; a newer sale in a later view clears the error and the form', async () => {
    useCheckout.getState().receive(before);
    answers['sale.charge'] = lost;
    expect(await useCheckout.getState().charge({ amount: '12,50', reference: 'A-1' })).toBe(false);
    expect(useCheckout.getState().chargeError?.code).toBe('disconnected');
    expect(useCheckout.getState().landed).toBeNull();

    // Reconnected: the same sales, nothing new; the warning stays.
    useCheckout.getState().receive(view(1_200, [sale('a', 'paid', 1)], 1, { kind: 'settled', sale_id: 'a', status: 'paid' }));
    expect(useCheckout.getState().chargeError?.code).toBe('disconnected');

    useCheckout.getState().receive(made);
    expect(useCheckout.getState().chargeError).toBeNull();
    expect(useCheckout.getState().landed).toEqual({ amount: '12,50', reference: 'A-1' });
  });

  it('counts as made at once when the new sale was pushed before the connection dropped', async () => {
    useCheckout.getState().receive(before);
    answers['sale.charge'] = () => {
      useCheckout.getState().receive(made);
      return lost();
    };
    expect(await useCheckout.getState().charge({ amount: '12,50' })).toBe(true);
    expect(useCheckout.getState().chargeError).toBeNull();
    expect(useCheckout.getState().landed).toEqual({ amount: '12,50', reference: '' });
  });

  it('sends the amount and reference trimmed, and reports the charged text as typed', async () => {
    let sent: unknown;
    answers['sale.charge'] = (args) => {
      sent = args;
      return Promise.resolve({ ok: true, result: made });
    };
    expect(await useCheckout.getState().charge({ amount: ' 12,50 ', reference: '  ' })).toBe(true);
    // No name goes with it: the core charges in the name of the operator signed in.
    expect(sent).toEqual({ amount: '12,50', storeId: 1, checkoutId: 1 });
    expect(useCheckout.getState().landed).toEqual({ amount: ' 12,50 ', reference: '  ' });
  });
});

describe('resync', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    useStatus.setState({ connection: 'closed', status: null });
    useCheckout.setState({ key: { storeId: 1, checkoutId: 1 }, view: null, receivedAt: 0 });
    useAuth.setState({ auth: SIGNED_IN });
    calls.length = 0;
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const loads = () => calls.filter((m) => m === 'checkout.view').length;

  it('reads the view every 2 s while a QR is shown', () => {
    useCheckout.setState({ view: view(1, [sale('a', 'pending')], 1, qr('a')) });
    const off = connectCheckout();
    vi.advanceTimersByTime(2_000);
    expect(loads()).toBe(1);
    vi.advanceTimersByTime(4_000);
    expect(loads()).toBe(3);
    off();
  });

  it('does not while the screen is idle or settled', () => {
    useCheckout.setState({ view: view(1, [sale('a', 'paid')], 1, { kind: 'settled', sale_id: 'a', status: 'paid' }) });
    const off = connectCheckout();
    vi.advanceTimersByTime(30_000);
    expect(loads()).toBe(0);
    off();
  });
});

describe('a signed-out till', () => {
  beforeEach(() => {
    useStatus.setState({ connection: 'open', status: null });
    useCheckout.setState({ key: { storeId: 1, checkoutId: 1 }, view: null, receivedAt: 0 });
    useAuth.setState({ auth: SIGNED_OUT });
    calls.length = 0;
  });

  it('reads nothing of its checkout (issue 25: the core refuses it), then reads it once someone signs in', async () => {
    const off = connectCheckout();
    await useCheckout.getState().load();
    expect(calls).toEqual([]);
    useAuth.setState({ auth: SIGNED_IN });
    expect(calls).toEqual(['checkout.view']);
    useAuth.setState({ auth: { ...SIGNED_IN } });
    expect(calls).toEqual(['checkout.view']);
    off();
  });
});
