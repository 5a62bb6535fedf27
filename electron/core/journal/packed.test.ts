import { describe, expect, it } from 'vitest';
import type { SaleRow } from './fold.ts';
import { compact, EMPTY_LIST, expand, pack, packRow, PackedRow, rowOf, unpack } from './packed.ts';

/**
 * The working set holds most of its rows packed (issue 28): what a query hands out is the row
 * unpacked, so a row must come back equal to the one packed, member order included (a
 * checkpoint writes it as JSON), with every odd value a sale can carry, and frozen.
 */

const ID_OUTSIDE_BMP = 'sale-🧾-𝔘𝔫𝔦𝔠𝔬𝔡𝔢-😀';

function paidSale(i: number, overrides: Record<string, unknown> = {}) {
  const pix = `pix_${i.toString(16).padStart(32, '0')}`;
  const payment = { key: `e2e:E${i}`, pix_id: pix, service_id: String(1_000_000 + i), amount_brl: '51.33', received_cents: 5133, webhook_ids: [`msg_${i}`], first_seen_at: 1_795_636_880_050, reported_amounts: ['51.33'], paid_at: 1_795_636_880_000, e2e_id: `E${i}`, sources: ['webhook'], refunded: false };
  return {
    sale_id: `sale-${i}`,
    idempotency_key: `key-${i}`,
    store_id: 1,
    checkout_id: 1 + (i % 4),
    seq: i,
    amount_cents: 5133,
    requested_at: 1_795_636_860_000 + i,
    requested_by: 'cashier-1',
    status: 'paid',
    displacements: [],
    reinstated_from: [],
    expiries: [],
    payment_reports: [payment],
    payments: [payment],
    dones: [],
    webhook_ids: [`msg_${i}`],
    acknowledgements: [],
    attention: [],
    issues: [],
    conflicts: [],
    created: { pix_id: pix, service_id: String(1_000_000 + i), qr_type: 'printed_dynamic', emv: `000201${'x'.repeat(150)}6304ABCD`, pqr_emv: null, created_at: 1_795_636_860_040, expires_at: 1_795_637_160_040 },
    pix_id: pix,
    display_emv: `000201${'x'.repeat(150)}6304ABCD`,
    ...overrides,
  };
}

function rowOfSale(sale: Record<string, unknown>, extra: Record<string, unknown> = {}): SaleRow<{ sale: Record<string, unknown>; shift_id?: string }> {
  return {
    store_id: sale.store_id as number,
    checkout_id: sale.checkout_id as number,
    status: sale.status as string,
    created_at: sale.requested_at as number,
    sale_id: sale.sale_id as string,
    record: { sale, shift_id: 'shift-2026-11-25' },
    touched_seq: 27,
    touched_at: 1_795_636_880_080,
    ...extra,
  };
}

/** Every object and list in it is frozen. */
function deeplyFrozen(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return true;
  return Object.isFrozen(v) && Object.values(v).every(deeplyFrozen);
}

const ROUND_TRIPS: [string, unknown][] = [
  ['a paid sale as the terminal keeps it', rowOfSale(paidSale(1))],
  ['ids and words outside the BMP', rowOfSale(paidSale(2, { sale_id: ID_OUTSIDE_BMP, external_id: `pedido-${ID_OUTSIDE_BMP}`, requested_by: 'Jõão 👩‍💼' }), { sale_id: ID_OUTSIDE_BMP })],
  ['a lone surrogate, a quote, a backslash and control characters in strings', { a: '\ud800 alone', b: 'say "hi" \\ \n\t\u0000\u001f\u2028', c: '\udfff' }],
  ['null optional members', rowOfSale(paidSale(3, { pix_id: null, display_emv: null, created: null, paid: null }))],
  ['big and odd amounts', { max: Number.MAX_SAFE_INTEGER, min: Number.MIN_SAFE_INTEGER, beyond: 2 ** 60, huge: 1e21, tiny: 1.5e-7, fraction: 0.1 + 0.2, negative: -5133, zero: 0 }],
  ['empty lists and objects, alone and nested', { a: [], b: {}, c: [[], {}, [[]]], d: { e: {} } }],
  ['member names JSON must escape, and names like numbers', { 'a"b': 1, '': 2, '1': 3, '0': 4, 'x\ny': 5, '🧾': 6 }],
  ['a list of mixed values', [1, 'two', null, true, false, { three: [3] }, ['four']]],
  ['the same string in many places', { a: 'repeated-string', b: ['repeated-string', 'repeated-string'], c: { d: 'repeated-string' } }],
  ['short strings that repeat are values each time', { a: 'paid', b: 'paid', c: ['paid'] }],
  ['a bare string, a number, null', 'just a string'],
  ['a deep value', JSON.parse(`${'['.repeat(60)}1${']'.repeat(60)}`) as unknown],
];

describe('a packed value', () => {
  it.each(ROUND_TRIPS)('comes back equal, member order included: %s', (_, value) => {
    const packed = pack(value);
    expect(packed).not.toBeNull();
    const back = unpack(packed!);
    expect(back).toStrictEqual(value);
    expect(JSON.stringify(back)).toBe(JSON.stringify(value));
    expect(deeplyFrozen(back)).toBe(true);
  });

  it('keeps one object met twice as one (a payment both as reported and as counted)', () => {
    const row = rowOfSale(paidSale(4));
    const back = unpack<typeof row>(pack(row)!);
    expect(back.record.sale.payments).toStrictEqual(back.record.sale.payment_reports);
    expect((back.record.sale.payments as unknown[])[0]).toBe((back.record.sale.payment_reports as unknown[])[0]);
    // Two lists that are equal but not one stay two.
    expect(back.record.sale.payments).not.toBe(back.record.sale.payment_reports);
  });

  it('holds each empty list as the one shared empty list', () => {
    const back = unpack<{ a: unknown[]; b: { c: unknown[] } }>(pack({ a: [], b: { c: [] } })!);
    expect(back.a).toBe(EMPTY_LIST);
    expect(back.b.c).toBe(EMPTY_LIST);
  });

  it('shares its structure with every value of the same structure, and keeps its values apart', () => {
    const a = pack(rowOfSale(paidSale(5)))!;
    const b = pack(rowOfSale(paidSale(9)))!;
    expect(a.shape).toBe(b.shape);
    expect(unpack<SaleRow<unknown>>(a).sale_id).toBe('sale-5');
    expect(unpack<SaleRow<unknown>>(b).sale_id).toBe('sale-9');
    // A string that repeats in one value and not in the other is another structure.
    const c = pack({ x: 'same-long-text', y: 'same-long-text' })!;
    const d = pack({ x: 'same-long-text', y: 'other-long-text' })!;
    expect(c.shape).not.toBe(d.shape);
    expect(unpack(c)).toStrictEqual({ x: 'same-long-text', y: 'same-long-text' });
    expect(unpack(d)).toStrictEqual({ x: 'same-long-text', y: 'other-long-text' });
  });

  it('comes back as itself when it differs from the structure packed just before by one name, repeat, shared object or kind', () => {
    const shared = { amount: '51.33' };
    const twins: unknown[] = [
      { a: 'long-text-1', b: 'long-text-1', c: [shared, shared], d: 1 },
      { a: 'long-text-1', b: 'long-text-2', c: [shared, shared], d: 1 },
      { a: 'long-text-1', b: 'long-text-1', c: [shared, { amount: '51.33' }], d: 1 },
      { a: 'long-text-1', b: 'long-text-1', c: [shared, shared], e: 1 },
      { a: 'long-text-1', b: 'long-text-1', c: [shared, shared], d: '1' },
      { a: 'long-text-1', b: 'long-text-1', c: [shared, shared], d: [1] },
      { a: 'long-text-1', b: 'long-text-1', c: [shared, shared], d: -0 },
      { a: 'long-text-1', b: 5000, c: [shared, shared], d: 5000 },
      { a: 'long-text-1', b: 5000, c: [shared, shared], d: 5001 },
      { a: 'long-text-1', b: 'long-text-1', c: [shared, shared, shared], d: 1 },
      { a: 'long-text-1', b: 'long-text-1', c: [shared, shared], d: 1 },
    ];
    for (const v of [...twins, ...twins.reverse()]) {
      const packed = pack(v);
      if (Object.is((v as { d?: unknown }).d, -0)) {
        expect(packed).toBeNull();
        continue;
      }
      expect(unpack(packed!)).toStrictEqual(v);
      expect(JSON.stringify(unpack(packed!))).toBe(JSON.stringify(v));
    }
  });

  it('is much smaller than the row as text', () => {
    const row = rowOfSale(paidSale(6));
    expect(pack(row)!.text.length).toBeLessThan(JSON.stringify(row).length / 2);
  });

  const circular: Record<string, unknown> = { a: 1 };
  circular.self = circular;
  class Money {
    cents = 1;
  }
  const REFUSED: [string, unknown][] = [
    ['a member set to undefined (JSON would drop it)', { a: 1, b: undefined }],
    ['undefined in a list', [1, undefined]],
    // eslint-disable-next-line no-sparse-arrays -- the hole is the case
    ['a hole in a list', [1, , 3]],
    ['-0 (JSON writes 0)', { a: -0 }],
    ['NaN', { a: Number.NaN }],
    ['Infinity', [Number.POSITIVE_INFINITY]],
    ['a Date', { at: new Date(0) }],
    ['a Map', { m: new Map() }],
    ['an instance of a class', { money: new Money() }],
    ['an object without a prototype', { o: Object.create(null) as object }],
    ['a member named __proto__', JSON.parse('{"__proto__": {"polluted": true}}') as unknown],
    ['a value that contains itself', circular],
    ['a function', { f: () => 1 }],
    ['a bigint', { n: 1n }],
    ['undefined itself', undefined],
    ['nesting deeper than the journal takes', JSON.parse(`${'['.repeat(70)}1${']'.repeat(70)}`) as unknown],
  ];
  it.each(REFUSED)('is refused for what JSON would not give back exactly: %s', (_, value) => {
    expect(pack(value)).toBeNull();
  });
});

describe('the ids of a packed text', () => {
  const TEXTS = [
    '["8899d818-977d-46aa-a224-6692996dcc59","msg_d3adbc11-b315-41ea-ab9c-b6c332a09fd8"]',
    '["pix_0bf42b589d2d4d60a1d7848b1a07af67","done:pix_0bf42b589d2d4d60a1d7848b1a07af67:1000000","Ef029668007464b65a95f473a58a022d"]',
    // An odd run, a run longer than one mark holds, digits only, a uuid inside a longer run.
    `["${'a'.repeat(17)}","${'0123456789abcdef'.repeat(40)}1",9007199254740991123,"x8899d818-977d-46aa-a224-6692996dcc59-77"]`,
    // What stays as it is: upper case, short runs, dashes alone, text outside the BMP.
    '["8899D818-977D-46AA-A224-6692996DCC59","abc-def","----------------","🧾 0bf42b589d2d4d60a1d7848b1a07af67 😀"]',
    // Control characters JSON escapes (a mark is never in JSON text as such).
    JSON.stringify(['\u0001\u0002', '\u0001', 'ab\u0002cdef0123456789abcdef']),
  ];
  it.each(TEXTS)('are held as bytes and given back exactly: %s', (text) => {
    expect(expand(compact(text))).toBe(text);
    expect(JSON.parse(expand(compact(text)))).toStrictEqual(JSON.parse(text));
  });

  it('hold a uuid in 17 characters and a 32-digit run in 18', () => {
    expect(compact('"8899d818-977d-46aa-a224-6692996dcc59"')).toHaveLength(2 + 17);
    expect(compact('"0bf42b589d2d4d60a1d7848b1a07af67"')).toHaveLength(2 + 18);
  });
});

describe('a packed row', () => {
  it('reads its id and last touch without unpacking, and unpacks to the row', () => {
    const row = rowOfSale(paidSale(7), { shift_id: 'shift-2026-11-25', pix_id: 'pix_7' });
    const packed = packRow(row)!;
    expect(packed).toBeInstanceOf(PackedRow);
    expect([packed.sale_id, packed.touched_seq, packed.touched_at]).toEqual([row.sale_id, row.touched_seq, row.touched_at]);
    expect(packed.row()).toStrictEqual(row);
    expect(rowOf(packed)).toStrictEqual(row);
    expect(rowOf(row)).toBe(row);
  });

  it('is written by JSON.stringify as the row itself (a checkpoint writes rows as held)', () => {
    const row = rowOfSale(paidSale(8, { sale_id: ID_OUTSIDE_BMP }), { sale_id: ID_OUTSIDE_BMP });
    expect(JSON.stringify(packRow(row))).toBe(JSON.stringify(row));
    expect(JSON.stringify([packRow(row), row])).toBe(JSON.stringify([row, row]));
  });

  it('is refused for what is not a row, or not JSON', () => {
    expect(packRow({ ...rowOfSale(paidSale(11)), sale_id: 5 as unknown as string })).toBeNull();
    expect(packRow({ ...rowOfSale(paidSale(11)), touched_at: undefined as unknown as number })).toBeNull();
    expect(packRow(rowOfSale(paidSale(11, { paid_at: Number.NaN })))).toBeNull();
  });
});
