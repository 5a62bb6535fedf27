import { describe, expect, it } from 'vitest';
import { appendCrc, buildPixBrCode, buildTlv, crc16ccittFalse, encodeTlv, formatCrc, parseTlv, validateBrCode } from './emv.ts';

// A static Pix code from the BR Code manual's examples (key 123e4567-e12b-12d1-a456-426655440000).
const MANUAL_EXAMPLE =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';

const dynamic = buildPixBrCode({ merchantName: 'Loja Centro', merchantCity: 'Sao Paulo', locationUrl: 'pix.example.com/qr/v2/abc123', amountCents: 1250, pointOfInitiation: '12' });

/** Rebuilds a code with one top-level field replaced (and a fresh, correct CRC). */
function withField(code: string, id: string, value: string | null): string {
  const parsed = parseTlv(code);
  if (!parsed.ok) throw new Error(parsed.reason);
  const fields = parsed.fields.filter((f) => f.id !== '63').flatMap((f) => (f.id === id ? (value === null ? [] : [{ id, value }]) : [f]));
  return appendCrc(buildTlv(fields));
}

describe('crc16ccittFalse', () => {
  it('matches the standard check value and the manual example', () => {
    expect(crc16ccittFalse('123456789')).toBe(0x29b1);
    expect(crc16ccittFalse('')).toBe(0xffff);
    expect(formatCrc(crc16ccittFalse(MANUAL_EXAMPLE.slice(0, -4)))).toBe('1D3D');
  });

  it('pads to four upper-case hex digits', () => {
    expect(formatCrc(0x0a)).toBe('000A');
  });
});

describe('TLV', () => {
  it('encodes and parses', () => {
    expect(encodeTlv('00', '01')).toBe('000201');
    expect(parseTlv('000201010212')).toEqual({ ok: true, fields: [{ id: '00', value: '01' }, { id: '01', value: '12' }] });
  });

  it.each([['0002'], ['00020'], ['AB02xx'], ['00x201'], ['0005abc']])('refuses the truncated or malformed %j', (text) => {
    expect(parseTlv(text).ok).toBe(false);
  });

  it('refuses ids and values it cannot encode', () => {
    expect(() => encodeTlv('1', 'x')).toThrow(RangeError);
    expect(() => encodeTlv('01', 'x'.repeat(100))).toThrow(RangeError);
  });
});

describe('buildPixBrCode', () => {
  it('builds a dynamic code with every field of contract 2 and a valid CRC', () => {
    const check = validateBrCode(dynamic, { requireLocation: true });
    expect(check).toMatchObject({
      ok: true,
      code: { gui: 'br.gov.bcb.pix', locationUrl: 'pix.example.com/qr/v2/abc123', currency: '986', amount: '12.50', amountCents: 1250, country: 'BR', merchantName: 'Loja Centro', merchantCity: 'Sao Paulo', txid: '***', pointOfInitiation: '12' },
    });
    expect(dynamic.startsWith('000201')).toBe(true);
    expect(dynamic.slice(-8, -4)).toBe('6304');
  });

  it('reduces names to ASCII within the field limits', () => {
    const code = buildPixBrCode({ merchantName: 'Padaria São João da Esquina Ltda', merchantCity: 'São José dos Campos', locationUrl: 'x/y' });
    const check = validateBrCode(code);
    expect(check.ok && check.code.merchantName).toBe('Padaria Sao Joao da Esqui');
    expect(check.ok && check.code.merchantCity).toBe('Sao Jose dos Ca');
  });

  it('refuses a code without key and location, or with both, or with a bad amount', () => {
    expect(() => buildPixBrCode({ merchantName: 'a', merchantCity: 'b' })).toThrow(RangeError);
    expect(() => buildPixBrCode({ merchantName: 'a', merchantCity: 'b', pixKey: 'k', locationUrl: 'l' })).toThrow(RangeError);
    expect(() => buildPixBrCode({ merchantName: 'a', merchantCity: 'b', pixKey: 'k', amountCents: 0 })).toThrow(RangeError);
    expect(() => buildPixBrCode({ merchantName: 'a', merchantCity: 'b', pixKey: 'k', amountCents: 1.5 })).toThrow(RangeError);
  });
});

describe('validateBrCode', () => {
  it('accepts the manual example and a lower-case CRC', () => {
    expect(validateBrCode(MANUAL_EXAMPLE)).toMatchObject({ ok: true, code: { pixKey: '123e4567-e12b-12d1-a456-426655440000', amount: null } });
    expect(validateBrCode(MANUAL_EXAMPLE.slice(0, -4) + '1d3d').ok).toBe(true);
  });

  it.each<[string, unknown, string]>([
    ['a number', 42, 'not_a_string'],
    ['null', null, 'not_a_string'],
    ['an empty string', '', 'bad_payload_format'],
    ['a long text', dynamic + 'x'.repeat(600), 'too_long'],
    ['a newline', dynamic.replace('Loja', 'Lo\nj'), 'control_characters'],
    ['a wrong CRC', dynamic.slice(0, -4) + '0000', 'crc_mismatch'],
    ['a CRC in letters', dynamic.slice(0, -4) + 'ZZZZ', 'bad_crc_format'],
    ['one changed character', dynamic.replace('12.50', '12.51'), 'crc_mismatch'],
    ['no CRC', dynamic.slice(0, -8), 'missing_crc'],
    ['a truncated field', dynamic.slice(0, 30), 'malformed_tlv'],
    ['a field after the CRC', appendCrc('000201') + '0102ab', 'missing_crc'],
    ['a wrong payload format', withField(dynamic, '00', '02'), 'bad_payload_format'],
    ['a bad point of initiation', withField(dynamic, '01', '13'), 'bad_point_of_initiation'],
    ['no merchant account', withField(dynamic, '26', null), 'missing_pix_account'],
    ['another GUI', withField(dynamic, '26', buildTlv([{ id: '00', value: 'br.gov.bcb.spi' }, { id: '25', value: 'x/y' }])), 'bad_gui'],
    ['neither key nor location', withField(dynamic, '26', buildTlv([{ id: '00', value: 'br.gov.bcb.pix' }])), 'missing_key_or_location'],
    ['a malformed account', withField(dynamic, '26', '0014br.gov.bcb.pix25'), 'malformed_tlv'],
    ['a bad MCC', withField(dynamic, '52', '00'), 'bad_mcc'],
    ['another currency', withField(dynamic, '53', '840'), 'bad_currency'],
    ['an amount with three places', withField(dynamic, '54', '12.505'), 'bad_amount'],
    ['a negative amount', withField(dynamic, '54', '-1.00'), 'bad_amount'],
    ['a zero amount', withField(dynamic, '54', '0.00'), 'bad_amount'],
    ['another country', withField(dynamic, '58', 'AR'), 'bad_country'],
    ['no merchant name', withField(dynamic, '59', null), 'bad_merchant_name'],
    ['a 26-character name', withField(dynamic, '59', 'x'.repeat(26)), 'bad_merchant_name'],
    ['a 16-character city', withField(dynamic, '60', 'x'.repeat(16)), 'bad_merchant_city'],
    ['no additional data', withField(dynamic, '62', null), 'missing_additional_data'],
    ['a duplicate field', appendCrc(buildTlv([{ id: '00', value: '01' }, { id: '00', value: '01' }])), 'duplicate_field'],
  ])('refuses %s', (_name, text, reason) => {
    const check = validateBrCode(text);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.reason).toBe(reason);
  });

  it('requires a location when asked (dynamic codes)', () => {
    expect(validateBrCode(MANUAL_EXAMPLE, { requireLocation: true })).toMatchObject({ ok: false, reason: 'missing_location' });
  });

  it('catches every single-character change (and never throws)', () => {
    let seed = 7;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const mutations: string[] = [];
    for (let i = 0; i < 500; i++) {
      const chars = [...dynamic];
      const k = Math.floor(rand() * chars.length);
      chars[k] = String.fromCharCode(32 + Math.floor(rand() * 95));
      const mutated = chars.join('');
      const check = validateBrCode(mutated);
      if (check.ok) mutations.push(mutated);
    }
    // Only changes the CRC cannot see survive: none, or the case of the CRC's hex letters.
    for (const m of mutations) expect(m.toUpperCase()).toBe(dynamic.toUpperCase());
  });
});
