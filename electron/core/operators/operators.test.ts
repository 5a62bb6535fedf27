import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import type { JournalPort } from '../journal/port.ts';
import { openJournal } from '../journal/journal.ts';
import { memoryLogger } from '../log.ts';
import { newSession, Operators } from './operators.ts';
import { hashPin, pinMatches } from './pin.ts';
import { FIRST_LOCK_MS as LOCK_MS } from './lockout.ts';
import { OPERATOR_PERSON_ACTIONS, OPERATORS_PROJECTION, operatorsProjection } from './registry.ts';
import { mayUse, refusal, whoMay } from './roles.ts';
import { SIGN_INS_PROJECTION, signInsProjection } from './sign-ins.ts';

/** Operators over a real journal in a temp dir, on a clock the test moves. */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function till(clock = new ManualClock(), sessionClock = new ManualClock(0)) {
  const dir = await mkdtemp(join(tmpdir(), 'pos-operators-'));
  const open = () => openJournal<object>({ dir, clock, reduceSale: () => undefined, operatorActions: OPERATOR_PERSON_ACTIONS, projections: { [OPERATORS_PROJECTION]: operatorsProjection, [SIGN_INS_PROJECTION]: signInsProjection } });
  let journal: JournalPort<object> = await open();
  cleanups.push(async () => {
    await journal.close();
    await rm(dir, { recursive: true, force: true });
  });
  const log = memoryLogger(clock);
  const make = async () => {
    const ops = new Operators({ journal, clock, log, lockMinutes: 10, sessionClock });
    await ops.load();
    return ops;
  };
  return {
    clock,
    sessionClock,
    log,
    journal: () => journal,
    make,
    /** The same data dir opened again: the book comes back from the journal alone. */
    async reopen() {
      await journal.close();
      journal = await open();
      return make();
    },
  };
}

describe('PIN hashing', () => {
  it('keeps a slow salted scrypt hash with its parameters, never the PIN', async () => {
    const a = await hashPin('1234');
    const b = await hashPin('1234');
    expect(a).toMatchObject({ alg: 'scrypt', n: 32768, r: 8, p: 1 });
    expect(a.salt).not.toBe(b.salt);
    expect(a.hash).not.toBe(b.hash);
    expect(JSON.stringify(a)).not.toContain('1234');
    expect(await pinMatches('1234', a)).toBe(true);
    expect(await pinMatches('1235', a)).toBe(false);
    expect(await pinMatches('12345', a)).toBe(false);
  });

  it.each(['123', '123456789', '12a4', ' 1234', '١٢٣٤', ''])('refuses %j as a PIN', async (pin) => {
    await expect(hashPin(pin)).rejects.toThrow(/4 to 8 digits/);
  });

  it('reads a hash made with other parameters from what is stored beside it', async () => {
    const stored = await hashPin('98765432');
    expect(await pinMatches('98765432', { ...stored })).toBe(true);
    expect(await pinMatches('98765432', { ...stored, n: 16384 })).toBe(false);
  });
});

describe('roles', () => {
  it('a role may do what the roles below it may', () => {
    expect(mayUse('cashier', 'cashier')).toBe(true);
    expect(mayUse('cashier', 'supervisor')).toBe(false);
    expect(mayUse('supervisor', 'cashier')).toBe(true);
    expect(mayUse('supervisor', 'manager')).toBe(false);
    expect(mayUse('manager', 'supervisor')).toBe(true);
    expect(mayUse(null, 'cashier')).toBe(false);
    expect(mayUse(null, 'anyone')).toBe(true);
  });

  it('a refusal says who may', () => {
    expect(whoMay('cashier')).toBe('a cashier, a supervisor or a manager');
    expect(refusal('supervisor', 'tie a payment to a sale', true).message).toBe('Only a supervisor or a manager can tie a payment to a sale.');
    expect(refusal('manager', 'add an operator', true).message).toBe('Only a manager can add an operator.');
    expect(refusal('manager', 'add an operator', false)).toMatchObject({ code: 'signed_out' });
  });
});

describe('operators', () => {
  it('the first manager is created once and signed in; every change is journaled with who and when', async () => {
    const t = await till();
    const ops = await t.make();
    expect(ops.setup).toBe(true);
    const session = newSession();
    const marta = await ops.createFirstManager(session, { name: ' Marta ', pin: '2468' });
    expect(marta).toMatchObject({ name: 'Marta', role: 'manager' });
    expect(ops.caller(session)).toEqual(marta);
    await expect(ops.createFirstManager(newSession(), { name: 'Mallory', pin: '1470' })).rejects.toMatchObject({ code: 'conflict', params: { reason: 'operators_exist' } });

    const caio = await ops.add(marta, { name: 'Caio', role: 'cashier', pin: '1357' });
    await expect(ops.add(marta, { name: 'caio', role: 'supervisor', pin: '1357' })).rejects.toMatchObject({ params: { reason: 'operator_name_taken' } });
    t.clock.advance(60_000);
    await ops.change(marta, { operatorId: caio.id, role: 'supervisor' });
    await ops.disable(marta, { operatorId: caio.id });

    const entries = [...(await t.journal().eventsOfType('operator.created')), ...(await t.journal().eventsOfType('operator.changed')), ...(await t.journal().eventsOfType('operator.disabled'))];
    expect(entries.map((e) => [e.type, e.data.by, e.data.name ?? null])).toEqual([
      ['operator.created', 'Marta', 'Marta'],
      ['operator.created', 'Marta', 'Caio'],
      ['operator.changed', 'Marta', null],
      ['operator.disabled', 'Marta', 'Caio'],
    ]);
    expect(entries[2]?.at).toBe(entries[1]!.at + 60_000);
    // The journal holds the hash, never the PIN. Hashes, salts and ids are random text that
    // may hold any four digits ("ed601357..."): they are left out of the search.
    const RANDOM = new Set(['hash', 'prev', 'salt', 'operator_id', 'by_id']);
    for (const e of entries.filter((x) => x.type === 'operator.created')) expect(e.data.pin).toMatchObject({ alg: 'scrypt' });
    expect(JSON.stringify(entries, (key, value: unknown) => (RANDOM.has(key) ? '(random)' : value))).not.toMatch(/2468|1357/);

    // Nothing is deleted: the disabled operator is still listed, and the book reads the same from the journal alone.
    const again = await t.reopen();
    expect(again.list()).toEqual(ops.list());
    expect(again.list().find((o) => o.name === 'Caio')).toMatchObject({ role: 'supervisor', disabled: true });
    await expect(again.signIn(newSession(), { name: 'Caio', pin: '1357' })).rejects.toMatchObject({ code: 'sign_in_refused', params: { reason: 'wrong_pin' } });
  });

  it('a disabled operator’s session stops at their next call; a new PIN works, the old one does not', async () => {
    const t = await till();
    const ops = await t.make();
    const marta = await ops.createFirstManager(newSession(), { name: 'Marta', pin: '2468' });
    const lia = await ops.add(marta, { name: 'Lia', role: 'cashier', pin: '1357' });
    const session = newSession();
    await ops.signIn(session, { name: 'lia', pin: '1357' });
    expect(ops.caller(session)?.name).toBe('Lia');
    await ops.change(marta, { operatorId: lia.id, pin: '22223333' });
    await expect(ops.signIn(newSession(), { name: 'Lia', pin: '1357' })).rejects.toMatchObject({ code: 'sign_in_refused' });
    expect(await ops.signIn(newSession(), { name: 'Lia', pin: '22223333' })).toMatchObject({ name: 'Lia' });
    await ops.disable(marta, { operatorId: lia.id });
    expect(ops.caller(session)).toBeNull();
    expect(session.operatorId).toBeNull();
  });

  it('keeps a manager: the last one can be neither demoted nor disabled', async () => {
    const t = await till();
    const ops = await t.make();
    const marta = await ops.createFirstManager(newSession(), { name: 'Marta', pin: '2468' });
    await expect(ops.change(marta, { operatorId: marta.id, role: 'cashier' })).rejects.toMatchObject({ params: { reason: 'last_manager' } });
    await expect(ops.disable(marta, { operatorId: marta.id })).rejects.toMatchObject({ params: { reason: 'last_manager' } });
    const ana = await ops.add(marta, { name: 'Ana', role: 'manager', pin: '2468' });
    expect(await ops.disable(marta, { operatorId: ana.id })).toMatchObject({ disabled: true });
  });

  it('five wrong PINs lock that operator for five minutes of the core’s clock, journaled; the right PIN then works', async () => {
    const t = await till();
    const ops = await t.make();
    const marta = await ops.createFirstManager(newSession(), { name: 'Marta', pin: '2468' });
    await ops.add(marta, { name: 'Caio', role: 'cashier', pin: '1357' });
    for (let i = 0; i < 4; i++) {
      await expect(ops.signIn(newSession(), { name: 'Caio', pin: '0000' })).rejects.toMatchObject({ code: 'sign_in_refused', params: { reason: 'wrong_pin' } });
    }
    const lockedAt = t.clock.now();
    await expect(ops.signIn(newSession(), { name: 'Caio', pin: '0000' })).rejects.toMatchObject({
      code: 'sign_in_refused',
      params: { reason: 'locked', until: new Date(lockedAt + LOCK_MS).toISOString() },
    });
    // Locked: even the right PIN is refused, and the operator's wrong PINs did not lock anyone else.
    const session = newSession();
    await expect(ops.signIn(session, { name: 'Caio', pin: '1357' })).rejects.toMatchObject({ params: { reason: 'locked' } });
    expect(session.operatorId).toBeNull();
    expect(await ops.signIn(newSession(), { name: 'Marta', pin: '2468' })).toMatchObject({ name: 'Marta' });

    expect(await t.journal().eventsOfType('operator.sign_in_failed')).toHaveLength(5);
    const [locked] = await t.journal().eventsOfType('operator.locked');
    expect(locked).toMatchObject({ at: lockedAt, data: { name: 'Caio', until: lockedAt + LOCK_MS, failures: 5 } });

    // The lock survives a restart (it is a journal fact), and ends with its five minutes.
    const again = await t.reopen();
    t.clock.advance(LOCK_MS - 1);
    await expect(again.signIn(newSession(), { name: 'Caio', pin: '1357' })).rejects.toMatchObject({ params: { reason: 'locked' } });
    t.clock.advance(1);
    expect(await again.signIn(session, { name: 'Caio', pin: '1357' })).toMatchObject({ name: 'Caio', role: 'cashier' });
    expect(again.caller(session)?.name).toBe('Caio');
  });

  it('a right PIN clears the count of wrong ones', async () => {
    const t = await till();
    const ops = await t.make();
    const marta = await ops.createFirstManager(newSession(), { name: 'Marta', pin: '2468' });
    await ops.add(marta, { name: 'Caio', role: 'cashier', pin: '1357' });
    for (let i = 0; i < 4; i++) await ops.signIn(newSession(), { name: 'Caio', pin: '9999' }).catch(() => undefined);
    await ops.signIn(newSession(), { name: 'Caio', pin: '1357' });
    for (let i = 0; i < 4; i++) await expect(ops.signIn(newSession(), { name: 'Caio', pin: '9999' })).rejects.toMatchObject({ params: { reason: 'wrong_pin' } });
    expect(await t.journal().eventsOfType('operator.locked')).toEqual([]);
  });

  it('an unknown name is refused like a wrong PIN, and the log never holds a PIN or a hash', async () => {
    const t = await till();
    const ops = await t.make();
    await ops.createFirstManager(newSession(), { name: 'Marta', pin: '2468' });
    await expect(ops.signIn(newSession(), { name: 'Nobody', pin: '2468' })).rejects.toMatchObject({ code: 'sign_in_refused', params: { reason: 'wrong_pin' } });
    const logged = t.log.lines.join('\n');
    expect(t.log.lines.length).toBeGreaterThan(0);
    expect(logged).not.toContain('2468');
    expect(logged).not.toContain('scrypt');
  });
});

describe('issue 25: PINs resist guessing', () => {
  /** Every PIN of 4 digits but the right one, in the order a guesser would try them. */
  const guesses = (right: string) => Array.from({ length: 10_000 }, (_, i) => String(i).padStart(4, '0')).filter((p) => p !== right);

  it('one attacker guessing from 4 tills at once, every 10 seconds for a simulated day, gets under 50 guesses (20)', async () => {
    const t = await till();
    const ops = await t.make();
    const marta = await ops.createFirstManager(newSession(), { name: 'Marta', pin: '2468' });
    await ops.add(marta, { name: 'Caio', role: 'cashier', pin: '3581' });
    const pins = guesses('3581');
    const tills = [newSession(), newSession(), newSession(), newSession()];
    const start = t.clock.now();
    // A guess is a PIN the core tried: each is journaled (operator.sign_in_failed), from whichever till.
    const tried = async () => (await t.journal().eventsOfType('operator.sign_in_failed')).length;
    let last: unknown = null;
    for (let round = 0; t.clock.now() < start + 24 * 60 * 60_000; round++) {
      const answers = await Promise.allSettled(tills.map((session, i) => ops.signIn(session, { name: 'Caio', pin: pins[(round * tills.length + i) % pins.length] as string })));
      for (const answer of answers) {
        expect(answer.status).toBe('rejected');
        last = ((answer as PromiseRejectedResult).reason as { params?: { reason?: string } }).params?.reason;
      }
      t.clock.advance(10_000);
      // Each simulated hour: enough already (today's 5 minutes of lock give hundreds) ends the day early.
      if (round % 360 === 0 && (await tried()) >= 50) break;
    }
    expect(await tried()).toBeLessThan(50);
    expect(await tried()).toBe(20);
    expect(last).toBe('locked_for_manager');
    // The locks escalated: 5, 10 and 20 minutes, then a manager's.
    const locks = await t.journal().eventsOfType('operator.locked');
    expect(locks.map((e) => (e.data.until === null ? 'manager' : ((e.data.until as number) - e.at) / 60_000))).toEqual([5, 10, 20, 'manager']);
  });

  it('after 20 wrong PINs in a day only a manager’s unlock, journaled in their name, lets the operator in; their right PIN in between does not reset the day', async () => {
    const t = await till();
    const ops = await t.make();
    const marta = await ops.createFirstManager(newSession(), { name: 'Marta', pin: '2468' });
    const caio = await ops.add(marta, { name: 'Caio', role: 'cashier', pin: '3581' });
    const wrong = async (n: number) => {
      for (let i = 0; i < n; i++) await ops.signIn(newSession(), { name: 'Caio', pin: '0000' }).catch(() => undefined);
    };
    await wrong(4);
    await ops.signIn(newSession(), { name: 'Caio', pin: '3581' });
    await wrong(4);
    await ops.signIn(newSession(), { name: 'Caio', pin: '3581' });
    await wrong(4);
    await ops.signIn(newSession(), { name: 'Caio', pin: '3581' });
    await wrong(4);
    await ops.signIn(newSession(), { name: 'Caio', pin: '3581' });
    await wrong(3);
    // The twentieth wrong PIN of the day, never five in a row.
    await expect(ops.signIn(newSession(), { name: 'Caio', pin: '1470' })).rejects.toMatchObject({ params: { reason: 'locked_for_manager' } });
    expect(await t.journal().eventsOfType('operator.locked')).toMatchObject([{ data: { until: null, manager_only: true, failures: 20 } }]);
    await expect(ops.signIn(newSession(), { name: 'Caio', pin: '3581' })).rejects.toMatchObject({ code: 'sign_in_refused', params: { reason: 'locked_for_manager' } });
    // A day later it is still a manager's to lift.
    t.clock.advance(25 * 60 * 60_000);
    await expect(ops.signIn(newSession(), { name: 'Caio', pin: '3581' })).rejects.toMatchObject({ params: { reason: 'locked_for_manager' } });
    expect(ops.list().find((o) => o.id === caio.id)).toMatchObject({ needs_unlock: true, locked_until: null });
    // The book reads the same from the journal alone.
    const again = await t.reopen();
    expect(again.list().find((o) => o.id === caio.id)).toMatchObject({ needs_unlock: true });
    await again.unlock(marta, { operatorId: caio.id });
    expect(await t.journal().eventsOfType('operator.unlocked')).toMatchObject([{ data: { by: 'Marta', by_id: marta.id, operator_id: caio.id, name: 'Caio' } }]);
    expect(await again.signIn(newSession(), { name: 'Caio', pin: '3581' })).toMatchObject({ name: 'Caio' });
    await expect(again.unlock(marta, { operatorId: caio.id })).rejects.toMatchObject({ code: 'conflict', params: { reason: 'operator_not_locked' } });
  });

  it.each(['0000', '7777', '99999999', '1234', '9876', '3456789', '7890', '3210', '0987'])('refuses %s as a new or changed PIN with a sentence, and writes nothing', async (pin) => {
    const t = await till();
    const ops = await t.make();
    await expect(ops.createFirstManager(newSession(), { name: 'Marta', pin })).rejects.toMatchObject({ code: 'invalid_argument', params: { field: 'pin', problem: 'trivial_pin' } });
    expect(ops.setup).toBe(true);
    const marta = await ops.createFirstManager(newSession(), { name: 'Marta', pin: '2468' });
    const refused = ops.add(marta, { name: 'Caio', role: 'cashier', pin });
    await expect(refused).rejects.toThrow(/too easy to guess: choose another\./);
    const caio = await ops.add(marta, { name: 'Caio', role: 'cashier', pin: '3581' });
    await expect(ops.change(marta, { operatorId: caio.id, pin })).rejects.toMatchObject({ params: { problem: 'trivial_pin' } });
    expect(await t.journal().eventsOfType('operator.changed')).toEqual([]);
    expect(await ops.signIn(newSession(), { name: 'Caio', pin: '3581' })).toMatchObject({ name: 'Caio' });
  });

  it.each(['1357', '2468', '1122', '12345670', '8642', '1212'])('takes %s as a PIN', async (pin) => {
    const t = await till();
    const ops = await t.make();
    expect(await ops.createFirstManager(newSession(), { name: 'Marta', pin })).toMatchObject({ name: 'Marta' });
  });

  it('an operator whose PIN was set before the rule (1111) keeps signing in with it', async () => {
    const t = await till();
    const ops = await t.make();
    const marta = await ops.createFirstManager(newSession(), { name: 'Marta', pin: '2468' });
    // As an older version of the app journaled it.
    await t.journal().append([{ type: 'operator.created', data: { by: marta.name, by_id: marta.id, operator_id: 'old-lia', name: 'Lia', role: 'cashier', pin: await hashPin('1111') } }]);
    const again = await t.reopen();
    expect(await again.signIn(newSession(), { name: 'Lia', pin: '1111' })).toMatchObject({ name: 'Lia' });
  });
});

describe('issue 25: sessions live in the core', () => {
  it('a sign-in idle past the lock minutes of the session clock is ended by the core, journaled; only a person’s act keeps it alive', async () => {
    const t = await till();
    const ops = await t.make();
    await ops.createFirstManager(newSession(), { name: 'Marta', pin: '2468' });
    const session = newSession();
    await ops.signIn(session, { name: 'Marta', pin: '2468' });
    // The core's domain clock (the service's) jumping an hour is not idle time.
    t.clock.advance(60 * 60_000);
    t.sessionClock.advance(9 * 60_000);
    expect(ops.caller(session)?.name).toBe('Marta');
    ops.touch(session);
    t.sessionClock.advance(9 * 60_000);
    // Reads (its own status, the calls every screen makes) are not a person at the till.
    expect(ops.status(session).operator?.name).toBe('Marta');
    t.sessionClock.advance(60_000);
    expect(ops.caller(session)).toBeNull();
    expect(session.operatorId).toBeNull();
    expect(ops.status(session)).toMatchObject({ operator: null, ended: 'idle' });
    await ops.journaled();
    expect((await t.journal().eventsOfType('operator.signed_out')).map((e) => e.data)).toMatchObject([{ by: 'Marta', reason: 'idle' }]);
  });

  it('the core ends an idle sign-in on its own sweep, without a call, and says so', async () => {
    const t = await till();
    const ops = await t.make();
    await ops.createFirstManager(newSession(), { name: 'Marta', pin: '2468' });
    const session = newSession();
    await ops.signIn(session, { name: 'Marta', pin: '2468' });
    const told: number[] = [];
    ops.onSessionsEnded((ended) => told.push(ended.length));
    t.sessionClock.advance(10 * 60_000);
    ops.sweepIdle();
    // Both sign-ins of the day (the first manager's, then this one), told in one go.
    expect(session.operatorId).toBeNull();
    expect(told).toEqual([2]);
  });

  it('a new PIN, a new role or disabling ends every session of that operator at once, on every till; a new name does not', async () => {
    const t = await till();
    const ops = await t.make();
    const manager = newSession();
    const marta = await ops.createFirstManager(manager, { name: 'Marta', pin: '2468' });
    const lia = await ops.add(marta, { name: 'Lia', role: 'cashier', pin: '3581' });
    const device = { kind: 'device', device: { id: 'till-2' } } as unknown as Parameters<typeof newSession>[0];
    const signedIn = async (name: string, pin: string) => {
      const tills = [newSession(), newSession(device)];
      for (const s of tills) await ops.signIn(s, { name, pin });
      return tills;
    };

    let tills = await signedIn('Lia', '3581');
    await ops.change(marta, { operatorId: lia.id, name: 'Lia S.' });
    expect(tills.map((s) => ops.caller(s)?.name)).toEqual(['Lia S.', 'Lia S.']);

    await ops.change(marta, { operatorId: lia.id, role: 'supervisor' });
    // At once: the sessions are ended, not only refused at their next call.
    expect(tills.map((s) => s.operatorId)).toEqual([null, null]);
    expect(tills.map((s) => ops.caller(s))).toEqual([null, null]);
    expect(ops.status(tills[0]!)).toMatchObject({ operator: null, ended: 'operator_changed' });
    expect(ops.caller(manager)?.name).toBe('Marta');

    tills = await signedIn('Lia S.', '3581');
    await ops.change(marta, { operatorId: lia.id, pin: '8642' });
    expect(tills.map((s) => s.operatorId)).toEqual([null, null]);

    tills = await signedIn('Lia S.', '8642');
    await ops.disable(marta, { operatorId: lia.id });
    expect(tills.map((s) => s.operatorId)).toEqual([null, null]);

    await ops.journaled();
    const ended = (await t.journal().eventsOfType('operator.signed_out')).map((e) => [e.data.reason, e.data.changed_by]);
    expect(ended).toEqual([
      ['operator_changed', 'Marta'],
      ['operator_changed', 'Marta'],
      ['operator_changed', 'Marta'],
      ['operator_changed', 'Marta'],
      ['operator_disabled', 'Marta'],
      ['operator_disabled', 'Marta'],
    ]);
  });
});
