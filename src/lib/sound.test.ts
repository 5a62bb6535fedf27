import { describe, expect, it } from 'vitest';
import { TUNES } from './sound.ts';

describe('TUNES', () => {
  it('gives each outcome its own tune, short enough not to hold up the counter', () => {
    const signatures = Object.values(TUNES).map((notes) => JSON.stringify(notes));
    expect(new Set(signatures).size).toBe(signatures.length);
    for (const notes of Object.values(TUNES)) {
      const total = notes.reduce((ms, n) => ms + n.ms, 0);
      expect(total).toBeGreaterThan(0);
      expect(total).toBeLessThanOrEqual(1000);
    }
  });
});
