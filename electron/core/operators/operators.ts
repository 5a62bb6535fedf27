import { randomUUID } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import { CoreError } from '../errors.ts';
import { JournalUnavailableError, type EntryInput, type Journal, type JournalEntry } from '../journal/journal.ts';
import type { Logger } from '../log.ts';
import { hashPin, pinMatches, type PinHash } from './pin.ts';
import {
  activeByName,
  EMPTY_BOOK,
  foldOperatorEntry,
  hasActiveManager,
  isLocked,
  LOCK_AFTER_FAILURES,
  LOCK_MS,
  OPERATOR_CHANGED,
  OPERATOR_CREATED,
  OPERATOR_DISABLED,
  OPERATORS_PROJECTION,
  OPERATOR_LOCKED,
  OPERATOR_SIGN_IN_FAILED,
  OPERATOR_SIGNED_IN,
  OPERATOR_SIGNED_OUT,
  type OperatorBook,
  type OperatorRecord,
} from './registry.ts';
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
 * Electron shell). It holds only the operator's id: each call looks the operator up again,
 * so a role changed or an operator disabled takes effect at their next call.
 */
export interface Session {
  operatorId: string | null;
  /** Where the connection comes from (devices/connection.ts): it decides the checkout and what it may call. */
  readonly connection: Connection;
}

export function newSession(connection: Connection = STORE_CONNECTION): Session {
  return { operatorId: null, connection };
}

export interface OperatorView {
  id: string;
  name: string;
  role: Role;
  disabled: boolean;
  created_at: number;
  created_by: string;
  /** While locked by wrong PINs, until when (core clock, epoch ms); null when not locked now. */
  locked_until: number | null;
}

export interface AuthStatus {
  /** No operator yet: the till asks for the first manager. */
  setup: boolean;
  operator: Caller | null;
  /** Idle minutes before the till signs its operator out (0 = never). */
  lockMinutes: number;
}

const view = (r: OperatorRecord, now: number): OperatorView => ({
  id: r.id,
  name: r.name,
  role: r.role,
  disabled: r.disabled,
  created_at: r.created_at,
  created_by: r.created_by,
  locked_until: isLocked(r, now) ? r.locked_until : null,
});

const caller = (r: OperatorRecord): Caller => ({ id: r.id, name: r.name, role: r.role });

const WRONG = 'That name and PIN do not match an operator of this till.';

/**
 * The till's operators and their sign-ins. Every change is a journal entry with who and
 * when; the book is the fold of those entries (registry.ts), kept up to date as they are
 * written. Check-then-write steps run one at a time, so two sign-ins cannot both slip under
 * the lockout and two first managers cannot both be created.
 */
export class Operators {
  readonly #journal: Journal<object>;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #lock = new Mutex();
  readonly lockMinutes: number;
  #book: OperatorBook = EMPTY_BOOK;
  #decoy: Promise<PinHash> | null = null;

  constructor(deps: { journal: Journal<object>; clock: Clock; log: Logger; lockMinutes: number }) {
    this.#journal = deps.journal;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.lockMinutes = deps.lockMinutes;
  }

  async load(): Promise<void> {
    this.#book = new Map(this.#journal.projection<readonly OperatorRecord[]>(OPERATORS_PROJECTION).map((r) => [r.id, r]));
  }

  get setup(): boolean {
    return this.#book.size === 0;
  }

  /** The session's operator, if still one who may act; a disabled one is signed out. */
  caller(session: Session): Caller | null {
    if (session.operatorId === null) return null;
    const record = this.#book.get(session.operatorId);
    if (!record || record.disabled) {
      session.operatorId = null;
      return null;
    }
    return caller(record);
  }

  status(session: Session): AuthStatus {
    return { setup: this.setup, operator: this.caller(session), lockMinutes: this.lockMinutes };
  }

  list(): OperatorView[] {
    const now = this.#clock.now();
    return [...this.#book.values()].map((r) => view(r, now)).sort((a, b) => Number(a.disabled) - Number(b.disabled) || a.name.localeCompare(b.name));
  }

  async #write(input: EntryInput): Promise<void> {
    const { entries } = await this.#journal.append([input]);
    for (const entry of entries) this.#book = foldOperatorEntry(this.#book, entry);
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
      this.#book = foldOperatorEntry(this.#book, entry);
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
      const id = randomUUID();
      const name = input.name.trim();
      await this.#write({ type: OPERATOR_CREATED, data: { by: name, by_id: id, operator_id: id, name, role: 'manager', pin: await hashPin(input.pin) } });
      await this.#writeSignInFact({ type: OPERATOR_SIGNED_IN, data: { by: name, operator_id: id } });
      session.operatorId = id;
      this.#log.info('first manager created', { operator_id: id });
      return { id, name, role: 'manager' };
    });
  }

  signIn(session: Session, input: { name: string; pin: string }): Promise<Caller> {
    return this.#lock.run(async () => {
      const record = activeByName(this.#book, input.name);
      const now = this.#clock.now();
      if (record && isLocked(record, now)) {
        throw new CoreError('sign_in_refused', `Too many wrong PINs: ${record.name} can try again at ${new Date(record.locked_until as number).toISOString()}.`, {
          reason: 'locked',
          until: new Date(record.locked_until as number).toISOString(),
        });
      }
      // An unknown name costs the same scrypt as a known one: the time taken tells no names.
      this.#decoy ??= hashPin('0000');
      const matched = await pinMatches(input.pin, record?.pin ?? (await this.#decoy));
      if (record && matched) {
        await this.#writeSignInFact({ type: OPERATOR_SIGNED_IN, data: { by: record.name, operator_id: record.id } });
        session.operatorId = record.id;
        return caller(record);
      }
      await this.#writeSignInFact({ type: OPERATOR_SIGN_IN_FAILED, data: { operator_id: record?.id ?? null, name: input.name.trim() } });
      const after = record ? this.#book.get(record.id) : undefined;
      if (after && after.failures >= LOCK_AFTER_FAILURES) {
        const until = now + LOCK_MS;
        await this.#writeSignInFact({ type: OPERATOR_LOCKED, data: { operator_id: after.id, name: after.name, until, failures: after.failures } });
        this.#log.warn('operator locked after wrong PINs', { operator_id: after.id, until: new Date(until).toISOString() });
        throw new CoreError('sign_in_refused', `Too many wrong PINs: ${after.name} can try again at ${new Date(until).toISOString()}.`, {
          reason: 'locked',
          until: new Date(until).toISOString(),
        });
      }
      throw new CoreError('sign_in_refused', WRONG, { reason: 'wrong_pin' });
    });
  }

  /** `idle`: the till locked itself; `by_hand`: the Sign out button. */
  async signOut(session: Session, reason: 'by_hand' | 'idle'): Promise<void> {
    const who = this.caller(session);
    session.operatorId = null;
    if (who) await this.#writeSignInFact({ type: OPERATOR_SIGNED_OUT, data: { by: who.name, operator_id: who.id, reason } });
  }

  add(by: Caller, input: { name: string; role: Role; pin: string }): Promise<OperatorView> {
    return this.#lock.run(async () => {
      const name = input.name.trim();
      this.#nameFree(name);
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
      return view(this.#book.get(record.id) as OperatorRecord, this.#clock.now());
    });
  }

  disable(by: Caller, input: { operatorId: string }): Promise<OperatorView> {
    return this.#lock.run(async () => {
      const record = this.#active(input.operatorId);
      this.#keepAManager(record);
      await this.#write({ type: OPERATOR_DISABLED, data: { by: by.name, by_id: by.id, operator_id: record.id, name: record.name } });
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
