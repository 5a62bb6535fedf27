import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import type { Method } from '../contract.ts';
import type { Core } from '../core.ts';
import { createCoreDispatcher, createHandlers } from '../handlers.ts';
import { memoryLogger } from '../log.ts';
import { startCoreOnSandbox, type CoreOnSandbox } from '../terminal/fixtures/core.ts';
import { managerSession, sessionAs } from './fixtures/sign-in.ts';
import { routedPush } from '../routing.ts';
import { newSession, type Session } from './operators.ts';
import type { Access, Role } from './roles.ts';
import { STORE_CONNECTION, STORE_DISPLAY_CONNECTION, type Connection, type Reach } from '../devices/connection.ts';

/**
 * The bridge table of issues 8 and 25, written out by hand and checked against the one
 * handler map: every method's least role and the connections it serves (devices/connection.ts).
 * Every method is called over the shells' dispatcher from every kind of connection, with no
 * one signed in and as each role. A method added without a row here fails the first test.
 */
const TABLE: Record<Method, [Access, Reach]> = {
  'core.status': ['anyone', 'till'],
  'settings.setLang': ['manager', 'till'],
  'checkout.view': ['cashier', 'till'],
  'auth.status': ['anyone', 'till'],
  'auth.createFirstManager': ['anyone', 'store'],
  'auth.signIn': ['anyone', 'till'],
  'auth.signOut': ['anyone', 'till'],
  'auth.active': ['cashier', 'till'],
  'core.checkService': ['cashier', 'till'],
  'sale.charge': ['cashier', 'till'],
  'sale.acknowledge': ['cashier', 'till'],
  'sale.withdraw': ['cashier', 'till'],
  'sale.detail': ['cashier', 'till'],
  'settings.get': ['cashier', 'till'],
  'shift.current': ['cashier', 'till'],
  'shift.open': ['supervisor', 'till'],
  'shift.close': ['supervisor', 'till'],
  'journal.verify': ['supervisor', 'till'],
  'journal.shiftReport': ['supervisor', 'till'],
  'journal.exportCsv': ['supervisor', 'till'],
  'journal.shifts': ['supervisor', 'till'],
  'journal.days': ['supervisor', 'till'],
  'journal.dayReport': ['supervisor', 'till'],
  'journal.exportDayCsv': ['supervisor', 'till'],
  'payments.unmatched': ['supervisor', 'till'],
  'payment.attribute': ['supervisor', 'till'],
  'journal.startNewChain': ['manager', 'till'],
  'settings.update': ['manager', 'till'],
  'operators.list': ['manager', 'till'],
  'operators.add': ['manager', 'till'],
  'operators.change': ['manager', 'till'],
  'operators.disable': ['manager', 'till'],
  'operators.unlock': ['manager', 'till'],
  'display.view': ['anyone', 'display'],
  'pairing.info': ['anyone', 'pairing'],
  'pairing.pair': ['anyone', 'pairing'],
  'attention.list': ['supervisor', 'till'],
  'devices.list': ['manager', 'till'],
  'devices.startPairing': ['manager', 'till'],
  'devices.revoke': ['manager', 'till'],
  'sale.refund': ['supervisor', 'till'],
  'sale.refundWasMade': ['supervisor', 'till'],
  'sale.refundSendAgain': ['supervisor', 'till'],
  'office.stores': ['manager', 'till'],
  'office.createStore': ['manager', 'till'],
  'office.changeStore': ['manager', 'till'],
  'office.wallets': ['manager', 'till'],
  'office.checkouts': ['manager', 'till'],
  'office.addCheckout': ['manager', 'till'],
  'office.changeWallet': ['manager', 'till'],
  'office.printQr': ['manager', 'till'],
  'office.poster': ['manager', 'till'],
  'office.setMode': ['manager', 'till'],
  'office.printedQrs': ['manager', 'till'],
  'office.customerLang': ['manager', 'till'],
  'office.setCustomerLang': ['manager', 'till'],
  'claims.payouts': ['supervisor', 'till'],
  'claims.list': ['supervisor', 'till'],
  'claims.refresh': ['supervisor', 'till'],
  'claims.open': ['supervisor', 'till'],
  'claims.resubmit': ['supervisor', 'till'],
  'claims.recordBankAnswer': ['supervisor', 'till'],
  'settlements.list': ['supervisor', 'till'],
  'settlements.detail': ['supervisor', 'till'],
  'settlements.pending': ['supervisor', 'till'],
  'settlements.acknowledge': ['supervisor', 'till'],
  'settlements.unsettled': ['supervisor', 'till'],
  'receipt.print': ['cashier', 'till'],
  'receipt.printRefund': ['cashier', 'till'],
  'receipt.printer': ['cashier', 'till'],
  'receipt.setPrinter': ['manager', 'till'],
  'receipt.testPage': ['manager', 'till'],
  'receipt.printShift': ['supervisor', 'till'],
  'receipt.sheet': ['cashier', 'till'],
  'board.view': ['supervisor', 'till'],
  'board.leave': ['supervisor', 'till'],
};

/**
 * Issue 25, point 3: all a connection with no one signed in may call, by kind, written out.
 * A till's sign-in screen needs its status, who is signed in and signing in (the store
 * computer's first window also makes the first manager); a customer display its checkout's
 * screen; a device not paired yet only pairing. The language is each device's own and needs
 * no call at all.
 */
const SIGNED_OUT_MAY: Record<Place, readonly Method[]> = {
  'store window': ['auth.createFirstManager', 'auth.signIn', 'auth.signOut', 'auth.status', 'core.status', 'display.view'],
  'paired till': ['auth.signIn', 'auth.signOut', 'auth.status', 'core.status', 'display.view'],
  'paired display': ['display.view'],
  'store display window': ['display.view'],
  'unpaired device': ['pairing.info', 'pairing.pair'],
};

const PLACES = ['store window', 'paired till', 'paired display', 'store display window', 'unpaired device'] as const;
type Place = (typeof PLACES)[number];
/** Which reaches each place is served by, by hand (devices/connection.ts is the rule). */
const SERVED: Record<Place, readonly Reach[]> = {
  'store window': ['till', 'display', 'store'],
  'paired till': ['till', 'display'],
  'paired display': ['display'],
  'store display window': ['display'],
  'unpaired device': ['pairing'],
};

const WHO = ['no one', 'cashier', 'supervisor', 'manager'] as const;
type Who = (typeof WHO)[number];
const ALLOWED: Record<Access, readonly Who[]> = {
  anyone: WHO,
  cashier: ['cashier', 'supervisor', 'manager'],
  supervisor: ['supervisor', 'manager'],
  manager: ['manager'],
};

let env: CoreOnSandbox;
let core: Core;
const signedIn = {} as Record<Role, Session>;
const connections = {} as Record<Place, Connection>;

beforeAll(async () => {
  env = await startCoreOnSandbox('roles', memoryLogger(systemClock), { secondCheckout: false });
  core = env.core;
  signedIn.manager = await managerSession(core, 'Marta');
  signedIn.supervisor = await sessionAs(core, 'supervisor', 'Rui');
  signedIn.cashier = await sessionAs(core, 'cashier', 'Caio');
  const by = core.operators.caller(signedIn.manager);
  if (!by) throw new Error('the test manager is not signed in');
  // Real pairings, as a manager makes them on the Devices screen.
  const paired = async (kind: 'till' | 'display', name: string): Promise<Connection> => {
    const { code } = await core.devices.startPairing(by, { kind, storeId: 1, checkoutId: 1, name });
    return { kind: 'device', device: (await core.pairDevice(code, 'roles test')).device };
  };
  connections['store window'] = STORE_CONNECTION;
  connections['paired till'] = await paired('till', 'Till 2');
  connections['paired display'] = await paired('display', 'Display 2');
  connections['store display window'] = STORE_DISPLAY_CONNECTION;
  connections['unpaired device'] = { kind: 'unpaired', from: 'roles test' };
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

/**
 * A fresh session per call, on that connection, signed in as that role (or no one): a call
 * cannot change the next one's. On a display or an unpaired device no one can sign in; the
 * session is made all the same, to prove the connection alone refuses.
 */
const sessionOf = (who: Who, place: Place = 'store window'): Session =>
  who === 'no one' ? newSession(connections[place]) : { ...signedIn[who], connection: connections[place] };

// An argument no method accepts: a call let through reaches validation and stops there
// (invalid_argument) without doing anything; a refused one stops before it.
const PROBE = { probe: 'not a field of any method' };

describe('the bridge table', () => {
  it('has one row for every method of the handler map, and the map declares that role and reach', () => {
    const handlers = createHandlers(core);
    expect(Object.keys(handlers).sort()).toEqual(Object.keys(TABLE).sort());
    for (const [method, def] of Object.entries(handlers)) expect([def.access, def.reach], method).toEqual(TABLE[method as Method]);
  });

  it.each(PLACES)('signed out, a %s may call only what its sign-in screen (or display, or pairing) needs', async (place) => {
    const dispatch = createCoreDispatcher(core);
    const letThrough: Method[] = [];
    for (const method of Object.keys(TABLE) as Method[]) {
      const envelope = await dispatch(method, PROBE, sessionOf('no one', place));
      if (!envelope.ok && envelope.error.code === 'invalid_argument') letThrough.push(method);
    }
    expect(letThrough.sort()).toEqual([...SIGNED_OUT_MAY[place]].sort());
  });

  it('a signed-out till cannot change the merchant’s language; a manager changes the default', async () => {
    const dispatch = createCoreDispatcher(core);
    const before = core.settings().lang;
    const other = before === 'es' ? 'en' : 'es';
    for (const place of PLACES) {
      expect(await dispatch('settings.setLang', { lang: other }, sessionOf('no one', place)), place).toMatchObject({ ok: false });
    }
    expect(await dispatch('settings.setLang', { lang: other }, sessionOf('cashier', 'paired till'))).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(core.settings().lang).toBe(before);
    expect(await dispatch('settings.setLang', { lang: other }, sessionOf('manager'))).toMatchObject({ ok: true, result: { lang: other } });
    expect(await dispatch('display.view', undefined, sessionOf('no one', 'paired display'))).toMatchObject({ ok: true, result: { lang: other, checkout_id: 1 } });
    await dispatch('settings.setLang', { lang: before }, sessionOf('manager'));
  });

  it('pushes a signed-out till no sales (its status and the customer’s screen only), and a display its screen only (routing.ts)', async () => {
    const view = await core.terminal.checkoutView({ storeId: 1, checkoutId: 1 });
    const screen = await core.displayView({ storeId: 1, checkoutId: 1 });
    const heard = (place: Place, who: Who) =>
      (['core.status', 'checkout.changed', 'display.changed', 'attention.changed'] as const).filter((event) => {
        const payload = event === 'checkout.changed' ? view : event === 'display.changed' ? screen : event === 'core.status' ? core.status() : { items: [], claims: [], settlements: [] };
        return routedPush(core, sessionOf(who, place), event, payload as never) !== undefined;
      });
    expect(heard('store window', 'no one')).toEqual(['core.status', 'display.changed']);
    expect(heard('paired till', 'no one')).toEqual(['core.status', 'display.changed']);
    expect(heard('paired till', 'cashier')).toEqual(['core.status', 'checkout.changed', 'display.changed']);
    expect(heard('store window', 'supervisor')).toEqual(['core.status', 'checkout.changed', 'display.changed', 'attention.changed']);
    for (const display of ['paired display', 'store display window'] as const) {
      expect(heard(display, 'no one'), display).toEqual(['display.changed']);
      expect(heard(display, 'manager'), display).toEqual(['display.changed']);
    }
    expect(heard('unpaired device', 'no one')).toEqual([]);
  });

  describe.each(Object.entries(TABLE) as [Method, [Access, Reach]][])('%s (%j)', (method, [access, reach]) => {
    it.each(PLACES.flatMap((place) => WHO.map((who) => [place, who] as const)))('from a %s, as %s', async (place, who) => {
      const envelope = await createCoreDispatcher(core)(method, PROBE, sessionOf(who, place));
      expect(envelope.ok).toBe(false);
      const error = envelope.ok ? null : envelope.error;
      if (!SERVED[place].includes(reach)) {
        // The connection refuses first, whoever is signed in: a display stays a display.
        const expected =
          place === 'unpaired device'
            ? { code: 'not_paired' }
            : place.includes('display')
              ? { code: 'forbidden', params: { reason: 'display_only' } }
              : reach === 'pairing'
                ? { code: 'conflict', params: { reason: 'already_paired' } }
                : { code: 'forbidden', params: { reason: 'store_only' } };
        expect(error).toMatchObject(expected);
      } else if (ALLOWED[access].includes(who)) {
        expect(error?.code).toBe('invalid_argument');
      } else if (who === 'no one') {
        expect(error).toMatchObject({ code: 'signed_out', params: { role: access } });
      } else {
        expect(error).toMatchObject({ code: 'forbidden', params: { role: access } });
        expect(error?.message).toMatch(access === 'manager' ? /^Only a manager can / : /^Only a supervisor or a manager can /);
      }
    });
  });
});

describe('the session is the identity', () => {
  it('no method takes a person’s name: a `by` (or operator) field is refused as unknown', () => {
    for (const [method, def] of Object.entries(createHandlers(core))) {
      const keys = 'keys' in def.args ? (def.args.keys as readonly string[]) : [];
      expect(keys, method).not.toContain('by');
      expect(keys, method).not.toContain('operator');
      expect(() => def.args.parse({ by: 'Mallory' }), method).toThrow(/by must be left out|empty/);
    }
  });

  it('journals what each operator does in their own name', async () => {
    const dispatch = createCoreDispatcher(core);
    expect(await dispatch('shift.open', { note: 'float' }, sessionOf('supervisor'))).toMatchObject({ ok: true, result: { opened_by: 'Rui' } });
    const charged = await dispatch('sale.charge', { amount: '4,20' }, sessionOf('cashier'));
    expect(charged).toMatchObject({ ok: true, result: { newest: { requested_by: 'Caio' } } });
    // A cashier may not close the shift; a supervisor closes it in their own name.
    expect(await dispatch('shift.close', { confirmPending: true }, sessionOf('cashier'))).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await dispatch('shift.close', { confirmPending: true }, sessionOf('manager'))).toMatchObject({ ok: true, result: { closed_by: 'Marta' } });
  });

  it('the first manager can only be created while the till has no operator', async () => {
    expect(await createCoreDispatcher(core)('auth.createFirstManager', { name: 'Mallory', pin: '1234' }, newSession())).toMatchObject({
      ok: false,
      error: { code: 'conflict', params: { reason: 'operators_exist' } },
    });
  });

  it('signing in and out over the bridge changes who that session acts as, and only that one', async () => {
    const dispatch = createCoreDispatcher(core);
    const session = newSession();
    expect(await dispatch('auth.status', undefined, session)).toEqual({ ok: true, result: { setup: false, operator: null, lockMinutes: 10, ended: null } });
    expect(await dispatch('auth.signIn', { name: 'Caio', pin: '0000' }, session)).toMatchObject({ ok: false, error: { code: 'sign_in_refused', params: { reason: 'wrong_pin' } } });
    expect(await dispatch('auth.signIn', { name: 'rui', pin: '2468' }, session)).toMatchObject({ ok: true, result: { operator: { name: 'Rui', role: 'supervisor' } } });
    expect(await dispatch('payments.unmatched', undefined, session)).toMatchObject({ ok: true });
    expect(await dispatch('auth.signOut', {}, session)).toMatchObject({ ok: true, result: { operator: null } });
    expect(await dispatch('payments.unmatched', undefined, session)).toMatchObject({ ok: false, error: { code: 'signed_out' } });
    expect(await dispatch('payments.unmatched', undefined, sessionOf('supervisor'))).toMatchObject({ ok: true });
  });
});
