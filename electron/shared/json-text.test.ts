import { describe, expect, it } from 'vitest';
import { deepFreeze } from './freeze.ts';
import { jsonText, keepJsonText } from './json-text.ts';
import { mulberry32 } from './prng.ts';

/** A JSON-ish value of every kind JSON.stringify meets in a message, some parts frozen and kept. */
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
      return next() < 0.3 ? kept(items) : items;
    }
    default: {
      const record: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 5); i > 0; i--) record[['sale_id', 'recent', 'a b', '0', 'ü'][Math.floor(next() * 5)]!] = draw(next, depth + 1);
      return next() < 0.3 ? kept(record) : record;
    }
  }
}

/** As the core keeps a sale's summary: frozen all the way down, then kept. */
function kept<T extends object>(value: T): T {
  deepFreeze(value);
  keepJsonText(value);
  return value;
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

  it("writes a kept object's text once, wherever it is met again", () => {
    let reads = 0;
    const summary = kept({
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

  it('writes an object that is not kept anew each time: a change shows', () => {
    const sale = { sale_id: 's2', status: 'pending' };
    const message = { type: 'event', payload: { recent: [deepFreeze(sale)] } };
    expect(jsonText(message)).toContain('"pending"');
    const changing = { sale_id: 's3', status: 'pending' };
    const view = { recent: [changing] };
    expect(jsonText(view)).toContain('pending');
    changing.status = 'paid';
    expect(jsonText(view)).toContain('paid');
  });
});
