import { describe, expect, it } from 'vitest';
import { postgresBinDir } from '../postgres/fixtures/test-database.ts';
import { formatCoresReport } from './cli.ts';
import { planCores, runCoresSoak, type CoresDatabase } from './cores.ts';
import { planCampaign } from './plan.ts';

/**
 * A short run of `npm run soak -- --cores 3`: three `npm run server` cores on one PostgreSQL
 * database behind round-robin fronts for tills and webhooks, the single-core campaign's plan
 * (faults on every route and webhook), SIGKILLs of the active core and of a standby with
 * restarts on the same data dir, a database restart, drain, and the audit of the journal the
 * cores wrote. The database: a throwaway cluster started for the run where Debian's
 * postgresql package is installed (so its restart is part of the run), else the server the
 * PostgreSQL fixture finds (POS_TEST_DATABASE_URL, the machine's own), never restarted.
 * SOAK_SEED=<n> replays another seed.
 */
const SEED = Number(process.env.SOAK_SEED ?? 20_261_132);
const SALES = 32;
const KILL_EVERY = [8, 12] as const;
const DATABASE: CoresDatabase = process.env.POS_TEST_DATABASE_URL === undefined && postgresBinDir() !== null ? 'throwaway' : 'any';

describe('the fault campaign over three cores, short', () => {
  it(`${SALES} sales through a front over 3 cores, the active core killed: nothing lost, doubled, misattributed or left unflagged`, async () => {
    const plan = planCampaign({ sales: SALES, seed: SEED, killEvery: KILL_EVERY });
    const drawn = planCores(plan, SEED, 3);
    // The seed kills the active core, once long enough (past the 6-s lease) for a standby to take over.
    expect([...drawn.kills.values()].some((k) => k.activeOne && k.downMs >= 9_000)).toBe(true);

    const result = await runCoresSoak({ cores: 3, sales: SALES, seed: SEED, minutes: 3, killEvery: KILL_EVERY, drainSeconds: 40, database: DATABASE, log: (line) => console.log(`soak: ${line}`) });
    console.log(formatCoresReport(result));
    expect(result.salesRun).toBe(SALES);
    expect(result.kills).toHaveLength(drawn.kills.size);
    expect(result.kills.length).toBeGreaterThanOrEqual(2);
    expect(result.kills.some((k) => k.wasActive)).toBe(true);
    // A standby took the lease at least once: the journal holds the takeover.
    expect(result.takeovers.count).toBeGreaterThanOrEqual(1);
    if (result.database === 'throwaway') expect(result.postgresRestart.done).toBe(true);
    expect(result.crashes).toEqual([]);
    expect(result.drained).toBe(true);
    // Tills and webhooks reached every core through the fronts.
    expect(result.front.tills.every((n) => n > 0)).toBe(true);
    expect(result.front.webhooks.every((n) => n > 0)).toBe(true);
    expect(result.audit.payments).toBeGreaterThan(0);
    expect(result.audit.findings).toEqual([]);
    expect(result.audit.counts).toEqual({ lost: 0, doubled: 0, misattributed: 0, unflagged_mismatch: 0, phantom: 0, refund_doubled: 0, refund_phantom: 0, refund_open: 0 });
    expect(result.refunds.asked).toBeGreaterThan(0);
    expect(result.journalVerify).toMatchObject({ ok: true });
    expect(result.audit.unresolvedSales).toBe(0);
  }, 200_000);
});
