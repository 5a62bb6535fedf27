import type { JournalEntry, Projection } from '../journal/port.ts';
import { isPinHash, type PinHash } from './pin.ts';
import { isRole, type Role } from './roles.ts';
import { withinDay } from './lockout.ts';

/**
 * The operators as the journal tells them: a pure fold over the operator.* entries, in seq
 * order. Nothing is deleted: a disabled operator stays, with who disabled them and when.
 */
export const OPERATOR_CREATED = 'operator.created';
export const OPERATOR_CHANGED = 'operator.changed';
export const OPERATOR_DISABLED = 'operator.disabled';
export const OPERATOR_SIGNED_IN = 'operator.signed_in';
export const OPERATOR_SIGNED_OUT = 'operator.signed_out';
export const OPERATOR_SIGN_IN_FAILED = 'operator.sign_in_failed';
export const OPERATOR_LOCKED = 'operator.locked';
/** Issue 25: a manager lets an operator locked by wrong PINs in again, in their name. */
export const OPERATOR_UNLOCKED = 'operator.unlocked';

export const OPERATOR_ENTRY_TYPES = [
  OPERATOR_CREATED,
  OPERATOR_CHANGED,
  OPERATOR_DISABLED,
  OPERATOR_SIGNED_IN,
  OPERATOR_SIGNED_OUT,
  OPERATOR_SIGN_IN_FAILED,
  OPERATOR_LOCKED,
  OPERATOR_UNLOCKED,
] as const;

/** Issue 23: a sign-in taken up again by its page's resume secret (sign-ins.ts), at this core or another. */
export const OPERATOR_SIGN_IN_RESUMED = 'operator.sign_in_resumed';

/** The entries a person does, which the journal refuses without `data.by`. */
export const OPERATOR_PERSON_ACTIONS = [OPERATOR_CREATED, OPERATOR_CHANGED, OPERATOR_DISABLED, OPERATOR_SIGNED_IN, OPERATOR_SIGNED_OUT, OPERATOR_UNLOCKED, OPERATOR_SIGN_IN_RESUMED] as const;

/** How wrong PINs lock an operator is lockout.ts's rule: 5 in a row, 5 minutes, doubling, 20 a day. */

export interface OperatorRecord {
  id: string;
  name: string;
  role: Role;
  pin: PinHash;
  disabled: boolean;
  created_at: number;
  created_by: string;
  /** Wrong PINs since the last sign-in, lock, new PIN or unlock. */
  failures: number;
  /** Epoch ms on the core's clock; null when not locked. */
  locked_until: number | null;
  /** When each wrong PIN of the last day was typed (lockout.ts); a sign-in does not clear them. */
  failed_at: readonly number[];
  /** When each timed lock of the last day began: the next one lasts twice as long. */
  locked_at: readonly number[];
  /** Locked by too many wrong PINs in a day: only a manager's unlock ends it. */
  manager_lock: boolean;
}

/** Records of a checkpoint written before issue 25 lack the day's facts: none then. */
export function withLockoutFacts(record: OperatorRecord): OperatorRecord {
  return { ...record, failed_at: record.failed_at ?? [], locked_at: record.locked_at ?? [], manager_lock: record.manager_lock ?? false };
}

const CLEARED = { failures: 0, locked_until: null, failed_at: [], locked_at: [], manager_lock: false } as const;

export type OperatorBook = ReadonlyMap<string, OperatorRecord>;

export const EMPTY_BOOK: OperatorBook = new Map();

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** One entry applied to the book; entries of other types, or malformed ones, leave it as is. */
export function foldOperatorEntry(book: OperatorBook, entry: JournalEntry): OperatorBook {
  const d = entry.data as Record<string, unknown>;
  const id = str(d.operator_id);
  if (id === null) return book;
  const known = book.get(id);
  const current = known ? withLockoutFacts(known) : undefined;
  const next = (record: OperatorRecord): OperatorBook => new Map(book).set(id, record);
  switch (entry.type) {
    case OPERATOR_CREATED: {
      const name = str(d.name);
      if (current || name === null || !isRole(d.role) || !isPinHash(d.pin)) return book;
      return next({ id, name, role: d.role, pin: d.pin, disabled: false, created_at: entry.at, created_by: str(d.by) ?? name, ...CLEARED });
    }
    case OPERATOR_CHANGED: {
      if (!current) return book;
      const pinChanged = isPinHash(d.pin);
      return next({
        ...current,
        ...(str(d.name) === null ? {} : { name: str(d.name) as string }),
        ...(isRole(d.role) ? { role: d.role } : {}),
        // A manager's new PIN also lifts a lock: the person has been seen to, and the guesses
        // made at the old PIN say nothing of the new one.
        ...(pinChanged ? { pin: d.pin as PinHash, ...CLEARED } : {}),
      });
    }
    case OPERATOR_DISABLED:
      return current ? next({ ...current, disabled: true }) : book;
    // A right PIN ends the run of wrong ones, not the day's count: an attacker who waits for
    // the operator to sign in between two rounds still has 20 guesses a day, no more.
    case OPERATOR_SIGNED_IN:
      return current ? next({ ...current, failures: 0, locked_until: null }) : book;
    case OPERATOR_SIGN_IN_FAILED:
      return current ? next({ ...current, failures: current.failures + 1, failed_at: [...withinDay(current.failed_at, entry.at), entry.at] }) : book;
    case OPERATOR_LOCKED: {
      if (!current) return book;
      if (d.manager_only === true) return next({ ...current, failures: 0, locked_until: null, manager_lock: true });
      const until = typeof d.until === 'number' ? d.until : null;
      return until !== null ? next({ ...current, failures: 0, locked_until: until, locked_at: [...withinDay(current.locked_at, entry.at), entry.at] }) : book;
    }
    case OPERATOR_UNLOCKED:
      return current ? next({ ...current, ...CLEARED }) : book;
    default:
      return book;
  }
}

/**
 * The book as the journal keeps it, a checkpointed projection (issue 13, point 8): a start
 * reads the operators without reading history. JSON has no Map, so the records are a list.
 */
export const OPERATORS_PROJECTION = 'operators';
export const operatorsProjection: Projection<readonly OperatorRecord[]> = {
  initial: [],
  reduce: (records, entry) => {
    if (!(OPERATOR_ENTRY_TYPES as readonly string[]).includes(entry.type)) return records;
    const book = foldOperatorEntry(new Map(records.map((r) => [r.id, r])), entry);
    return [...book.values()];
  },
};

export function isLocked(record: OperatorRecord, now: number): boolean {
  return record.manager_lock === true || (record.locked_until !== null && now < record.locked_until);
}

/** Names are compared as people read them: case and surrounding spaces do not matter. */
export function sameName(a: string, b: string): boolean {
  return a.trim().normalize('NFC').toLocaleLowerCase('en') === b.trim().normalize('NFC').toLocaleLowerCase('en');
}

export function activeByName(book: OperatorBook, name: string): OperatorRecord | undefined {
  for (const record of book.values()) if (!record.disabled && sameName(record.name, name)) return record;
  return undefined;
}

export function hasActiveManager(book: OperatorBook): boolean {
  for (const record of book.values()) if (!record.disabled && record.role === 'manager') return true;
  return false;
}
