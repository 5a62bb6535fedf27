import { describe, expect, it } from 'vitest';
import { deepFreeze } from './freeze.ts';
import { jsonText } from './json-text.ts';
import { mulberry32 } from './prng.ts';

/** A JSON-ish value of every kind JSON.stringify meets in a message, some parts deep-frozen. */
function draw(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 7 ? 7 : 12));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return [0, -1.5, 1e21, Number.NaN, Number.POSITIVE_INFINITY, 42][Math.floor(next() * 6)];
    case 3:
      return ['', 'a', 'ç "quoted" \\ \n', '\u2028', 'R$ 10,00'][Math.floor(next() * 5)];
    case 4:
      return undefined;
    case 5:
      return () => 1;
    case 6:
      return new Date(Date.UTC(2026, 10, 26, 13, 0, Math.floor(next() * 60)));
    case 7:
    case 8: {
      const items = Array.from({ length: Math.floor(next() * 4) }, () => draw(next, depth + 1));
      return next() < 0.3 ? deepFreeze(items) : items;
    }
    default: {
      const record: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 5); i > 0; i--) record[['sale_id', 'recent', 'a b', '0', 'ü'][Math.floor(next() * 5)]!] = draw(next, depth + 1);
      return next() < 0.3 ? deepFreeze(record) : record;
    }
  }
}

describe('jsonText', () => {
  it('writes what JSON.stringify writes, frozen parts, undefined members, dates and deep nesting included', () => {
    const next = mulberry32(20261126);
    for (let i = 0; i < 2000; i++) {
      const value = { type: 'event', payload: draw(next, 0) };
      expect(jsonText(value)).toBe(JSON.stringify(value));
      // Written again, the frozen parts' texts come from what was kept: still the same text.
      expect(jsonText(value)).toBe(JSON.stringify(value));
    }
  });

  it("writes a deep-frozen object's text once, wherever it is met again", () => {
    let reads = 0;
    const summary = deepFreeze({
      sale_id: 's1',
      get status() {
        reads++;
        return 'paid';
      },
    });
    const afterFreeze = reads;
    const view = (now: number) => ({ type: 'event', event: 'checkout.changed', payload: { now, newest: summary, recent: [summary] } });
    expect(jsonText(view(1))).toBe('{"type":"event","event":"checkout.changed","payload":{"now":1,"newest":{"sale_id":"s1","status":"paid"},"recent":[{"sale_id":"s1","status":"paid"}]}}');
    expect(jsonText({ type: 'reply', id: 7, envelope: { ok: true, result: view(2).payload } })).toContain('"recent":[{"sale_id":"s1","status":"paid"}]');
    expect(reads - afterFreeze).toBe(1);
  });

  it('writes an object that is not deep-frozen anew each time: a change shows', () => {
    const sale = { sale_id: 's2', status: 'pending' };
    const message = { type: 'event', payload: { recent: [Object.freeze(sale)] } };
    expect(jsonText(message)).toContain('"pending"');
    // Frozen alone, not deeply: its members could be another object's; nothing is kept.
    const nested = { inner: { status: 'pending' } };
    const shallow = Object.freeze(nested);
    expect(jsonText({ v: shallow })).toContain('pending');
    nested.inner.status = 'paid';
    expect(jsonText({ v: shallow })).toContain('paid');
    // deepFreeze cannot stop a Date from being set: what holds one is written anew too.
    const when = new Date(Date.UTC(2026, 10, 26));
    const held = deepFreeze({ sale_id: 's3', when });
    expect(jsonText({ v: held })).toContain('2026-11-26T00:00:00.000Z');
    when.setUTCFullYear(2027);
    expect(jsonText({ v: held })).toBe(JSON.stringify({ v: held }));
  });
});
