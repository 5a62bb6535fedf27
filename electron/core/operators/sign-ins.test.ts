import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import type { Connection } from '../devices/connection.ts';
import { Devices } from '../devices/devices.ts';
import { DEVICE_PERSON_ACTIONS, DEVICES_PROJECTION, devicesProjection, PAIRING_OFFERS_PROJECTION, pairingOffersProjection } from '../devices/registry.ts';
import { openJournal } from '../journal/journal.ts';
import type { JournalPort } from '../journal/port.ts';
import { memoryLogger } from '../log.ts';
import { newSession, Operators, RESUME_TRIES_PER_PLACE, type Caller, type Session } from './operators.ts';
import { OPERATOR_PERSON_ACTIONS, OPERATORS_PROJECTION, operatorsProjection } from './registry.ts';
import { RESUME_GRACE_MS } from './sessions.ts';
import { foldSignInEntry, isResumeSecret, newResumeGrant, resumeRefusal, SIGN_INS_PROJECTION, signInsProjection, type LiveSignIn } from './sign-ins.ts';

/**
 * Issue 23: a sign-in outlives the core that made it. Each test signs in on one core, stops
 * it, and opens a new one on the same journal (a restart, or the standby that took over):
 * the page's resume secret resumes the sign-in there only if the journal says it has not ended.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const LOCK_MINUTES = 10;

async function store() {
  const dir = await mkdtemp(join(tmpdir(), 'pos-sign-ins-'));
  const clock = new ManualClock();
  const sessionClock = new ManualClock(1_000_000);
  const open = () =>
    openJournal<object>({
      dir,
      clock,
      reduceSale: () => undefined,
      operatorActions: [...OPERATOR_PERSON_ACTIONS, ...DEVICE_PERSON_ACTIONS],
      projections: { [OPERATORS_PROJECTION]: operatorsProjection, [SIGN_INS_PROJECTION]: signInsProjection, [DEVICES_PROJECTION]: devicesProjection, [PAIRING_OFFERS_PROJECTION]: pairingOffersProjection },
    });
  let journal: JournalPort<object> = await open();
  cleanups.push(async () => {
    await journal.close();
    await rm(dir, { recursive: true, force: true });
  });
  const log = memoryLogger(clock);
  const core = async () => {
    const operators = new Operators({ journal, clock, log, lockMinutes: LOCK_MINUTES, sessionClock });
    await operators.load();
    const devices = new Devices({ journal, clock, log });
    devices.load();
    return { operators, devices };
  };
  let current = await core();
  return {
    clock,
    sessionClock,
    log,
    journal: () => journal,
    get operators() {
      return current.operators;
    },
    get devices() {
      return current.devices;
    },
    /** The core stops (what it had to journal, journaled) and a new one opens the same journal. */
    async restart() {
      await current.operators.journaled();
      await journal.close();
      journal = await open();
      current = await core();
    },
    async journalText() {
      const files = (await readdir(dir)).filter((f) => f.endsWith('.jsonl'));
      return (await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')))).join('\n');
    },
  };
}

type Store = Awaited<ReturnType<typeof store>>;

/** The first manager, and a signed-in session of a cashier on that connection, with the secret its page was given. */
async function signedIn(s: Store, connection: Connection = { kind: 'store' }): Promise<{ marta: Caller; lia: Caller; session: Session; secret: string }> {
  const marta = await s.operators.createFirstManager(newSession(), { name: 'Marta', pin: '2468' });
  const added = await s.operators.add(marta, { name: 'Lia', role: 'cashier', pin: '3581' });
  const session = newSession(connection);
  await s.operators.signIn(session, { name: 'Lia', pin: '3581' });
  const secret = s.operators.handOver(session);
  if (secret === null) throw new Error('no resume secret was given at sign-in');
  return { marta, lia: { id: added.id, name: added.name, role: added.role }, session, secret };
}

const entries = async (s: Store, type: string) => (await s.journal().eventsOfType(type)).map((e) => e.data);

describe('resumeRefusal (the one rule)', () => {
  const signIn: LiveSignIn = { signInId: 's1', operatorId: 'op-lia', role: 'cashier', place: 'device:till-2', resumeSha256: 'a'.repeat(64), activeAt: 0 };
  const ok = { place: 'device:till-2', operator: { disabled: false, role: 'cashier' as const }, now: 60_000, lockMinutes: 10, activeAt: 0, droppedAt: 0 };
  it.each([
    ['a sign-in the journal does not have (wrong, or ended)', undefined, ok, 'unknown'],
    ['another device', signIn, { ...ok, place: 'device:till-3' }, 'other_place'],
    ['the store window, for a device’s sign-in', signIn, { ...ok, place: 'store' }, 'other_place'],
    ['an operator gone from the book', signIn, { ...ok, operator: undefined }, 'operator_gone'],
    ['a disabled operator', signIn, { ...ok, operator: { disabled: true, role: 'cashier' as const } }, 'operator_gone'],
    ['an operator whose role changed', signIn, { ...ok, operator: { disabled: false, role: 'manager' as const } }, 'role_changed'],
    ['idle exactly the lock minutes', signIn, { ...ok, now: 10 * 60_000, droppedAt: 10 * 60_000 }, 'idle'],
    ['dropped past the grace', signIn, { ...ok, now: RESUME_GRACE_MS + 1 }, 'dropped_too_long'],
    ['dropped the grace exactly', signIn, { ...ok, now: RESUME_GRACE_MS }, null],
    ['still connected, idle 9 minutes', signIn, { ...ok, now: 9 * 60_000, droppedAt: null }, null],
    ['never locking, dropped a minute ago', signIn, { ...ok, lockMinutes: 0, now: 10 * 60 * 60_000, droppedAt: 10 * 60 * 60_000 - 60_000 }, null],
  ] as const)('%s', (_name, s, facts, expected) => {
    expect(resumeRefusal(s, facts)).toBe(expected);
  });
});

describe('the fold of sign-ins not ended', () => {
  const at = (type: string, data: Record<string, unknown>) => ({ seq: 1, prev: '', hash: '', at: 0, type, data }) as never;
  const grant = newResumeGrant();
  const signed = foldSignInEntry([], at('operator.signed_in', { by: 'Lia', operator_id: 'op-lia', sign_in_id: 's1', place: 'store', role: 'cashier', resume_sha256: grant.sha256, active_at: 5 }));
  it('keeps a sign-in with its secret’s hash and forgets one journaled before issue 23 (no hash)', () => {
    expect(signed).toEqual([{ signInId: 's1', operatorId: 'op-lia', role: 'cashier', place: 'store', resumeSha256: grant.sha256, activeAt: 5 }]);
    expect(foldSignInEntry([], at('operator.signed_in', { by: 'Lia', operator_id: 'op-lia' }))).toEqual([]);
    expect(foldSignInEntry([], at('operator.signed_in', { by: 'Lia', operator_id: 'op-lia', sign_in_id: 's1', place: 'store', role: 'cashier', resume_sha256: grant.secret }))).toEqual([]);
  });
  it.each([
    ['a sign-out of it', 'operator.signed_out', { operator_id: 'op-lia', sign_in_id: 's1', reason: 'by_hand' }, 0],
    ['a sign-out of another sign-in', 'operator.signed_out', { operator_id: 'op-lia', sign_in_id: 's2', reason: 'by_hand' }, 1],
    ['a new PIN', 'operator.changed', { operator_id: 'op-lia', pin: {} }, 0],
    ['a new role', 'operator.changed', { operator_id: 'op-lia', role: 'supervisor' }, 0],
    ['the same role again', 'operator.changed', { operator_id: 'op-lia', role: 'cashier' }, 1],
    ['a new name', 'operator.changed', { operator_id: 'op-lia', name: 'Lia S.' }, 1],
    ['another operator’s new PIN', 'operator.changed', { operator_id: 'op-rui', pin: {} }, 1],
    ['the operator disabled', 'operator.disabled', { operator_id: 'op-lia' }, 0],
    ['its device revoked', 'device.revoked', { device_id: 'till-2' }, 1],
  ])('after %s', (_name, type, data, left) => {
    expect(foldSignInEntry(signed, at(type, data))).toHaveLength(left);
  });
  it('ends a device’s sign-ins when the device is revoked', () => {
    const onDevice = foldSignInEntry([], at('operator.signed_in', { operator_id: 'op-lia', sign_in_id: 's3', place: 'device:till-2', role: 'cashier', resume_sha256: grant.sha256 }));
    expect(foldSignInEntry(onDevice, at('device.revoked', { device_id: 'till-2' }))).toEqual([]);
  });
  it('a secret is 256 random bits of base64url', () => {
    expect(isResumeSecret(grant.secret)).toBe(true);
    expect(Buffer.from(grant.secret, 'base64url')).toHaveLength(32);
    expect(newResumeGrant().secret).not.toBe(grant.secret);
    expect(isResumeSecret('made-up-resume-key')).toBe(false);
  });
});

describe('issue 23: a sign-in resumed at the core that takes over', () => {
  it('goes on at a new core on the same journal, as the same operator with the same role, journaled who, which device, which sign-in', async () => {
    const s = await store();
    const till2: Connection = { kind: 'device', device: { id: 'till-2', kind: 'till', name: 'Till 2', storeId: 1, checkoutId: 2 } };
    const { lia, session, secret } = await signedIn(s, till2);
    const signInId = session.signInId;
    await s.restart();
    const resumed = s.operators.resume(till2, secret, '10.0.0.2');
    expect(resumed).not.toBeNull();
    // Roles are the core's, from the resumed operator: a cashier stays a cashier.
    expect(s.operators.caller(resumed as Session)).toEqual(lia);
    await s.operators.journaled();
    expect(await entries(s, 'operator.sign_in_resumed')).toEqual([
      { by: 'Lia', operator_id: lia.id, sign_in_id: signInId, place: 'device:till-2', device_id: 'till-2', by_this_core: false },
    ]);
    // And it is the sign-in it was: a sign-out on the new core ends it for good.
    await s.operators.signOut(resumed as Session, 'by_hand');
    await s.restart();
    expect(s.operators.resume(till2, secret, '10.0.0.2')).toBeNull();
  });

  it('goes on at the same core after a drop, the same session, within the grace', async () => {
    const s = await store();
    const { session, secret } = await signedIn(s);
    s.operators.connected(session);
    s.operators.disconnected(session);
    s.sessionClock.advance(RESUME_GRACE_MS);
    expect(s.operators.resume({ kind: 'store' }, secret, '127.0.0.1')).toBe(session);
    await s.operators.journaled();
    expect(await entries(s, 'operator.sign_in_resumed')).toMatchObject([{ by: 'Lia', by_this_core: true, device_id: null }]);
  });

  it('keeps the idle time across the takeover: the last act journaled counts, not the sign-in', async () => {
    const s = await store();
    const { session, secret } = await signedIn(s);
    s.sessionClock.advance(9 * 60_000);
    s.operators.touch(session);
    s.sessionClock.advance(5 * 60_000);
    await s.restart();
    // 14 minutes after the sign-in, 5 after the cashier's last act: still signed in.
    const resumed = s.operators.resume({ kind: 'store' }, secret, '127.0.0.1') as Session;
    expect(s.operators.caller(resumed)?.name).toBe('Lia');
    // And the idle clock goes on from that act, not from the resume.
    s.sessionClock.advance(5 * 60_000);
    expect(s.operators.caller(resumed)).toBeNull();
    expect(s.operators.status(resumed)).toMatchObject({ ended: 'idle' });
  });

  describe('is refused, with the sign-in screen, once the sign-in has ended', () => {
    const endings: Array<[string, (s: Store, t: Awaited<ReturnType<typeof signedIn>>) => Promise<void> | void, Connection?]> = [
      ['signed out by hand', (s, t) => s.operators.signOut(t.session, 'by_hand')],
      ['locked by the till itself', (s, t) => s.operators.signOut(t.session, 'idle')],
      ['idle past the lock minutes, by the core’s sweep', (s) => (s.sessionClock.advance(LOCK_MINUTES * 60_000), s.operators.sweepIdle())],
      ['idle past the lock minutes, with no core to see it (the idle time passed while none was active)', (s) => void s.sessionClock.advance(LOCK_MINUTES * 60_000)],
      ['its operator disabled', async (s, t) => void (await s.operators.disable(t.marta, { operatorId: t.lia.id }))],
      ['its operator’s PIN changed', async (s, t) => void (await s.operators.change(t.marta, { operatorId: t.lia.id, pin: '9517' }))],
      ['its operator’s role changed', async (s, t) => void (await s.operators.change(t.marta, { operatorId: t.lia.id, role: 'supervisor' }))],
      ['its connection gone past the grace', (s, t) => (s.operators.connected(t.session), s.operators.disconnected(t.session), s.sessionClock.advance(RESUME_GRACE_MS + 1), s.operators.sweepIdle())],
      ['its window closed (the Electron shell)', (s, t) => s.operators.forget(t.session)],
      ['signed in over by another operator on the same page', async (s, t) => void (await s.operators.signIn(t.session, { name: 'Marta', pin: '2468' }))],
    ];
    it.each(endings)('%s', async (_name, end) => {
      const s = await store();
      const t = await signedIn(s);
      await end(s, t);
      await s.restart();
      const before = (await s.journal().verify()) as { entries: number };
      expect(s.operators.resume({ kind: 'store' }, t.secret, '127.0.0.1')).toBeNull();
      await s.operators.journaled();
      // A refused resume changes nothing.
      expect(await s.journal().verify()).toEqual(before);
    });

    it('its device revoked', async () => {
      const s = await store();
      const marta = await s.operators.createFirstManager(newSession(), { name: 'Marta', pin: '2468' });
      const { code } = await s.devices.startPairing(marta, { kind: 'till', storeId: 1, checkoutId: 2, name: 'Till 2' });
      const { device } = await s.devices.pair(code, '10.0.0.2');
      const till: Connection = { kind: 'device', device };
      const session = newSession(till);
      await s.operators.signIn(session, { name: 'Marta', pin: '2468' });
      const secret = s.operators.handOver(session) as string;
      await s.devices.revoke(marta, device.id);
      await s.restart();
      expect(s.operators.resume(till, secret, '10.0.0.2')).toBeNull();
    });

    it('the core that made it stopped and the page came back past the grace of the new core’s start, which ends it', async () => {
      const s = await store();
      const t = await signedIn(s);
      await s.restart();
      s.sessionClock.advance(RESUME_GRACE_MS + 1);
      s.operators.sweepIdle();
      await s.operators.journaled();
      // Both sign-ins the stopped core left: the first manager's and Lia's.
      expect(await entries(s, 'operator.signed_out')).toMatchObject([
        { by: 'Marta', reason: 'connection_closed' },
        { by: 'Lia', sign_in_id: t.session.signInId ?? 'gone', reason: 'connection_closed' },
      ]);
      // Ended once: the next sweep writes nothing more.
      s.operators.sweepIdle();
      await s.operators.journaled();
      expect(await entries(s, 'operator.signed_out')).toHaveLength(2);
      expect(s.operators.resume({ kind: 'store' }, t.secret, '127.0.0.1')).toBeNull();
    });
  });

  it('is refused on another device, or the store’s window, whose page offers a secret it was not given', async () => {
    const s = await store();
    const till2: Connection = { kind: 'device', device: { id: 'till-2', kind: 'till', name: 'Till 2', storeId: 1, checkoutId: 2 } };
    const till3: Connection = { kind: 'device', device: { id: 'till-3', kind: 'till', name: 'Till 3', storeId: 1, checkoutId: 3 } };
    const { secret } = await signedIn(s, till2);
    await s.restart();
    expect(s.operators.resume(till3, secret, '10.0.0.3')).toBeNull();
    expect(s.operators.resume({ kind: 'store' }, secret, '10.0.0.3')).toBeNull();
    expect(s.operators.resume(till2, secret, '10.0.0.2')).not.toBeNull();
  });

  it('rate-limits refused secrets per device: past the limit even the right one is not tried there, nothing is journaled, and other devices are not held back', async () => {
    const s = await store();
    const till2: Connection = { kind: 'device', device: { id: 'till-2', kind: 'till', name: 'Till 2', storeId: 1, checkoutId: 2 } };
    const till3: Connection = { kind: 'device', device: { id: 'till-3', kind: 'till', name: 'Till 3', storeId: 1, checkoutId: 3 } };
    const { secret } = await signedIn(s, till2);
    const other = newSession(till3);
    await s.operators.signIn(other, { name: 'Marta', pin: '2468' });
    const otherSecret = s.operators.handOver(other) as string;
    await s.restart();
    const before = (await s.journal().verify()) as { entries: number };
    // Tills behind one balancer share its address: the limit is the device's, whatever the address.
    for (let i = 0; i < RESUME_TRIES_PER_PLACE; i++) expect(s.operators.resume(till2, newResumeGrant().secret, '10.0.0.1')).toBeNull();
    expect(s.operators.resume(till2, secret, '10.0.0.1')).toBeNull();
    expect(await s.journal().verify()).toEqual(before);
    expect(s.log.lines.some((l) => l.includes('too many refused'))).toBe(true);
    expect(s.operators.resume(till3, otherSecret, '10.0.0.1')).not.toBeNull();
    // A minute later the device is no longer held back.
    s.sessionClock.advance(60_000);
    expect(s.operators.resume(till2, secret, '10.0.0.1')).not.toBeNull();
  });

  it('tells the page to forget its secret once the sign-in ends, and an unpaired device resumes nothing', async () => {
    const s = await store();
    const { session, secret } = await signedIn(s);
    expect(s.operators.handOver(session)).toBeNull();
    await s.operators.signOut(session, 'by_hand');
    expect(s.operators.handOver(session)).toBe('');
    expect(s.operators.handOver(session)).toBeNull();
    expect(s.operators.resume({ kind: 'unpaired', from: '10.0.0.5' }, secret, '10.0.0.5')).toBeNull();
  });

  it('never writes or logs the resume secret, only its SHA-256', async () => {
    const s = await store();
    const { session, secret } = await signedIn(s);
    s.operators.touch(session);
    await s.restart();
    s.operators.resume({ kind: 'store' }, secret, '127.0.0.1');
    s.operators.resume({ kind: 'store' }, secret.slice(1) + 'A', '127.0.0.1');
    await s.operators.journaled();
    const journaled = await s.journalText();
    expect(journaled).toContain('"resume_sha256"');
    expect(journaled).not.toContain(secret);
    expect(s.log.lines.join('\n')).not.toContain(secret);
    expect(s.log.lines.join('\n')).not.toContain(secret.slice(1));
    // It is handed to the shell once, then the core keeps none in clear.
    expect(s.operators.handOver(session)).toBeNull();
  });
});
