import { describe, expect, it } from 'vitest';
import { runSoak } from './campaign.ts';
import { formatSoakReport } from './cli.ts';
import { planCampaign } from './plan.ts';

/**
 * A short run of `npm run soak`: the same campaign (standalone sandbox process, core child
 * on 8 checkouts, faults on every route and webhook, SIGKILLs with restarts, drain, audit)
 * at 48 sales. Its choices come from the seed; SOAK_SEED=<n> replays another one.
 */
const SEED = Number(process.env.SOAK_SEED ?? 20_261_123);
const SALES = 48;
const KILL_EVERY = [12, 20] as const;

describe('the fault campaign, short', () => {
  it('the same seed gives the same plan', () => {
    expect(planCampaign({ sales: SALES, seed: SEED, killEvery: KILL_EVERY })).toEqual(planCampaign({ sales: SALES, seed: SEED, killEvery: KILL_EVERY }));
    expect(planCampaign({ sales: SALES, seed: SEED + 1, killEvery: KILL_EVERY })).not.toEqual(planCampaign({ sales: SALES, seed: SEED, killEvery: KILL_EVERY }));
  });

  it(`${SALES} sales with kills: nothing lost, doubled, misattributed or left unflagged`, async () => {
    const plan = planCampaign({ sales: SALES, seed: SEED, killEvery: KILL_EVERY });
    const result = await runSoak({ sales: SALES, seed: SEED, minutes: 3, killEvery: KILL_EVERY, drainSeconds: 60, log: (line) => console.log(`soak: ${line}`) });
    console.log(formatSoakReport(result));
    expect(result.salesRun).toBe(SALES);
    expect(result.kills).toBe(plan.filter((p) => p.killAfterMs !== null).length);
    expect(result.kills).toBeGreaterThanOrEqual(2);
    expect(result.crashes).toEqual([]);
    expect(result.drained).toBe(true);
    expect(result.audit.payments).toBeGreaterThan(0);
    expect(result.audit.findings).toEqual([]);
    expect(result.audit.counts).toEqual({ lost: 0, doubled: 0, misattributed: 0, unflagged_mismatch: 0, phantom: 0, refund_doubled: 0, refund_phantom: 0, refund_open: 0 });
    // Refunds were asked for, some losing their answer, while the service ignored refund keys.
    expect(plan.filter((p) => p.refund?.fault)).not.toHaveLength(0);
    expect(result.refunds.asked).toBeGreaterThan(0);
    expect(result.audit.refunds.made).toBeGreaterThan(0);
    expect(result.journalVerify).toMatchObject({ ok: true });
    // The core followed every sale up: no create left unresolved.
    expect(result.audit.unresolvedSales).toBe(0);
  }, 180_000);
});
