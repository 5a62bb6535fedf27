import { randomUUID } from 'node:crypto';
import { monotonicClock, type Clock } from '../../shared/clock.ts';
import { CoreError } from '../errors.ts';
import { JournalUnavailableError, type EntryInput, type JournalEntry, type JournalPort } from '../journal/port.ts';
import type { Logger } from '../log.ts';
import { lockAfterWrongPin } from './lockout.ts';
import { hashPin, pinMatches, trivialPinProblem, type PinHash } from './pin.ts';
import {
  activeByName,
  EMPTY_BOOK,
  foldOperatorEntry,
  hasActiveManager,
  isLocked,
  OPERATOR_CHANGED,
  OPERATOR_CREATED,
  OPERATOR_DISABLED,
  OPERATORS_PROJECTION,
  OPERATOR_LOCKED,
  OPERATOR_SIGN_IN_FAILED,
  OPERATOR_SIGNED_IN,
  OPERATOR_SIGNED_OUT,
  OPERATOR_UNLOCKED,
  withLockoutFacts,
  type OperatorBook,
  type OperatorRecord,
} from './registry.ts';
import { idlePast, mayResume } from './sessions.ts';
import {
  activeEveryMs,
  foldSignInEntry,
  isResumeSecret,
  newResumeGrant,
  OPERATOR_ACTIVE,
  OPERATOR_SIGN_IN_RESUMED,
  placeOf,
  resumeRefusal,
  resumeSha256,
  SIGN_INS_PROJECTION,
  type LiveSignIn,
  type ResumeRefusal,
} from './sign-ins.ts';
import type { Role } from './roles.ts';
import { Mutex } from '../../shared/mutex.ts';
import { STORE_CONNECTION, type Connection } from '../devices/connection.ts';

/** Who a call comes from: the operator signed in on its connection. */
export interface Caller {
  id: string;
  name: string;
  role: Role;
}

/**
 * One bridge connection's sign-in (a WebSocket of the browser shell, a window of the
 * Electron shell). It holds only the operator's id: each call looks the operator up again.
 * The core keeps every signed-in session (issue 25): it ends them when they are idle past
 * the lock minutes, and all of an operator's at once when their PIN or role changes or they
 * are disabled, on every till.
 */
export interface Session {
  operatorId: string | null;
  /** Where the connection comes from (devices/connection.ts): it decides the checkout and what it may call. */
  readonly connection: Connection;
  /** The operator's last act on it (sign-in, a key or a touch), on the session clock (sessions.ts). */
  activeAt: number | null;
  /** Why the core last ended its sign-in, until the next sign-in: the page says so. */
  ended: SessionEnd | null;
  /** Issue 23: the journal's id of its sign-in (sign-ins.ts), while signed in. */
  signInId: string | null;
  /**
   * What the browser shell tells its page next (handOver): a new sign-in's resume secret, or ''
   * once the sign-in ended (the page forgets its secret); null when nothing. The Electron
   * shell's windows never reconnect and never take it.
   */
  resumeSecret: string | null;
  /** The shell's open sockets on it (the browser shell), and when the last one closed (session clock). */
  sockets: number;
  droppedAt: number | null;
}

export function newSession(connection: Connection = STORE_CONNECTION): Session {
  return { operatorId: null, connection, activeAt: null, ended: null, signInId: null, resumeSecret: null, sockets: 0, droppedAt: null };
}

/**
 * Refused resumes one place (a paired device, the store's window) may make in a minute; past
 * it, a secret is not even looked at (the page signs in with its PIN). Counted by the place the
 * connection proved with its credential or token, not by address: tills behind a balancer
 * all come from its address.
 */
export const RESUME_TRIES_PER_PLACE = 10;
const RESUME_WINDOW_MS = 60_000;

/** Why the core ended a sign-in: journaled as the `reason` of operator.signed_out. */
export type SessionEnd = 'idle' | 'operator_changed' | 'operator_disabled' | 'connection_closed';

export interface OperatorView {
  id: string;
  name: string;
  role: Role;
  disabled: boolean;
  created_at: number;
  created_by: string;
  /** While locked by wrong PINs, until when (core clock, epoch ms); null when not locked now. */
  locked_until: number | null;
  /** Locked by too many wrong PINs in a day: only a manager's unlock lets them in. */
  needs_unlock: boolean;
}

export interface AuthStatus {
  /** No operator yet: the till asks for the first manager. */
  setup: boolean;
  operator: Caller | null;
  /** Idle minutes before the till signs its operator out (0 = never). */
  lockMinutes: number;
  /** Why the core ended this connection's last sign-in (idle, a manager's change), while no one is signed in. */
  ended: SessionEnd | null;
}

const view = (r: OperatorRecord, now: number): OperatorView => ({
  id: r.id,
  name: r.name,
  role: r.role,
  disabled: r.disabled,
  created_at: r.created_at,
  created_by: r.created_by,
  locked_until: isLocked(r, now) && !r.manager_lock ? r.locked_until : null,
  needs_unlock: r.manager_lock,
});

const caller = (r: OperatorRecord): Caller => ({ id: r.id, name: r.name, role: r.role });

const WRONG = 'That name and PIN do not match an operator of this till.';

function lockedRefusal(record: OperatorRecord): CoreError {
  if (record.manager_lock) {
    return new CoreError('sign_in_refused', `Too many wrong PINs today: only a manager can let ${record.name} sign in again.`, { reason: 'locked_for_manager' });
  }
  const until = new Date(record.locked_until as number).toISOString();
  return new CoreError('sign_in_refused', `Too many wrong PINs: ${record.name} can try again at ${until}.`, { reason: 'locked', until });
}

/** Issue 25: a PIN being set is refused when it is one a person guesses first (pin.ts). */
function refuseTrivialPin(pin: string | undefined): void {
  const problem = pin === undefined ? null : trivialPinProblem(pin);
  if (problem !== null) throw new CoreError('invalid_argument', problem, { field: 'pin', problem: 'trivial_pin' });
}

/**
 * The till's operators and their sign-ins. Every change is a journal entry with who and
 * when; the book is the fold of those entries (registry.ts), kept up to date as they are
 * written. Check-then-write steps run one at a time, so two sign-ins cannot both slip under
 * the lockout and two first managers cannot both be created.
 */
export class Operators {
  readonly #journal: JournalPort<object>;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #lock = new Mutex();
  readonly #sessionClock: Clock;
  readonly lockMinutes: number;
  #book: OperatorBook = EMPTY_BOOK;
  #decoy: Promise<PinHash> | null = null;
  /** Every session signed in now, on any till of either shell. */
  readonly #signedIn = new Set<Session>();
  readonly #endedListeners = new Set<(sessions: readonly Session[]) => void>();
  /** Sign-outs the core made from a call that cannot wait for the journal (caller() is synchronous). */
  readonly #endings = new Set<Promise<void>>();
  /** Issue 23: the sign-ins not ended, by the hash of their resume secret (sign-ins.ts). */
  #live = new Map<string, LiveSignIn>();
  /** When this core read the journal: a sign-in made by a core before it dropped no later than that. */
  #loadedAt = 0;
  /** Refused resumes by place (sign-ins.ts placeOf), in the last minute (session clock). */
  readonly #resumeRefusals = new Map<string, number[]>();
  /** When each sign-in's last act was journaled (OPERATOR_ACTIVE), on the session clock. */
  readonly #activeJournaled = new Map<string, number>();

  /** `sessionClock`: the idle time's (sessions.ts); a monotonic one unless a test moves its own. */
  constructor(deps: { journal: JournalPort<object>; clock: Clock; log: Logger; lockMinutes: number; sessionClock?: Clock }) {
    this.#journal = deps.journal;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.lockMinutes = deps.lockMinutes;
    this.#sessionClock = deps.sessionClock ?? monotonicClock;
  }

  async load(): Promise<void> {
    this.#book = new Map(this.#journal.projection<readonly OperatorRecord[]>(OPERATORS_PROJECTION).map((r) => [r.id, withLockoutFacts(r)]));
    this.#setLive(this.#journal.projection<readonly LiveSignIn[]>(SIGN_INS_PROJECTION));
    this.#loadedAt = this.#sessionClock.now();
  }

  #setLive(live: readonly LiveSignIn[]): void {
    this.#live = new Map(live.map((s) => [s.resumeSha256, s]));
  }

  #fold(entry: JournalEntry): void {
    this.#book = foldOperatorEntry(this.#book, entry);
    this.#setLive(foldSignInEntry([...this.#live.values()], entry));
  }

  /** Journals a fact the core cannot wait for (a call or a sweep is synchronous); journaled() waits for them. */
  #later(input: EntryInput, what: string): void {
    const write = this.#writeSignInFact(input)
      .catch((err: unknown) => this.#log.error(`could not journal ${what}`, { error: err }))
      .finally(() => this.#endings.delete(write));
    this.#endings.add(write);
  }

  /** Told of sign-ins the core ended (idle, a change of the operator): the shells tell their pages at once. */
  onSessionsEnded(listener: (sessions: readonly Session[]) => void): () => void {
    this.#endedListeners.add(listener);
    return () => this.#endedListeners.delete(listener);
  }

  /**
   * Journals a sign-in on a connection, with its resume secret's hash (never the secret), and
   * enters it; a sign-in the connection had is over.
   */
  async #signInOn(session: Session, record: { id: string; name: string; role: Role }): Promise<void> {
    const previous = session.signInId;
    const grant = newResumeGrant();
    const activeAt = this.#sessionClock.now();
    await this.#writeSignInFact({
      type: OPERATOR_SIGNED_IN,
      data: { by: record.name, operator_id: record.id, sign_in_id: grant.signInId, place: placeOf(session.connection), role: record.role, resume_sha256: grant.sha256, active_at: activeAt },
    });
    if (previous !== null && session.operatorId !== null) {
      this.#later({ type: OPERATOR_SIGNED_OUT, data: { by: record.name, operator_id: session.operatorId, sign_in_id: previous, reason: 'signed_in_again' } }, 'the end of a sign-in replaced by another');
    }
    session.operatorId = record.id;
    session.activeAt = activeAt;
    session.ended = null;
    session.signInId = grant.signInId;
    session.resumeSecret = grant.secret;
    this.#signedIn.add(session);
  }

  /**
   * The new sign-in's resume secret, once: the browser shell sends it to its page, which keeps
   * it in memory and offers it when its connection comes back (issue 23); '' once that sign-in
   * ended, so the page forgets it; null when there is nothing new to say.
   */
  handOver(session: Session): string | null {
    const secret = session.resumeSecret;
    session.resumeSecret = null;
    return secret;
  }

  /** A socket of the browser shell opened on the session. */
  connected(session: Session): void {
    session.sockets++;
    session.droppedAt = null;
  }

  /** A socket of the browser shell closed: with none left, the sign-in waits RESUME_GRACE_MS for its page (sweepIdle ends it after). */
  disconnected(session: Session): void {
    session.sockets = Math.max(0, session.sockets - 1);
    if (session.sockets === 0) session.droppedAt = this.#sessionClock.now();
  }

  /**
   * Issue 23: a connection that comes back (to this core, or to another after a takeover)
   * offers its page's resume secret. Its sign-in goes on only if the journal says it has not
   * ended, on the same device, for an operator still active with the same role, not idle past
   * the lock minutes and not dropped past the grace (sign-ins.ts). The resume is journaled
   * (who, which device, which sign-in). A wrong or ended secret changes nothing: null, and
   * the page signs in with its PIN. Refusals are rate-limited per place, not counted like wrong
   * PINs: a secret names no operator whose lockout could count it, and 256 bits are not guessed.
   */
  resume(connection: Connection, secret: string, from: string): Session | null {
    const now = this.#sessionClock.now();
    const place = placeOf(connection);
    // A device not paired yet has no sign-in to take up.
    if (connection.kind === 'unpaired') return null;
    const recent = (this.#resumeRefusals.get(place) ?? []).filter((t) => now - t < RESUME_WINDOW_MS);
    if (recent.length >= RESUME_TRIES_PER_PLACE) {
      this.#log.warn('sign-in resume not tried: too many refused for this device in a minute', { place, from });
      return null;
    }
    const signIn = isResumeSecret(secret) ? this.#live.get(resumeSha256(secret)) : undefined;
    const held = signIn === undefined ? undefined : [...this.#signedIn].find((s) => s.signInId === signIn.signInId);
    const record = signIn === undefined ? undefined : this.#book.get(signIn.operatorId);
    const refused = resumeRefusal(signIn, {
      place,
      operator: record,
      now,
      lockMinutes: this.lockMinutes,
      activeAt: held?.activeAt ?? signIn?.activeAt ?? now,
      droppedAt: held ? (held.sockets > 0 ? null : held.droppedAt) : this.#loadedAt,
    });
    if (refused !== null || signIn === undefined || record === undefined) {
      this.#refuseResume(place, from, recent, now, refused ?? 'unknown', signIn);
      return null;
    }
    const session = held ?? { ...newSession(connection), operatorId: record.id, activeAt: signIn.activeAt, signInId: signIn.signInId };
    this.#signedIn.add(session);
    this.#later(
      {
        type: OPERATOR_SIGN_IN_RESUMED,
        data: { by: record.name, operator_id: record.id, sign_in_id: signIn.signInId, place: signIn.place, device_id: connection.kind === 'device' ? connection.device.id : null, by_this_core: held !== undefined },
      },
      'a resumed sign-in',
    );
    this.#log.info('sign-in resumed', { operator_id: record.id, sign_in_id: signIn.signInId, place: signIn.place });
    return session;
  }

  #refuseResume(place: string, from: string, recent: number[], now: number, reason: ResumeRefusal, signIn: LiveSignIn | undefined): void {
    this.#resumeRefusals.set(place, [...recent, now]);
    for (const [key, times] of this.#resumeRefusals) if (times.every((t) => now - t >= RESUME_WINDOW_MS)) this.#resumeRefusals.delete(key);
    this.#log.info('sign-in resume refused: the page signs in again', { reason, place, from, ...(signIn ? { sign_in_id: signIn.signInId } : {}) });
  }

  /** Ends sign-ins in the core's name, journaled with the operator and why; then tells the shells. */
  #end(sessions: readonly Session[], reason: SessionEnd, changedBy?: Caller): void {
    const ended: Session[] = [];
    for (const session of sessions) {
      const id = session.operatorId;
      const signInId = session.signInId;
      session.operatorId = null;
      session.activeAt = null;
      session.ended = reason;
      session.signInId = null;
      session.resumeSecret = '';
      this.#signedIn.delete(session);
      if (signInId !== null) this.#activeJournaled.delete(signInId);
      const record = id === null ? undefined : this.#book.get(id);
      if (!record) continue;
      ended.push(session);
      const data = { by: record.name, operator_id: record.id, ...(signInId === null ? {} : { sign_in_id: signInId }), reason, ...(changedBy ? { changed_by: changedBy.name, changed_by_id: changedBy.id } : {}) };
      this.#later({ type: OPERATOR_SIGNED_OUT, data }, `a sign-out the core made (${reason})`);
    }
    if (ended.length === 0) return;
    this.#log.info('the core ended sign-ins', { reason, count: ended.length });
    for (const listener of this.#endedListeners) listener(ended);
  }

  get setup(): boolean {
    return this.#book.size === 0;
  }

  /**
   * The session's operator, if still one who may act. A sign-in idle past the lock minutes is
   * ended here, whatever its page does (issue 25): every call and every push asks this first.
   */
  caller(session: Session): Caller | null {
    if (session.operatorId === null) return null;
    const record = this.#book.get(session.operatorId);
    if (!record || record.disabled) {
      this.#end([session], 'operator_disabled');
      return null;
    }
    if (idlePast(session.activeAt, this.#sessionClock.now(), this.lockMinutes)) {
      this.#end([session], 'idle');
      return null;
    }
    return caller(record);
  }

  /**
   * A person at the page (a key, a touch, reported by it): the sign-in lives on. Only what
   * the page says of a person counts, never its own reads or the core's pushes (sessions.ts).
   */
  touch(session: Session): AuthStatus {
    const who = this.caller(session);
    if (who) {
      const now = this.#sessionClock.now();
      session.activeAt = now;
      // Issue 23: what another core will know of this sign-in's idle time, written now and then.
      const signInId = session.signInId;
      if (signInId !== null && this.lockMinutes > 0 && now - (this.#activeJournaled.get(signInId) ?? -Infinity) >= activeEveryMs(this.lockMinutes)) {
        this.#activeJournaled.set(signInId, now);
        this.#later({ type: OPERATOR_ACTIVE, data: { operator_id: who.id, sign_in_id: signInId, active_at: now } }, 'that an operator was at the till');
      }
    }
    return this.status(session);
  }

  /**
   * Ends, now rather than at their next call, the sign-ins idle past the limit and those whose
   * connection dropped past the grace; and the sign-ins a core before this one made (found in
   * the journal) whose page has not come back within the grace of this core's start. Run now
   * and then by the core.
   */
  sweepIdle(): void {
    const now = this.#sessionClock.now();
    this.#end([...this.#signedIn].filter((s) => idlePast(s.activeAt, now, this.lockMinutes)), 'idle');
    this.#end([...this.#signedIn].filter((s) => s.sockets === 0 && s.droppedAt !== null && !mayResume(s.droppedAt, now)), 'connection_closed');
    if (mayResume(this.#loadedAt, now)) return;
    const held = new Set([...this.#signedIn].map((s) => s.signInId));
    for (const signIn of this.#live.values()) {
      if (held.has(signIn.signInId)) continue;
      const record = this.#book.get(signIn.operatorId);
      const reason: SessionEnd = idlePast(signIn.activeAt, now, this.lockMinutes) ? 'idle' : 'connection_closed';
      // Folded at once (the write is later): the next sweep does not end it twice.
      this.#fold({ seq: 0, prev: '', hash: '', at: this.#clock.now(), type: OPERATOR_SIGNED_OUT, data: { operator_id: signIn.operatorId, sign_in_id: signIn.signInId } });
      this.#later({ type: OPERATOR_SIGNED_OUT, data: { by: record?.name ?? signIn.operatorId, operator_id: signIn.operatorId, sign_in_id: signIn.signInId, reason } }, 'the end of a sign-in whose page did not come back');
    }
  }

  /** A connection gone for good (its window closed, its resume grace over): its sign-in ends. */
  forget(session: Session): void {
    if (session.operatorId !== null) this.#end([session], 'connection_closed');
  }

  /** Resolves once every sign-out the core made so far is journaled. */
  async journaled(): Promise<void> {
    while (this.#endings.size > 0) await Promise.all([...this.#endings]);
  }


  status(session: Session): AuthStatus {
    const operator = this.caller(session);
    return { setup: this.setup, operator, lockMinutes: this.lockMinutes, ended: operator === null ? session.ended : null };
  }

  list(): OperatorView[] {
    const now = this.#clock.now();
    return [...this.#book.values()].map((r) => view(r, now)).sort((a, b) => Number(a.disabled) - Number(b.disabled) || a.name.localeCompare(b.name));
  }

  async #write(input: EntryInput): Promise<void> {
    const { entries } = await this.#journal.append([input]);
    for (const entry of entries) this.#fold(entry);
  }

  /**
   * Sign-in facts are written like any other, but a journal that refuses writes (broken,
   * disk full) must not keep a manager from signing in to repair it: the fact is then kept
   * in memory, so the lockout still counts, and the log says it was not journaled.
   */
  async #writeSignInFact(input: EntryInput): Promise<void> {
    try {
      await this.#write(input);
    } catch (err) {
      if (!(err instanceof JournalUnavailableError)) throw err;
      this.#log.warn('operator sign-in fact not journaled: the journal refuses writes', { type: input.type, operator_id: String(input.data.operator_id ?? '') });
      const entry: JournalEntry = { seq: 0, prev: '', hash: '', at: this.#clock.now(), type: input.type, data: input.data as JournalEntry['data'] };
      this.#fold(entry);
    }
  }

  #nameFree(name: string, except?: string): void {
    const other = activeByName(this.#book, name);
    if (other && other.id !== except) throw new CoreError('conflict', `There is already an operator named ${other.name}.`, { reason: 'operator_name_taken' });
  }

  /** At first start, with no operator at all: the first manager, who is then signed in. */
  createFirstManager(session: Session, input: { name: string; pin: string }): Promise<Caller> {
    return this.#lock.run(async () => {
      if (!this.setup) throw new CoreError('conflict', 'This till already has operators: a manager adds new ones.', { reason: 'operators_exist' });
      refuseTrivialPin(input.pin);
      const id = randomUUID();
      const name = input.name.trim();
      await this.#write({ type: OPERATOR_CREATED, data: { by: name, by_id: id, operator_id: id, name, role: 'manager', pin: await hashPin(input.pin) } });
      await this.#signInOn(session, { id, name, role: 'manager' });
      this.#log.info('first manager created', { operator_id: id });
      return { id, name, role: 'manager' };
    });
  }

  signIn(session: Session, input: { name: string; pin: string }): Promise<Caller> {
    return this.#lock.run(async () => {
      const record = activeByName(this.#book, input.name);
      const now = this.#clock.now();
      // Checked before the PIN is: a locked operator's PIN is not tried at all, from any till.
      if (record && isLocked(record, now)) throw lockedRefusal(record);
      // An unknown name costs the same scrypt as a known one: the time taken tells no names.
      this.#decoy ??= hashPin('0000');
      const matched = await pinMatches(input.pin, record?.pin ?? (await this.#decoy));
      if (record && matched) {
        await this.#signInOn(session, record);
        return caller(record);
      }
      await this.#writeSignInFact({ type: OPERATOR_SIGN_IN_FAILED, data: { operator_id: record?.id ?? null, name: input.name.trim() } });
      const after = record ? this.#book.get(record.id) : undefined;
      const lock = after ? lockAfterWrongPin(after, now) : ({ kind: 'none' } as const);
      if (after && lock.kind !== 'none') {
        const day = after.failed_at.length;
        await this.#writeSignInFact({
          type: OPERATOR_LOCKED,
          data: lock.kind === 'manager' ? { operator_id: after.id, name: after.name, until: null, manager_only: true, failures: day } : { operator_id: after.id, name: after.name, until: lock.until, failures: after.failures },
        });
        this.#log.warn('operator locked after wrong PINs', { operator_id: after.id, until: lock.kind === 'manager' ? 'a manager unlocks' : new Date(lock.until).toISOString(), wrong_today: day });
        throw lockedRefusal(this.#book.get(after.id) as OperatorRecord);
      }
      throw new CoreError('sign_in_refused', WRONG, { reason: 'wrong_pin' });
    });
  }

  /** `idle`: the till locked itself; `by_hand`: the Sign out button. */
  async signOut(session: Session, reason: 'by_hand' | 'idle'): Promise<void> {
    const who = this.caller(session);
    const signInId = session.signInId;
    session.operatorId = null;
    session.activeAt = null;
    session.signInId = null;
    session.resumeSecret = '';
    this.#signedIn.delete(session);
    if (signInId !== null) this.#activeJournaled.delete(signInId);
    if (who) await this.#writeSignInFact({ type: OPERATOR_SIGNED_OUT, data: { by: who.name, operator_id: who.id, ...(signInId === null ? {} : { sign_in_id: signInId }), reason } });
  }

  add(by: Caller, input: { name: string; role: Role; pin: string }): Promise<OperatorView> {
    return this.#lock.run(async () => {
      const name = input.name.trim();
      this.#nameFree(name);
      refuseTrivialPin(input.pin);
      const id = randomUUID();
      await this.#write({ type: OPERATOR_CREATED, data: { by: by.name, by_id: by.id, operator_id: id, name, role: input.role, pin: await hashPin(input.pin) } });
      return view(this.#book.get(id) as OperatorRecord, this.#clock.now());
    });
  }

  change(by: Caller, input: { operatorId: string; name?: string; role?: Role; pin?: string }): Promise<OperatorView> {
    return this.#lock.run(async () => {
      const record = this.#active(input.operatorId);
      if (input.name !== undefined) this.#nameFree(input.name.trim(), record.id);
      if (input.role !== undefined && input.role !== 'manager') this.#keepAManager(record);
      refuseTrivialPin(input.pin);
      await this.#write({
        type: OPERATOR_CHANGED,
        data: {
          by: by.name,
          by_id: by.id,
          operator_id: record.id,
          ...(input.name === undefined ? {} : { name: input.name.trim() }),
          ...(input.role === undefined ? {} : { role: input.role }),
          ...(input.pin === undefined ? {} : { pin: await hashPin(input.pin) }),
        },
      });
      // Issue 25: whoever was signed in as them, on any till, signs in again with what is theirs now.
      const roleChanged = input.role !== undefined && input.role !== record.role;
      if (input.pin !== undefined || roleChanged) this.#end(this.#sessionsOf(record.id), 'operator_changed', by);
      return view(this.#book.get(record.id) as OperatorRecord, this.#clock.now());
    });
  }

  #sessionsOf(operatorId: string): Session[] {
    return [...this.#signedIn].filter((s) => s.operatorId === operatorId);
  }

  /**
   * Issue 25: a manager lets an operator locked by wrong PINs sign in again (the only way
   * after 20 wrong in a day), in their name; the day's count starts again.
   */
  unlock(by: Caller, input: { operatorId: string }): Promise<OperatorView> {
    return this.#lock.run(async () => {
      const record = this.#active(input.operatorId);
      if (!isLocked(record, this.#clock.now())) throw new CoreError('conflict', `${record.name} is not locked.`, { reason: 'operator_not_locked' });
      await this.#write({ type: OPERATOR_UNLOCKED, data: { by: by.name, by_id: by.id, operator_id: record.id, name: record.name, wrong_today: record.failed_at.length } });
      this.#log.info('operator unlocked by a manager', { operator_id: record.id });
      return view(this.#book.get(record.id) as OperatorRecord, this.#clock.now());
    });
  }

  disable(by: Caller, input: { operatorId: string }): Promise<OperatorView> {
    return this.#lock.run(async () => {
      const record = this.#active(input.operatorId);
      this.#keepAManager(record);
      await this.#write({ type: OPERATOR_DISABLED, data: { by: by.name, by_id: by.id, operator_id: record.id, name: record.name } });
      this.#end(this.#sessionsOf(record.id), 'operator_disabled', by);
      return view(this.#book.get(record.id) as OperatorRecord, this.#clock.now());
    });
  }

  #active(id: string): OperatorRecord {
    const record = this.#book.get(id);
    if (!record || record.disabled) throw new CoreError('not_found', 'That operator is not an active operator of this till.');
    return record;
  }

  /** A till without an active manager could never add, change or repair anything again. */
  #keepAManager(record: OperatorRecord): void {
    if (record.role !== 'manager') return;
    const others: OperatorBook = new Map([...this.#book].filter(([id]) => id !== record.id));
    if (!hasActiveManager(others)) throw new CoreError('conflict', 'This is the till’s last manager: add another manager first.', { reason: 'last_manager' });
  }
}
