import { describe, expect, it } from 'vitest';
import { coresRows, medianOf, type CoresRound } from './cores.ts';

function round(salesPerSec: number, relayed = false): CoresRound {
  const spread = { p50: 10, p95: 20 };
  return {
    sales: 1000,
    seconds: 1000 / salesPerSec,
    salesPerSec,
    stoppedBy: 'sales',
    charge: spread,
    chargeBy: relayed ? { relayed: { p50: 12, p95: 25 }, direct: { p50: 9, p95: 18 } } : null,
    sale: spread,
    cpu: { cores: relayed ? [3, 0.5] : [3], sandbox: 1, tills: 1 },
  };
}

describe('bench:cores report', () => {
  it('takes the median round by rate, the slower of the middle two of an even count', () => {
    expect(medianOf([round(300), round(100), round(200)]).salesPerSec).toBe(200);
    expect(medianOf([round(400), round(100), round(300), round(200)]).salesPerSec).toBe(200);
    expect(medianOf([round(50)]).salesPerSec).toBe(50);
    expect(() => medianOf([])).toThrow('no round was run');
  });

  it('puts one core beside two in each row and names every round in the order run', () => {
    const rows = coresRows([round(500), round(520), round(480)], [round(450, true), round(430, true), round(470, true)], 64);
    expect(rows[0]).toMatchObject({ what: 'Sales per second, 64 tills: one core → two cores', figure: '500 → 450' });
    expect(rows[0]?.detail).toContain('one core 500, 520, 480; two cores 450, 430, 470 sales/s');
    expect(rows[1]?.detail).toContain('relayed by the standby p50 12 ms, p95 25 ms, those at the active core p50 9 ms, p95 18 ms');
    expect(rows[3]?.figure).toBe('3 ms → 3 ms + 0.5 ms');
  });
});
