import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { operatorAction, type JournalEntry, type JournalPort, type SaleRecord, type SaleReducer } from './port.ts';
import { JournalLockedError, openJournal } from './journal.ts';
import type { OpenJournalOptions } from './journal.ts';

/**
 * A stand-in for the sale state machine (electron/core/sales/ owns the real one), only
 * rich enough to exercise the view: creation, QR issued, displacement, payment, correction.
 */
interface TestSale extends SaleRecord {
  corrected_by?: string;
  history: string[];
}

const reduce: SaleReducer<TestSale> = (current, entry, saleId) => {
  const d = entry.data;
  switch (entry.type) {
    case 'sale.created':
      if (saleId !== d.sale_id) return current && { ...current, status: 'displaced', history: [...current.history, `displaced@${entry.seq}`] };
      return {
        sale_id: saleId, store_id: Number(d.store_id), checkout_id: Number(d.checkout_id), status: 'created', amount_cents: Number(d.amount_cents),
        created_at: entry.at, external_id: typeof d.external_id === 'string' ? d.external_id : undefined,
        shift_id: typeof d.shift_id === 'string' ? d.shift_id : undefined, history: [`created@${entry.seq}`],
      };
    case 'sale.qr_issued':
      return current && { ...current, status: 'pending', pix_id: String(d.pix_id), service_id: String(d.service_id), history: [...current.history, `qr@${entry.seq}`] };
    case 'charge.paid':
      return current && { ...current, status: 'paid', history: [...current.history, `paid@${entry.seq}`] };
    case 'sale.corrected':
      return current && { ...current, amount_cents: Number(d.amount_cents), corrected_by: String(d.by), history: [...current.history, `corrected@${entry.seq}`] };
    default:
      return undefined;
  }
};

let dir: string;
let clock: ManualClock;
const opened: JournalPort<TestSale>[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'journal-'));
  clock = new ManualClock(Date.UTC(2026, 10, 21, 13, 45));
});
afterEach(async () => {
  for (const j of opened.splice(0)) await j.close();
  await rm(dir, { recursive: true, force: true });
});

async function openIt(extra: Partial<OpenJournalOptions<TestSale>> = {}): Promise<JournalPort<TestSale>> {
  const j = await openJournal<TestSale>({ dir, clock, reduceSale: reduce, operatorActions: ['sale.corrected', 'sale.acknowledged'], ...extra });
  opened.push(j);
  return j;
}

async function reopen(j: JournalPort<TestSale>): Promise<JournalPort<TestSale>> {
  opened.splice(opened.indexOf(j), 1);
  await j.close();
  return openIt();
}

function created(saleId: string, checkoutId: number, amountCents: number, extra: Record<string, unknown> = {}) {
  return { type: 'sale.created', data: { sale_id: saleId, store_id: 1, checkout_id: checkoutId, amount_cents: amountCents, ...extra } };
}
function qr(saleId: string) {
  return { type: 'sale.qr_issued', data: { sale_id: saleId, pix_id: `pix_${saleId}`, service_id: `svc_${saleId}` } };
}

/** Everything the view answers, to compare a live journal with its replay. */
async function snapshot(j: JournalPort<TestSale>) {
  return {
    sales: await j.sales.createdBetween(0, Number.MAX_SAFE_INTEGER),
    events: await j.eventsBetween(0, Number.MAX_SAFE_INTEGER),
    shifts: await j.shifts.openedBetween(0, Number.MAX_SAFE_INTEGER),
    hooks: await Promise.all(['wh-1', 'wh-2'].map((id) => j.webhookSeq(id))),
  };
}

describe('the sale journal', () => {
  it('folds entries into sales through the caller’s reducer and answers every index', async () => {
    const j = await openIt();
    await j.append([created('a', 3, 1250, { external_id: 'order-1', shift_id: 'sh1' }), qr('a')]);
    clock.advance(60_000);
    // Displacement is one fact about two sales: one entry that names both.
    await j.append([{ type: 'sale.created', data: { sale_id: 'b', sale_ids: ['b', 'a'], store_id: 1, checkout_id: 3, amount_cents: 1300, external_id: 'order-1' } }, qr('b')]);
    clock.advance(60_000);
    await j.append([created('c', 4, 500, { shift_id: 'sh1' })]);
    await j.recordWebhook('wh-1', { type: 'charge.paid', data: { sale_id: 'b', amount_brl: '13.00' } });

    expect(await j.sales.get('a')).toMatchObject({ status: 'displaced', pix_id: 'pix_a', history: ['created@1', 'qr@2', 'displaced@3'] });
    expect(await j.sales.byPixId('pix_b')).toMatchObject({ sale_id: 'b', status: 'paid' });
    expect((await j.sales.byServiceId('svc_a'))?.sale_id).toBe('a');
    expect(await j.sales.byPixId('pix_nobody')).toBeUndefined();
    expect((await j.sales.byExternalId('order-1')).map((s) => s.sale_id).sort()).toEqual(['a', 'b']);
    expect((await j.sales.byCheckout(1, 3)).map((s) => s.sale_id)).toEqual(['a', 'b']);
    expect((await j.sales.byCheckout(1, 3, { fromMs: clock.now() - 90_000 })).map((s) => s.sale_id)).toEqual(['b']);
    expect((await j.sales.byCheckout(1, 3, { toMs: clock.now() - 90_000 })).map((s) => s.sale_id)).toEqual(['a']);
    expect(await j.sales.byCheckout(2, 3)).toEqual([]);
    expect((await j.sales.latestOnCheckout(1, 3))?.sale_id).toBe('b');
    expect(await j.sales.latestOnCheckout(1, 9)).toBeUndefined();
    expect((await j.sales.byStatus('displaced')).map((s) => s.sale_id)).toEqual(['a']);
    expect((await j.sales.byShift('sh1')).map((s) => s.sale_id).sort()).toEqual(['a', 'c']);
    expect((await j.sales.createdBetween(clock.now() - 59_999, clock.now() + 1)).map((s) => s.sale_id)).toEqual(['c']);

    expect((await j.eventsForSale('a')).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect((await j.eventsForSale('b')).map((e) => e.type)).toEqual(['sale.created', 'sale.qr_issued', 'charge.paid']);
    // [from, to): the entries of the middle minute only.
    const start = Date.UTC(2026, 10, 21, 13, 45);
    expect((await j.eventsBetween(start + 60_000, start + 120_000)).map((e) => e.seq)).toEqual([3, 4]);
    expect(await j.eventsBetween(start + 120_000, start + 60_000)).toEqual([]);
    expect((await j.eventsOfType('charge.paid')).map((e) => e.data.webhook_id)).toEqual(['wh-1']);
    expect(await j.webhookSeq('wh-1')).toBe(6);
    expect(j.status()).toMatchObject({ state: 'healthy', entries: 6, lastSeq: 6, segments: 1, reducerFailures: 0 });
  });

  it('rebuilds exactly the same view from the log at the next open', async () => {
    let j = await openIt();
    await j.openShift('sh1', 'ana');
    await j.append([created('a', 1, 100, { shift_id: 'sh1' }), qr('a'), created('b', 2, 200)]);
    await j.recordWebhook('wh-1', { type: 'charge.paid', data: { sale_id: 'a' } });
    await j.append([operatorAction('sale.corrected', 'ana', { sale_id: 'b', amount_cents: 250 })]);
    clock.advance(3_600_000);
    await j.closeShift('sh1', 'bruno');
    const live = await snapshot(j);
    j = await reopen(j);
    expect(await snapshot(j)).toEqual(live);
    expect(live.sales).toHaveLength(2);
    expect(live.events).toHaveLength(7);
    expect(j.status()).toMatchObject({ state: 'healthy', entries: 7 });
  });

  it('records who and when for operator actions, and refuses one that does not say who', async () => {
    const j = await openIt();
    await j.append([created('a', 1, 100)]);
    clock.advance(5_000);
    const { entries } = await j.append([operatorAction('sale.corrected', 'ana', { sale_id: 'a', amount_cents: 90 })]);
    expect(entries[0]).toMatchObject({ at: clock.now(), data: { by: 'ana', sale_id: 'a' } });
    expect(await j.sales.get('a')).toMatchObject({ amount_cents: 90, corrected_by: 'ana' });
    await expect(j.append([{ type: 'sale.corrected', data: { sale_id: 'a', amount_cents: 1 } }])).rejects.toThrow(/who/);
    await expect(j.append([operatorAction('sale.acknowledged', '  ', { sale_id: 'a' })])).rejects.toThrow(/operator/);
    expect(j.status().lastSeq).toBe(2);
    // Elsewhere `by` is the caller's: a displacement names the newer sale there, or null.
    await j.append([{ type: 'sale.displaced', data: { sale_id: 'a', by: null } }]);
    expect(j.status().lastSeq).toBe(3);
  });

  it('opens and closes shifts with who and when, and keeps them consistent', async () => {
    const j = await openIt();
    const opened = await j.openShift('sh1', 'ana', { float_cents: 10_000 });
    expect(opened).toEqual({ id: 'sh1', state: 'open', opened_at: clock.now(), opened_by: 'ana', opened_seq: 1 });
    await expect(j.openShift('sh1', 'ana')).rejects.toThrow(/already opened/);
    await expect(j.closeShift('sh9', 'ana')).rejects.toThrow(/never opened/);
    await expect(j.openShift('sh2', '')).rejects.toThrow(/operator/);
    await expect(j.append([{ type: 'shift.opened', data: { shift_id: 'sh3', by: 'x' } }])).rejects.toThrow(/openShift/);
    expect((await j.shifts.open()).map((s) => s.id)).toEqual(['sh1']);
    clock.advance(8 * 3_600_000);
    const closed = await j.closeShift('sh1', 'bruno');
    expect(closed).toMatchObject({ state: 'closed', closed_at: clock.now(), closed_by: 'bruno', opened_by: 'ana' });
    await expect(j.closeShift('sh1', 'bruno')).rejects.toThrow(/already closed/);
    expect(await j.shifts.open()).toEqual([]);
    expect((await j.eventsOfType('shift.opened'))[0]?.data).toEqual({ shift_id: 'sh1', by: 'ana', float_cents: 10_000 });
  });

  it('opening two shifts at once cannot both win the check', async () => {
    const j = await openIt();
    const results = await Promise.allSettled([j.openShift('sh1', 'ana'), j.openShift('sh1', 'bruno')]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(await j.eventsOfType('shift.opened')).toHaveLength(1);
  });
});

describe('webhook dedupe', () => {
  it('journals one webhook-id once, even under concurrent deliveries and after a restart', async () => {
    let j = await openIt();
    await j.append([created('a', 1, 1250), qr('a')]);
    const paid = { type: 'charge.paid', data: { sale_id: 'a', amount_brl: '12.50' } };
    const results = await Promise.all(Array.from({ length: 10 }, () => j.recordWebhook('wh-1', paid)));
    expect(results.filter((r) => r === 'recorded')).toHaveLength(1);
    expect(results.filter((r) => r === 'duplicate')).toHaveLength(9);
    expect(await j.eventsOfType('charge.paid')).toHaveLength(1);
    j = await reopen(j);
    expect(await j.recordWebhook('wh-1', paid)).toBe('duplicate');
    expect(await j.recordWebhook('wh-2', paid)).toBe('recorded');
    expect((await j.eventsOfType('charge.paid')).map((e) => e.data.webhook_id)).toEqual(['wh-1', 'wh-2']);
  });

  it('tries again after a delivery that could not be journaled', async () => {
    const j = await openIt();
    const bad = { type: 'charge.paid', data: { sale_id: 'a', amount: Number.NaN } };
    const good = { type: 'charge.paid', data: { sale_id: 'a', amount_brl: '1.00' } };
    const [first, second] = await Promise.allSettled([j.recordWebhook('wh-1', bad), j.recordWebhook('wh-1', good)]);
    expect(first.status).toBe('rejected');
    expect(second).toEqual({ status: 'fulfilled', value: 'recorded' });
    expect(await j.webhookSeq('wh-1')).toBe(1);
  });

  it('keeps webhook_id for recordWebhook only, and checks the id', async () => {
    const j = await openIt();
    await expect(j.append([{ type: 'charge.paid', data: { webhook_id: 'wh-1' } }])).rejects.toThrow(/recordWebhook/);
    await expect(j.recordWebhook('', { type: 'charge.paid', data: {} })).rejects.toThrow(TypeError);
    await expect(j.recordWebhook('x'.repeat(257), { type: 'charge.paid', data: {} })).rejects.toThrow(TypeError);
    await expect(j.recordWebhook('wh-1', { type: 'charge.paid', data: { webhook_id: 'wh-2' } })).rejects.toThrow(/differs/);
    expect(j.status().lastSeq).toBe(0);
  });
});

describe('a reducer that misbehaves', () => {
  it('never loses the entry: the sale keeps its last good record and the failure is counted', async () => {
    const fragile: SaleReducer<TestSale> = (current, entry, saleId) => {
      if (entry.type === 'boom') throw new Error('unknown field');
      if (entry.type === 'not-a-record') return 'paid' as unknown as TestSale;
      return reduce(current, entry, saleId);
    };
    const j = await openIt({ reduceSale: fragile });
    await j.append([created('a', 1, 100), { type: 'boom', data: { sale_id: 'a' } }, { type: 'not-a-record', data: { sale_id: 'a' } }, qr('a')]);
    expect(await j.sales.get('a')).toMatchObject({ status: 'pending', history: ['created@1', 'qr@4'] });
    expect((await j.eventsForSale('a')).map((e) => e.type)).toEqual(['sale.created', 'boom', 'not-a-record', 'sale.qr_issued']);
    expect(j.status()).toMatchObject({
      state: 'healthy',
      reducerFailures: 2,
      firstReducerFailures: [
        { seq: 2, saleId: 'a', message: 'unknown field' },
        { seq: 3, saleId: 'a', message: 'the reducer returned something that is not a record' },
      ],
    });
  });
});

describe('a sale shape of the state machine’s own', () => {
  /** Shaped like electron/core/sales' Sale: its own names, no created_at, nested facts. */
  interface OwnSale {
    sale_id: string;
    store_id: number;
    checkout_id: number;
    status: string;
    requested_at: number;
    created?: { pix_id: string; service_id: string };
  }
  const reduceOwn: SaleReducer<OwnSale> = (current, entry, saleId) => {
    if (entry.type === 'sale.requested') return { sale_id: saleId, store_id: 1, checkout_id: Number(entry.data.checkout_id), status: 'requested', requested_at: entry.at };
    if (entry.type === 'sale.created' && current) return { ...current, status: 'pending', created: { pix_id: String(entry.data.pix_id), service_id: String(entry.data.service_id) } };
    return undefined;
  };
  const keysOf = (s: OwnSale) => ({
    store_id: s.store_id, checkout_id: s.checkout_id, status: s.status, created_at: s.requested_at,
    pix_id: s.created?.pix_id, service_id: s.created?.service_id,
  });

  it('is indexed through saleKeys and handed back as it is', async () => {
    const j = await openJournal<OwnSale>({ dir, clock, reduceSale: reduceOwn, saleKeys: keysOf });
    try {
      await j.append([{ type: 'sale.requested', data: { sale_id: 'a', checkout_id: 2 } }, { type: 'sale.created', data: { sale_id: 'a', pix_id: 'pix_1', service_id: 'svc_1' } }]);
      const expected = { sale_id: 'a', store_id: 1, checkout_id: 2, status: 'pending', requested_at: clock.now(), created: { pix_id: 'pix_1', service_id: 'svc_1' } };
      expect(await j.sales.get('a')).toEqual(expected);
      expect(await j.sales.byPixId('pix_1')).toEqual(expected);
      expect(await j.sales.latestOnCheckout(1, 2)).toEqual(expected);
      expect(await j.sales.createdBetween(clock.now(), clock.now() + 1)).toEqual([expected]);
    } finally {
      await j.close();
    }
  });

  it('a saleKeys that throws leaves the sale findable by id only, and is counted', async () => {
    const j = await openJournal<OwnSale>({ dir, clock, reduceSale: reduceOwn, saleKeys: () => { throw new Error('no keys'); } });
    try {
      await j.append([{ type: 'sale.requested', data: { sale_id: 'a', checkout_id: 2 } }]);
      expect((await j.sales.get('a'))?.status).toBe('requested');
      expect(await j.sales.byStatus('requested')).toEqual([]);
      expect(j.status()).toMatchObject({ reducerFailures: 1, firstReducerFailures: [{ seq: 1, saleId: 'a', message: "the sale's keys cannot be read: no keys" }] });
    } finally {
      await j.close();
    }
  });
});

describe('status and the data dir', () => {
  it('reports a torn tail repaired at open, with every acknowledged entry intact', async () => {
    let j = await openIt();
    await j.append([created('a', 1, 100), qr('a')]);
    opened.splice(opened.indexOf(j), 1);
    await j.close();
    const { appendFile } = await import('node:fs/promises');
    await appendFile(join(dir, 'journal-2026-11-21.jsonl'), '{"seq":3,"prev":"');
    j = await openIt();
    expect(j.status()).toMatchObject({ state: 'torn-tail-repaired', entries: 2, tornTail: { segment: 'journal-2026-11-21.jsonl', line: 3, bytes: 17 } });
    expect(await j.sales.get('a')).toMatchObject({ status: 'pending' });
    expect(await j.verify()).toEqual({ ok: true, entries: 2 });
  });

  it('opens a corrupt journal read-only and says where it broke', async () => {
    let j = await openIt();
    await j.append([created('a', 1, 100), qr('a'), created('b', 1, 200)]);
    opened.splice(opened.indexOf(j), 1);
    await j.close();
    const file = join(dir, 'journal-2026-11-21.jsonl');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(file, (await readFile(file, 'utf8')).replace('"pix_a"', '"pix_x"'));
    j = await openIt();
    const broken = { segment: 'journal-2026-11-21.jsonl', line: 2, seq: 2, reason: 'hash does not match the content' };
    expect(j.status()).toMatchObject({ state: 'corrupt', entries: 1, corruption: broken });
    expect(await j.sales.get('a')).toMatchObject({ status: 'created' });
    expect(await j.sales.get('b')).toBeUndefined();
    await expect(j.append([created('c', 1, 1)])).rejects.toThrow(/corrupt at journal-2026-11-21.jsonl line 2/);
    expect(await j.verify()).toEqual({ ok: false, firstBroken: broken });
  });

  it('a failed write stops the journal: status failed, appends refused, nothing acknowledged, until a write works again', async () => {
    const j = await openIt();
    // A directory where today's segment should go: opening it for append fails (EISDIR).
    const { mkdir, rmdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'journal-2026-11-21.jsonl'));
    const both = await Promise.allSettled([j.append([created('a', 1, 1)]), j.append([created('b', 1, 1)])]);
    expect(both.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(j.status()).toMatchObject({ state: 'failed', lastSeq: 0, failure: expect.stringMatching(/EISDIR/), failureProblem: 'journal_write_failed' });
    await expect(j.append([created('c', 1, 1)])).rejects.toThrow(/cannot be written.*resumes by itself/);
    expect(await j.sales.get('a')).toBeUndefined();
    // The obstacle goes away: the next append writes, with no reopen.
    await rmdir(join(dir, 'journal-2026-11-21.jsonl'));
    await expect(j.append([created('d', 1, 1)])).resolves.toMatchObject({ firstSeq: 1 });
    expect(j.status()).toMatchObject({ state: 'healthy', failure: null });
  });

  it('refuses a second journal on the same dir while the first is open', async () => {
    const j = await openIt();
    await expect(openIt()).rejects.toBeInstanceOf(JournalLockedError);
    await j.append([created('a', 1, 1)]);
    expect(j.status().lastSeq).toBe(1);
  });

  it('rejects appends after close, and close is idempotent', async () => {
    const j = await openIt();
    const pending = j.append([created('a', 1, 1)]);
    await j.close();
    await expect(pending).resolves.toMatchObject({ firstSeq: 1, lastSeq: 1 });
    await expect(j.append([created('b', 1, 1)])).rejects.toThrow(/closed/);
    await j.close();
  });

  it('hands out AppendResult with the committed entries', async () => {
    const j = await openIt();
    const result = await j.append([created('a', 1, 1), qr('a')]);
    expect(result.firstSeq).toBe(1);
    expect(result.lastSeq).toBe(2);
    expect(result.entries.map((e: JournalEntry) => e.type)).toEqual(['sale.created', 'sale.qr_issued']);
  });
});
