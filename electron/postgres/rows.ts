/**
 * What the journal's tables hand back, decoded with the same schema library as every other
 * boundary (electron/shared/schema.ts): a row that does not have the shape the migrations
 * give it is a sentence naming the table and the column, never a value that travels on
 * wrong. `bigint` columns come back from the client as decimal strings; they are read as
 * safe integers here, once.
 */
import { firstIssue, issuePath, v } from '../shared/schema.ts';
import type { JournalEntry, ShiftRecord } from '../core/journal/port.ts';
import type { JsonObject } from '../core/journal/canonical.ts';
import type { SaleRow } from '../core/journal/fold.ts';

/** A bigint (or integer) column: a safe integer whatever form the client gives it in. */
const int = v.pipe(
  v.union([v.number(), v.pipe(v.string(), v.regex(/^-?\d+$/, 'is not a whole number'))]),
  v.transform(Number),
  v.check((n) => Number.isSafeInteger(n), 'is not a safe integer'),
);
const optionalInt = v.nullable(int);
const optionalText = v.nullable(v.string());
/** A text column holding JSON: parsed here, so a damaged one is named, not thrown from deep inside. */
const json = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    try {
      return JSON.parse(dataset.value) as unknown;
    } catch {
      addIssue({ message: 'is not JSON' });
      return NEVER;
    }
  }),
);
const jsonObject = v.pipe(json, v.check((d) => d !== null && typeof d === 'object' && !Array.isArray(d), 'is not a JSON object'));

export const entryRow = v.object({ seq: int, prev: v.string(), hash: v.string(), at: int, type: v.string(), data: v.string() });
export type EntryRow = v.InferOutput<typeof entryRow>;

export const saleRecordRow = v.object({ sale_id: v.string(), record: json, touched_seq: int, touched_at: int });

/** A whole row of the sales table: the record and the keys it was indexed by. */
export const saleRow = v.object({
  ...saleRecordRow.entries,
  store_id: optionalInt,
  checkout_id: optionalInt,
  status: optionalText,
  created_at: optionalInt,
  amount_cents: optionalInt,
  pix_id: optionalText,
  service_id: optionalText,
  external_id: optionalText,
  shift_id: optionalText,
  needs_person: v.boolean(),
  displaceable: v.boolean(),
});

/** A sales row as the fold keeps it (journal/fold.ts SaleRow): absent keys left out, the flags as 'yes'. */
export function saleRowOf<S>(row: v.InferOutput<typeof saleRow>): SaleRow<S> {
  const out: SaleRow<S> = { sale_id: row.sale_id, record: row.record as S, touched_seq: row.touched_seq, touched_at: row.touched_at };
  for (const name of ['store_id', 'checkout_id', 'created_at', 'amount_cents'] as const) if (row[name] !== null) out[name] = row[name];
  for (const name of ['status', 'pix_id', 'service_id', 'external_id', 'shift_id'] as const) if (row[name] !== null) out[name] = row[name];
  if (row.needs_person) out.needs_person = 'yes';
  if (row.displaceable) out.displaceable = 'yes';
  return out;
}

export const shiftRow = v.object({
  id: v.string(),
  state: v.picklist(['open', 'closed']),
  opened_at: int,
  opened_by: v.string(),
  opened_seq: int,
  closed_at: optionalInt,
  closed_by: optionalText,
  closed_seq: optionalInt,
});

export const projectionRow = v.object({ name: v.string(), state: json });
export const seqRow = v.object({ seq: int });
export const countRow = v.object({ count: int });

/** A row that is not what the schema says: which table, and the first thing wrong with it. */
export class RowShapeError extends Error {
  override readonly name = 'RowShapeError';
}

export function decodeRow<S extends v.GenericSchema>(schema: S, table: string, row: unknown): v.InferOutput<S> {
  const found = firstIssue(schema, row);
  if (found.ok) return found.value;
  throw new RowShapeError(`A row of the ${table} table is damaged: ${issuePath(found.issue, 'row')} ${found.issue.message}.`);
}

export function decodeRows<S extends v.GenericSchema>(schema: S, table: string, rows: readonly unknown[]): v.InferOutput<S>[] {
  return rows.map((row) => decodeRow(schema, table, row));
}

/** An entry row as the journal's callers get it: data parsed from the canonical text it was hashed as. */
export function entryOf(row: EntryRow): JournalEntry {
  return { seq: row.seq, prev: row.prev, hash: row.hash, at: row.at, type: row.type, data: decodeRow(jsonObject, 'entries', row.data) as JsonObject };
}

export function shiftOf(row: v.InferOutput<typeof shiftRow>): ShiftRecord {
  const shift: ShiftRecord = { id: row.id, state: row.state, opened_at: row.opened_at, opened_by: row.opened_by, opened_seq: row.opened_seq };
  if (row.closed_at !== null) shift.closed_at = row.closed_at;
  if (row.closed_by !== null) shift.closed_by = row.closed_by;
  if (row.closed_seq !== null) shift.closed_seq = row.closed_seq;
  return shift;
}

/** A webhook_inbox row as the applier reads it (migrations/0004_webhook_inbox.sql). */
export const inboxRow = v.object({ id: int, webhook_id: v.string(), timestamp_sec: int, body: v.instance(Buffer) });
