/**
 * A generated store history, written straight into valid segments with the journal's own
 * canonical form and hash chain (no appends, no fsync per entry: a million entries in
 * seconds). Used by the history tests (small) and the benchmark (a million entries,
 * about three years of a busy store). Deterministic for a seed.
 *
 * The mix: a shift a day (the last one left open); per day sales on 8 checkouts, each
 * created and given a QR, then mostly paid by webhook and done, some displaced by the
 * next sale on the checkout, some expired, some paid the wrong amount; and late payments
 * for sales of earlier days, by webhook. What needs a person is acknowledged by the
 * manager at the day's end (a day cut short leaves some waiting).
 */
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson, entryHash, entryLine, GENESIS_PREV } from '../core/journal/canonical.ts';
import type { JsonObject } from '../core/journal/canonical.ts';
import { segmentName, utcDay } from '../core/journal/log.ts';
import type { JournalEntry, SaleRecord, SaleReducer } from '../core/journal/port.ts';
import { mulberry32 } from '../shared/prng.ts';

export interface GeneratedSale extends SaleRecord {
  paid_cents?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const CHECKOUTS = 8;
/** The statuses a sale can leave: what the working set must keep. */
export const GENERATED_OPEN_STATUSES = ['created', 'pending'];

function without<T extends object>(o: T, ...keys: string[]): T {
  const copy = { ...o } as Record<string, unknown>;
  for (const k of keys) delete copy[k];
  return copy as T;
}

/** The generated history's sale lifecycle, pure like any sale reducer. */
export const generatedSaleReducer: SaleReducer<GeneratedSale> = (current, entry, saleId) => {
  const d = entry.data;
  switch (entry.type) {
    case 'sale.created':
      if (saleId !== d.sale_id) return current && without({ ...current, status: 'displaced' }, 'displaceable');
      return {
        sale_id: saleId, store_id: Number(d.store_id), checkout_id: Number(d.checkout_id), status: 'created', amount_cents: Number(d.amount_cents),
        created_at: entry.at, external_id: String(d.external_id), shift_id: String(d.shift_id), displaceable: 'yes',
      };
    case 'sale.qr_issued':
      return current && { ...current, status: 'pending', pix_id: String(d.pix_id), service_id: String(d.service_id) };
    case 'charge.paid':
      if (!current) return undefined;
      if (d.amount_cents === current.amount_cents) return without({ ...current, status: 'paid', paid_cents: Number(d.amount_cents) }, 'displaceable');
      return without({ ...current, status: 'mismatch', paid_cents: Number(d.amount_cents), needs_person: 'yes' }, 'displaceable');
    case 'charge.done':
      return current && { ...current, status: 'done' };
    case 'sale.expired':
      return current && without({ ...current, status: 'expired' }, 'displaceable');
    case 'sale.acknowledged':
      return current && without({ ...current }, 'needs_person');
    case 'payment.received':
      return current && { ...current, status: 'paid_late', paid_cents: Number(d.amount_cents), needs_person: 'yes' };
    default:
      return undefined;
  }
};

export interface GeneratedInput {
  at: number;
  type: string;
  data: JsonObject;
}

export interface HistoryShape {
  /** Total entries (stops at this count, mid-day if need be). */
  entries: number;
  /** About this many entries per day. */
  perDay: number;
  startMs: number;
  seed: number;
}

/** The entries of a store's history, in time order. */
export function* generateHistory(shape: HistoryShape): Generator<GeneratedInput> {
  const rnd = mulberry32(shape.seed);
  let emitted = 0;
  const salesPerDay = Math.max(1, Math.round(shape.perDay / 4.2));
  const earlier: { sale_id: string; pix_id: string; service_id: string; amount_cents: number }[] = [];
  let saleNo = 0;
  let hookNo = 0;
  for (let day = 0; emitted < shape.entries; day++) {
    const dayStart = shape.startMs + day * DAY_MS;
    const shift = `shift-${utcDay(dayStart)}`;
    // The store opens at 08:00 and sells until 20:00: 12 hours of sales.
    let at = dayStart + 8 * 3_600_000;
    const step = Math.floor((12 * 3_600_000) / (salesPerDay + 1));
    const out: GeneratedInput[] = [{ at, type: 'shift.opened', data: { shift_id: shift, by: 'manager' } }];
    const pendingOn = new Map<number, { sale_id: string; pix_id: string; service_id: string; amount_cents: number }>();
    const toAcknowledge: string[] = [];
    for (let k = 0; k < salesPerDay; k++) {
      at += step;
      const checkout = 1 + Math.floor(rnd() * CHECKOUTS);
      const sale_id = `s${(saleNo++).toString(36).padStart(7, '0')}`;
      const amount_cents = 100 + Math.floor(rnd() * 20_000);
      const displaced = pendingOn.get(checkout);
      const sale_ids = displaced ? [sale_id, displaced.sale_id] : undefined;
      pendingOn.delete(checkout);
      out.push({ at, type: 'sale.created', data: { sale_id, ...(sale_ids ? { sale_ids } : {}), store_id: 1, checkout_id: checkout, amount_cents, external_id: `order-${sale_id}`, shift_id: shift, by: 'cashier' } });
      const pix_id = `pix_${sale_id}`;
      const service_id = `svc_${sale_id}`;
      out.push({ at: at + 400, type: 'sale.qr_issued', data: { sale_id, pix_id, service_id } });
      const r = rnd();
      const sale = { sale_id, pix_id, service_id, amount_cents };
      if (r < 0.78) {
        out.push({ at: at + 30_000, type: 'charge.paid', data: { sale_id, pix_id, service_id, amount_cents, e2e_id: `E${sale_id}`, webhook_id: `msg_${(hookNo++).toString(36)}` } });
        out.push({ at: at + 31_000, type: 'charge.done', data: { sale_id, pix_id, service_id } });
      } else if (r < 0.86) {
        // Left on the checkout: the next sale there displaces it.
        pendingOn.set(checkout, sale);
      } else if (r < 0.93) {
        out.push({ at: at + 600_000, type: 'sale.expired', data: { sale_id } });
        earlier.push(sale);
      } else if (r < 0.98) {
        out.push({ at: at + 30_000, type: 'charge.paid', data: { sale_id, pix_id, service_id, amount_cents: amount_cents + 1, e2e_id: `E${sale_id}`, webhook_id: `msg_${(hookNo++).toString(36)}` } });
        toAcknowledge.push(sale_id);
      } else {
        pendingOn.set(checkout, sale);
      }
      // Now and then a payment for a sale of an earlier day arrives late.
      if (earlier.length > 0 && rnd() < 0.01) {
        const old = earlier.splice(Math.floor(rnd() * earlier.length), 1)[0]!;
        out.push({ at: at + 1_000, type: 'payment.received', data: { sale_id: old.sale_id, pix_id: old.pix_id, amount_cents: old.amount_cents, webhook_id: `msg_${(hookNo++).toString(36)}` } });
        toAcknowledge.push(old.sale_id);
      }
    }
    at += step;
    // What no one paid or displaced expires by the end of the day.
    for (const left of pendingOn.values()) {
      out.push({ at: (at += 1_000), type: 'sale.expired', data: { sale_id: left.sale_id } });
      earlier.push(left);
    }
    for (const id of toAcknowledge) out.push({ at: (at += 1_000), type: 'sale.acknowledged', data: { sale_id: id, by: 'manager' } });
    out.push({ at: at + 60_000, type: 'shift.closed', data: { shift_id: shift, by: 'manager' } });
    out.sort((a, b) => a.at - b.at);
    for (const input of out) {
      if (emitted >= shape.entries) return;
      emitted++;
      yield input;
    }
    if (earlier.length > 5_000) earlier.splice(0, earlier.length - 5_000);
  }
}

/**
 * Writes entries into `dir` as the journal would have (one segment per UTC day, the hash
 * chain, canonical lines, files 0600 in a 0700 dir), each segment in one write.
 */
export async function writeHistory(dir: string, inputs: Iterable<GeneratedInput>): Promise<{ entries: number; lastSeq: number; lastHash: string; segments: number }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let seq = 0;
  let prev = GENESIS_PREV;
  let day: string | null = null;
  let lines: string[] = [];
  let segments = 0;
  const flush = async () => {
    if (day === null || lines.length === 0) return;
    const fh = await open(join(dir, segmentName(day)), 'a', 0o600);
    try {
      await fh.writeFile(lines.join(''));
    } finally {
      await fh.close();
    }
    segments++;
    lines = [];
  };
  for (const input of inputs) {
    const d = utcDay(input.at);
    if (d !== day) {
      await flush();
      day = d;
    }
    seq++;
    const data = canonicalJson(input.data);
    const hash = entryHash(seq, prev, input.at, input.type, data);
    lines.push(entryLine(seq, prev, hash, input.at, input.type, data) + '\n');
    prev = hash;
  }
  await flush();
  return { entries: seq, lastSeq: seq, lastHash: prev, segments };
}

/** Every entry of the generated history as the journal reads it back (for references in tests). */
export function entriesOf(inputs: Iterable<GeneratedInput>): JournalEntry[] {
  const out: JournalEntry[] = [];
  let prev = GENESIS_PREV;
  let seq = 0;
  for (const input of inputs) {
    seq++;
    const data = canonicalJson(input.data);
    const hash = entryHash(seq, prev, input.at, input.type, data);
    out.push({ seq, prev, hash, at: input.at, type: input.type, data: JSON.parse(data) as JsonObject });
    prev = hash;
  }
  return out;
}
