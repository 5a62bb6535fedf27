import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import type { Method } from '../contract.ts';
import type { Core } from '../core.ts';
import { createCoreDispatcher, createHandlers } from '../handlers.ts';
import { memoryLogger } from '../log.ts';
import { startCoreOnSandbox, type CoreOnSandbox } from '../terminal/fixtures/core.ts';
import { managerSession, sessionAs } from './fixtures/sign-in.ts';
import { newSession, type Session } from './operators.ts';
import type { Access, Role } from './roles.ts';

/**
 * The role table of issue 8, written out by hand and checked against the one handler map:
 * every method is called over the shells' dispatcher with no session and as each role. A
 * method added without a row here fails the first test.
 */
const TABLE: Record<Method, Access> = {
  'core.status': 'anyone',
  'settings.setLang': 'anyone',
  'checkout.view': 'anyone',
  'auth.status': 'anyone',
  'auth.createFirstManager': 'anyone',
  'auth.signIn': 'anyone',
  'auth.signOut': 'anyone',
  'auth.active': 'cashier',
  'core.checkService': 'cashier',
  'sale.charge': 'cashier',
  'sale.acknowledge': 'cashier',
  'sale.withdraw': 'cashier',
  'sale.detail': 'cashier',
  'settings.get': 'cashier',
  'shift.current': 'cashier',
  'shift.open': 'supervisor',
  'shift.close': 'supervisor',
  'journal.verify': 'supervisor',
  'journal.shiftReport': 'supervisor',
  'journal.exportCsv': 'supervisor',
  'journal.shifts': 'supervisor',
  'journal.days': 'supervisor',
  'journal.dayReport': 'supervisor',
  'journal.exportDayCsv': 'supervisor',
  'payments.unmatched': 'supervisor',
  'payment.attribute': 'supervisor',
  'journal.startNewChain': 'manager',
  'settings.update': 'manager',
  'operators.list': 'manager',
  'operators.add': 'manager',
  'operators.change': 'manager',
  'operators.disable': 'manager',
  'operators.unlock': 'manager',
  'display.view': 'anyone',
  'pairing.info': 'anyone',
  'pairing.pair': 'anyone',
  'attention.list': 'supervisor',
  'devices.list': 'manager',
  'devices.startPairing': 'manager',
  'devices.revoke': 'manager',
  'sale.refund': 'supervisor',
  'sale.refundWasMade': 'supervisor',
  'sale.refundSendAgain': 'supervisor',
  'office.stores': 'manager',
  'office.createStore': 'manager',
  'office.changeStore': 'manager',
  'office.wallets': 'manager',
  'office.checkouts': 'manager',
  'office.addCheckout': 'manager',
  'office.changeWallet': 'manager',
  'office.printQr': 'manager',
  'office.poster': 'manager',
  'office.setMode': 'manager',
  'office.printedQrs': 'manager',
  'claims.payouts': 'supervisor',
  'claims.list': 'supervisor',
  'claims.refresh': 'supervisor',
  'claims.open': 'supervisor',
  'claims.resubmit': 'supervisor',
  'claims.recordBankAnswer': 'supervisor',
  'settlements.list': 'supervisor',
  'settlements.detail': 'supervisor',
  'settlements.pending': 'supervisor',
  'settlements.acknowledge': 'supervisor',
  'settlements.unsettled': 'supervisor',
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

beforeAll(async () => {
  env = await startCoreOnSandbox('roles', memoryLogger(systemClock), { secondCheckout: false });
  core = env.core;
  signedIn.manager = await managerSession(core, 'Marta');
  signedIn.supervisor = await sessionAs(core, 'supervisor', 'Rui');
  signedIn.cashier = await sessionAs(core, 'cashier', 'Caio');
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

/** A fresh session per call, signed in as that role (or no one): a call cannot change the next one's. */
const sessionOf = (who: Who): Session => (who === 'no one' ? newSession() : { ...signedIn[who] });

describe('the role table', () => {
  it('has one row for every method of the handler map, and the map declares that role', () => {
    const handlers = createHandlers(core);
    expect(Object.keys(handlers).sort()).toEqual(Object.keys(TABLE).sort());
    for (const [method, def] of Object.entries(handlers)) expect(def.access, method).toBe(TABLE[method as Method]);
  });

  // An argument no method accepts: a call let through reaches validation and stops there
  // (invalid_argument) without doing anything; a refused one stops before it.
  const PROBE = { probe: 'not a field of any method' };
  describe.each(Object.entries(TABLE) as [Method, Access][])('%s (%s)', (method, access) => {
    it.each(WHO)('as %s', async (who) => {
      const envelope = await createCoreDispatcher(core)(method, PROBE, sessionOf(who));
      expect(envelope.ok).toBe(false);
      const error = envelope.ok ? null : envelope.error;
      if (ALLOWED[access].includes(who)) {
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
