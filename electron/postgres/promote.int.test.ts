/**
 * The primary dies and its streaming replica is promoted: a core on a multi-host URL
 * (target_session_attrs=read-write) goes on against the new primary by itself. The replica is
 * synchronous, so every append the core acknowledged is on it exactly once; an append refused
 * during the switch is not there at all; the chain verifies on the new primary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { created, reduce, type TestSale } from '../core/journal/fixtures/port-suite.ts';
import type { AppendResult, JournalPort } from '../core/journal/port.ts';
import { systemClock } from '../shared/clock.ts';
import postgres from 'postgres';
import { startReplicatedPair, type ReplicatedPair } from './fixtures/test-database.ts';
import { postgresJournal } from './open.ts';

let pair: ReplicatedPair;
let journal: JournalPort<TestSale>;
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

beforeAll(async () => {
  pair = await startReplicatedPair();
  journal = await postgresJournal<TestSale>({ url: pair.url, holder: 'core-a' })({ clock: systemClock, log: quiet, onHealthChange: () => undefined, reduceSale: reduce });
}, 120_000);
afterAll(async () => {
  await journal?.close().catch(() => undefined);
  await pair?.stop();
});

describe('a replica promoted after its primary died', () => {
  it('takes the core’s appends from then on, with every acknowledged one and none refused', async () => {
    const outcomes: Array<{ sale: string; result?: AppendResult; error?: unknown; afterFailover: boolean }> = [];
    let failover: Promise<void> | null = null;
    let failedOver = false;
    // Four tills, a sale each every 10 ms; the primary dies at the 40th and the replica is
    // promoted; they go on until 40 more sales after the promotion.
    let sinceFailover = 0;
    const till = async (n: number) => {
      for (let i = n; !failedOver || sinceFailover < 40; i += 4) {
        const sale = `s${i}`;
        if (i === 40) failover = (async () => {
          await pair.killPrimary();
          await pair.promoteReplica();
          failedOver = true;
        })();
        const afterFailover = failedOver;
        if (afterFailover) sinceFailover++;
        try {
          outcomes.push({ sale, result: await journal.append([created(sale, 1 + n, 100 + i)]), afterFailover });
        } catch (error) {
          outcomes.push({ sale, error, afterFailover });
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await Promise.all([0, 1, 2, 3].map(till));
    await failover;
    // The tills went on against the new primary: most of their sales after it was promoted went through.
    expect(outcomes.filter((o) => o.afterFailover && o.result !== undefined).length).toBeGreaterThan(20);
    const after = await journal.append([created('after', 1, 1)]);

    const promoted = postgres(pair.replicaUrl, { max: 1, onnotice: () => {} });
    try {
      expect((await promoted<{ r: boolean }[]>`select pg_is_in_recovery() as r`)[0]!.r).toBe(false);
      const rows = await promoted<{ seq: string; hash: string; sale: string }[]>`select seq, hash, data::json->>'sale_id' as sale from entries order by seq`;
      const bySale = new Map<string, Array<{ seq: number; hash: string }>>();
      for (const r of rows) bySale.set(r.sale, [...(bySale.get(r.sale) ?? []), { seq: Number(r.seq), hash: r.hash }]);
      const acknowledged = outcomes.filter((o) => o.result !== undefined);
      expect(acknowledged.length).toBeGreaterThan(40);
      for (const { sale, result } of acknowledged) expect(bySale.get(sale), `acknowledged sale ${sale}`).toEqual([{ seq: result!.entries[0]!.seq, hash: result!.entries[0]!.hash }]);
      for (const { sale, error } of outcomes.filter((o) => o.error !== undefined)) expect(bySale.get(sale), `refused sale ${sale} (${String(error)})`).toBeUndefined();
      expect(rows.at(-1)!.seq).toBe(String(after.lastSeq));
      expect(await journal.verify()).toEqual({ ok: true, entries: rows.length });
      expect(journal.status().state).toBe('healthy');
    } finally {
      await promoted.end({ timeout: 1 });
    }
  }, 120_000);
});
