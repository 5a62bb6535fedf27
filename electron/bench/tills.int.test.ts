import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { benchTills, medianRound, tillsRows } from './tills.ts';

// The 64-till benchmark's own path, small: tills paired through the interface, a cashier
// signed in on each, every sale seen paid in its own till's pushes and none in another's
// (benchTills throws on a push of another checkout). Counts only: no duration is asserted.
it('three paired tills ring up twelve sales in each of two rounds, each seen paid by its own till only', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pos-bench-tills-'));
  try {
    const rounds = await benchTills({ dataDir: dir, tills: 3, maxSales: 12, maxSeconds: 120, rounds: 2 });
    expect(rounds).toHaveLength(2);
    for (const result of rounds) {
      expect(result).toMatchObject({ tills: 3, sales: 12, stoppedBy: 'sales', coreWarnings: 0 });
      expect(result.firstThousand.sales).toBe(12);
      // Each round counts its own pushes: a till hears its sale requested, created and paid.
      expect(result.pushesPerSale).toBeGreaterThanOrEqual(3);
      expect(result.pushesPerSale).toBeLessThan(6);
      // At least the charge's intent and outcome and the payment (charge.done may come after).
      expect(result.journalEntriesPerSale).toBeGreaterThanOrEqual(3);
      // Both processes did work for the sales; the sandbox's is read from /proc where there is one.
      expect(result.cpuMsPerSale).toBeGreaterThan(0);
      expect(result.loopDelay.p99Ms).toBeGreaterThanOrEqual(result.loopDelay.p50Ms);
      if (process.platform === 'linux') expect(result.sandboxCpuMsPerSale).toBeGreaterThan(0);
    }
    // The report is the median round's, and names both rounds' rates.
    const rows = tillsRows(rounds);
    expect(rows[0]?.figure).toBe(`${medianRound(rounds).salesPerSec} sales/s`);
    expect(rows[0]?.detail).toContain(`Every round, in order: ${rounds[0]!.salesPerSec}, ${rounds[1]!.salesPerSec} sales/s`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 180_000);
