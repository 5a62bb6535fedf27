import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { openJournal, type Journal } from '../journal/journal.ts';
import { memoryLogger } from '../log.ts';
import { newSession, Operators } from './operators.ts';
import { hashPin, pinMatches } from './pin.ts';
import { LOCK_MS, OPERATOR_PERSON_ACTIONS, OPERATORS_PROJECTION, operatorsProjection } from './registry.ts';
import { mayUse, refusal, whoMay } from './roles.ts';

/** Operators over a real journal in a temp dir, on a clock the test moves. */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function till(clock = new ManualClock()) {
  const dir = await mkdtemp(join(tmpdir(), 'pos-operators-'));
  const open = () => openJournal<object>({ dir, clock, reduceSale: () => undefined, operatorActions: OPERATOR_PERSON_ACTIONS, projections: { [OPERATORS_PROJECTION]: operatorsProjection } });
  let journal: Journal<object> = await open();
  cleanups.push(async () => {
    await journal.close();
    await rm(dir, { recursive: true, force: true });
  });
  const log = memoryLogger(clock);
  const make = async () => {
    const ops = new Operators({ journal, clock, log, lockMinutes: 10 });
    await ops.load();
    return ops;
  };
  return {
    clock,
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
    await expect(ops.createFirstManager(newSession(), { name: 'Mallory', pin: '1111' })).rejects.toMatchObject({ code: 'conflict', params: { reason: 'operators_exist' } });

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
    const lia = await ops.add(marta, { name: 'Lia', role: 'cashier', pin: '1111' });
    const session = newSession();
    await ops.signIn(session, { name: 'lia', pin: '1111' });
    expect(ops.caller(session)?.name).toBe('Lia');
    await ops.change(marta, { operatorId: lia.id, pin: '22223333' });
    await expect(ops.signIn(newSession(), { name: 'Lia', pin: '1111' })).rejects.toMatchObject({ code: 'sign_in_refused' });
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
