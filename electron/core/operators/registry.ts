import type { JournalEntry, Projection } from '../journal/journal.ts';
import { isPinHash, type PinHash } from './pin.ts';
import { isRole, type Role } from './roles.ts';

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

export const OPERATOR_ENTRY_TYPES = [
  OPERATOR_CREATED,
  OPERATOR_CHANGED,
  OPERATOR_DISABLED,
  OPERATOR_SIGNED_IN,
  OPERATOR_SIGNED_OUT,
  OPERATOR_SIGN_IN_FAILED,
  OPERATOR_LOCKED,
] as const;

/** The entries a person does, which the journal refuses without `data.by`. */
export const OPERATOR_PERSON_ACTIONS = [OPERATOR_CREATED, OPERATOR_CHANGED, OPERATOR_DISABLED, OPERATOR_SIGNED_IN, OPERATOR_SIGNED_OUT] as const;

/** Issue 8: five wrong PINs in a row lock that operator for five minutes. */
export const LOCK_AFTER_FAILURES = 5;
export const LOCK_MS = 5 * 60_000;

export interface OperatorRecord {
  id: string;
  name: string;
  role: Role;
  pin: PinHash;
  disabled: boolean;
  created_at: number;
  created_by: string;
  /** Wrong PINs since the last sign-in, lock or new PIN. */
  failures: number;
  /** Epoch ms on the core's clock; null when not locked. */
  locked_until: number | null;
}

export type OperatorBook = ReadonlyMap<string, OperatorRecord>;

export const EMPTY_BOOK: OperatorBook = new Map();

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** One entry applied to the book; entries of other types, or malformed ones, leave it as is. */
export function foldOperatorEntry(book: OperatorBook, entry: JournalEntry): OperatorBook {
  const d = entry.data as Record<string, unknown>;
  const id = str(d.operator_id);
  if (id === null) return book;
  const current = book.get(id);
  const next = (record: OperatorRecord): OperatorBook => new Map(book).set(id, record);
  switch (entry.type) {
    case OPERATOR_CREATED: {
      const name = str(d.name);
      if (current || name === null || !isRole(d.role) || !isPinHash(d.pin)) return book;
      return next({ id, name, role: d.role, pin: d.pin, disabled: false, created_at: entry.at, created_by: str(d.by) ?? name, failures: 0, locked_until: null });
    }
    case OPERATOR_CHANGED: {
      if (!current) return book;
      const pinChanged = isPinHash(d.pin);
      return next({
        ...current,
        ...(str(d.name) === null ? {} : { name: str(d.name) as string }),
        ...(isRole(d.role) ? { role: d.role } : {}),
        // A manager's new PIN also lifts a lock: the person has been seen to.
        ...(pinChanged ? { pin: d.pin as PinHash, failures: 0, locked_until: null } : {}),
      });
    }
    case OPERATOR_DISABLED:
      return current ? next({ ...current, disabled: true }) : book;
    case OPERATOR_SIGNED_IN:
      return current ? next({ ...current, failures: 0, locked_until: null }) : book;
    case OPERATOR_SIGN_IN_FAILED:
      return current ? next({ ...current, failures: current.failures + 1 }) : book;
    case OPERATOR_LOCKED: {
      const until = typeof d.until === 'number' ? d.until : null;
      return current && until !== null ? next({ ...current, failures: 0, locked_until: until }) : book;
    }
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
  return record.locked_until !== null && now < record.locked_until;
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
