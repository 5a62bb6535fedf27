import { mkdir } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { systemClock } from '../shared/clock.ts';
import type { EntryInput, JournalEntry, SaleRecord, SaleReducer } from '../core/journal/port.ts';
import { openJournal } from '../core/journal/journal.ts';

export interface JournalBenchResult {
  events: number;
  /** Appends in flight at once: each awaits its own fsync'd, group-committed append. */
  concurrency: number;
  appendEventsPerSec: number;
  /** Mean entries per write+fsync: how much group commit shared. */
  meanGroupSize: number;
  /** Open of the written journal: read, hash-check and rebuild the IndexedDB view. */
  replayMs: number;
  /** Heap held after replay, over the heap before open (after a GC when one can be forced). */
  replayHeapMb: number;
  rssMb: number;
  verifyMs: number;
}

const MB = 1024 * 1024;

/** Four entries per sale, shaped like the sale lifecycle's: created, QR issued, paid, done. */
function benchEntry(i: number): EntryInput {
  const sale = Math.floor(i / 4);
  const saleId = `sale-${sale.toString().padStart(8, '0')}`;
  switch (i % 4) {
    case 0:
      return { type: 'sale.created', data: { sale_id: saleId, store_id: 1, checkout_id: 1 + (sale % 8), amount_cents: 1250 + (sale % 500), external_id: `order-${sale}`, by: 'cashier-1' } };
    case 1:
      return { type: 'sale.qr_issued', data: { sale_id: saleId, pix_id: `pix_${sale}`, service_id: `svc_${sale}`, qr_type: 'printed_dynamic' } };
    case 2:
      return { type: 'charge.paid', data: { sale_id: saleId, pix_id: `pix_${sale}`, service_id: `svc_${sale}`, amount_brl: '12.50', e2e_id: `E${sale}`, paid_at: '2026-11-21T13:46:00.000Z' } };
    default:
      return { type: 'charge.done', data: { sale_id: saleId, pix_id: `pix_${sale}`, service_id: `svc_${sale}`, settlement_id: null, tx_hash: null } };
  }
}

const benchReducer: SaleReducer<SaleRecord> = (current: SaleRecord | undefined, entry: JournalEntry, saleId: string) => {
  const d = entry.data;
  switch (entry.type) {
    case 'sale.created':
      return {
        sale_id: saleId, store_id: Number(d.store_id), checkout_id: Number(d.checkout_id), status: 'created',
        amount_cents: Number(d.amount_cents), created_at: entry.at, external_id: String(d.external_id),
      };
    case 'sale.qr_issued':
      return current && { ...current, status: 'pending', pix_id: String(d.pix_id), service_id: String(d.service_id) };
    case 'charge.paid':
      return current && { ...current, status: 'paid' };
    case 'charge.done':
      return current && { ...current, status: 'done' };
    default:
      return undefined;
  }
};

function forcedGc(): (() => void) | null {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    return null;
  }
}

/**
 * Appends `events` entries with fsync to a journal in `dir` (which should be empty),
 * closes it, and measures a cold open (replay into the view) and a verify. Measures
 * only: asserts nothing. Wall-clock time here is measurement, not domain time.
 */
export async function benchJournal(options: { dir: string; events: number; concurrency?: number }): Promise<JournalBenchResult> {
  const { dir, events } = options;
  const concurrency = Math.max(1, options.concurrency ?? 64);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const gc = forcedGc();

  const writer = await openJournal({ dir, clock: systemClock, reduceSale: benchReducer });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < events) await writer.append([benchEntry(next++)]);
    }),
  );
  const appendMs = performance.now() - t0;
  const { commits } = writer.status();
  await writer.close();

  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const t1 = performance.now();
  const reader = await openJournal({ dir, clock: systemClock, reduceSale: benchReducer });
  const replayMs = performance.now() - t1;
  gc?.();
  const memory = process.memoryUsage();
  const t2 = performance.now();
  await reader.verify();
  const verifyMs = performance.now() - t2;
  await reader.close();

  return {
    events,
    concurrency,
    appendEventsPerSec: Math.round(events / (appendMs / 1000)),
    meanGroupSize: commits.commits === 0 ? 0 : Math.round((commits.committedEntries / commits.commits) * 10) / 10,
    replayMs: Math.round(replayMs),
    replayHeapMb: Math.round(((memory.heapUsed - heapBefore) / MB) * 10) / 10,
    rssMb: Math.round((memory.rss / MB) * 10) / 10,
    verifyMs: Math.round(verifyMs),
  };
}
