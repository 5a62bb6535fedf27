import { describe, expect, it } from 'vitest';
import { addDays, isTimeZone, localDayOf, localDayRange, parseLocalDay } from './local-day.ts';

describe('a local day', () => {
  it('starts at the zone’s midnight', () => {
    expect(localDayRange('2026-11-23', 'UTC')).toEqual({ from: Date.UTC(2026, 10, 23), to: Date.UTC(2026, 10, 24) });
    // São Paulo has kept UTC-3 all year since 2019.
    expect(localDayRange('2026-11-23', 'America/Sao_Paulo')).toEqual({ from: Date.UTC(2026, 10, 23, 3), to: Date.UTC(2026, 10, 24, 3) });
    expect(localDayOf(Date.UTC(2026, 10, 24, 2, 59), 'America/Sao_Paulo')).toBe('2026-11-23');
    expect(localDayOf(Date.UTC(2026, 10, 24, 3), 'America/Sao_Paulo')).toBe('2026-11-24');
  });

  it('is 23 or 25 hours long on a daylight-saving change', () => {
    const spring = localDayRange('2026-03-29', 'Europe/Lisbon');
    expect(spring).toEqual({ from: Date.UTC(2026, 2, 29), to: Date.UTC(2026, 2, 29, 23) });
    const autumn = localDayRange('2026-10-25', 'Europe/Lisbon');
    expect(autumn.to - autumn.from).toBe(25 * 3_600_000);
    expect(autumn.from).toBe(Date.UTC(2026, 9, 24, 23));
  });

  it('starts at the first instant of a day whose midnight the clocks skip', () => {
    // Santiago de Chile moved its clocks from 24:00 to 01:00 on 2024-09-08.
    const { from } = localDayRange('2024-09-08', 'America/Santiago');
    expect(localDayOf(from, 'America/Santiago')).toBe('2024-09-08');
    expect(localDayOf(from - 1, 'America/Santiago')).toBe('2024-09-07');
  });

  it('refuses what is not a day or a zone', () => {
    for (const bad of ['2026-02-30', '2026-13-01', '26-11-23', '2026-11-23T00:00', '']) expect(parseLocalDay(bad), bad).toBeNull();
    expect(isTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(isTimeZone('America/Sao_Paulo')).toBe(true);
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(addDays('2024-12-31', 1)).toBe('2025-01-01');
  });
});
