/**
 * Pix BR Codes: EMV Merchant-Presented-Mode payloads (TLV: two-digit id, two-digit length,
 * value) ending in field 63, a CRC16-CCITT-FALSE over the whole text including "6304".
 * Contract section 2 lists the fields every code of the service carries. The app validates
 * a code (validateBrCode) before it ever shows it; the sandbox builds codes with
 * buildPixBrCode and resolves a scanned code with parseBrCode.
 *
 * Lengths count characters (code points); the CRC runs over the UTF-8 bytes. Pure: runs in
 * the renderer, the core and the sandbox.
 */

export interface TlvField {
  id: string;
  value: string;
}

/** The BR Code manual caps a payload at 512 characters. */
export const MAX_BR_CODE_LENGTH = 512;
export const PIX_GUI = 'br.gov.bcb.pix';

/** CRC16-CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no reflection, no final xor. */
export function crc16ccittFalse(text: string): number {
  const bytes = new TextEncoder().encode(text);
  let crc = 0xffff;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

/** Four upper-case hex digits, as field 63 carries them. */
export function formatCrc(crc: number): string {
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** One TLV field. Throws on an id that is not two digits or a value longer than 99. */
export function encodeTlv(id: string, value: string): string {
  if (!/^\d\d$/.test(id)) throw new RangeError(`EMV id must be two digits, got ${JSON.stringify(id)}`);
  const length = [...value].length;
  if (length > 99) throw new RangeError(`EMV field ${id} is ${length} characters; at most 99`);
  return id + String(length).padStart(2, '0') + value;
}

export function buildTlv(fields: readonly TlvField[]): string {
  return fields.map((f) => encodeTlv(f.id, f.value)).join('');
}

/** Appends "6304" and the CRC of everything before it, including "6304". */
export function appendCrc(payloadWithoutCrc: string): string {
  const head = payloadWithoutCrc + '6304';
  return head + formatCrc(crc16ccittFalse(head));
}

export type TlvParse = { ok: true; fields: TlvField[] } | { ok: false; reason: string };

/** Splits a TLV text into its fields; fails on a truncated field or a bad id/length. */
export function parseTlv(text: string): TlvParse {
  const chars = [...text];
  const fields: TlvField[] = [];
  let i = 0;
  while (i < chars.length) {
    if (i + 4 > chars.length) return { ok: false, reason: `truncated field header at character ${i}` };
    const id = chars.slice(i, i + 2).join('');
    const len = chars.slice(i + 2, i + 4).join('');
    if (!/^\d\d$/.test(id)) return { ok: false, reason: `bad field id ${JSON.stringify(id)} at character ${i}` };
    if (!/^\d\d$/.test(len)) return { ok: false, reason: `bad length ${JSON.stringify(len)} of field ${id}` };
    const n = Number(len);
    if (i + 4 + n > chars.length) return { ok: false, reason: `field ${id} runs past the end` };
    fields.push({ id, value: chars.slice(i + 4, i + 4 + n).join('') });
    i += 4 + n;
  }
  return { ok: true, fields };
}

export interface PixBrCodeInput {
  merchantName: string;
  merchantCity: string;
  /** Location URL (field 26.25) of a dynamic code, without the scheme. */
  locationUrl?: string;
  /** Pix key (field 26.01) of a static code. */
  pixKey?: string;
  /** Field 54, when the code carries an amount. */
  amountCents?: number;
  /** Field 62.05; "***" for dynamic codes (the location identifies the charge). */
  txid?: string;
  /** Field 01: "12" single-use, "11" reusable (a printed QR). Omitted when undefined. */
  pointOfInitiation?: '11' | '12';
  /** Field 52, merchant category code; "0000" when not applicable. */
  mcc?: string;
}

/**
 * Builds a Pix BR Code with a valid CRC. Name and city are reduced to ASCII and cut to the
 * field limits (59: 25, 60: 15) so every code the sandbox prints is readable by any bank.
 */
export function buildPixBrCode(input: PixBrCodeInput): string {
  if ((input.locationUrl === undefined) === (input.pixKey === undefined)) {
    throw new RangeError('a Pix BR Code carries exactly one of locationUrl and pixKey');
  }
  const account: TlvField[] = [{ id: '00', value: PIX_GUI }];
  if (input.pixKey !== undefined) account.push({ id: '01', value: input.pixKey });
  if (input.locationUrl !== undefined) account.push({ id: '25', value: input.locationUrl });
  const fields: TlvField[] = [{ id: '00', value: '01' }];
  if (input.pointOfInitiation !== undefined) fields.push({ id: '01', value: input.pointOfInitiation });
  fields.push({ id: '26', value: buildTlv(account) });
  fields.push({ id: '52', value: input.mcc ?? '0000' });
  fields.push({ id: '53', value: '986' });
  if (input.amountCents !== undefined) {
    if (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0) {
      throw new RangeError('amountCents must be a positive integer');
    }
    const whole = Math.floor(input.amountCents / 100);
    fields.push({ id: '54', value: `${whole}.${String(input.amountCents % 100).padStart(2, '0')}` });
  }
  fields.push({ id: '58', value: 'BR' });
  fields.push({ id: '59', value: emvText(input.merchantName, 25) || 'N/A' });
  fields.push({ id: '60', value: emvText(input.merchantCity, 15) || 'N/A' });
  fields.push({ id: '62', value: buildTlv([{ id: '05', value: input.txid ?? '***' }]) });
  return appendCrc(buildTlv(fields));
}

/** ASCII upper-case-preserving text without accents or control characters, cut to max. */
function emvText(text: string, max: number): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '')
    .trim()
    .slice(0, max);
}

export interface ParsedBrCode {
  pointOfInitiation: '11' | '12' | null;
  gui: string;
  locationUrl: string | null;
  pixKey: string | null;
  mcc: string;
  currency: string;
  /** Field 54 as written, or null when the code carries no amount. */
  amount: string | null;
  amountCents: number | null;
  country: string;
  merchantName: string;
  merchantCity: string;
  txid: string | null;
  crc: string;
}

export type BrCodeProblem =
  | 'not_a_string'
  | 'too_long'
  | 'control_characters'
  | 'malformed_tlv'
  | 'duplicate_field'
  | 'bad_payload_format'
  | 'bad_point_of_initiation'
  | 'missing_crc'
  | 'bad_crc_format'
  | 'crc_mismatch'
  | 'missing_pix_account'
  | 'bad_gui'
  | 'missing_key_or_location'
  | 'missing_location'
  | 'bad_mcc'
  | 'bad_currency'
  | 'bad_amount'
  | 'bad_country'
  | 'bad_merchant_name'
  | 'bad_merchant_city'
  | 'missing_additional_data';

export type BrCodeCheck = { ok: true; code: ParsedBrCode } | { ok: false; reason: BrCodeProblem; message: string };

export interface ValidateBrCodeOptions {
  /** A dynamic code must carry a location URL (26.25); the service's codes always do. */
  requireLocation?: boolean;
}

/**
 * Checks a text is a well-formed Pix BR Code with a correct CRC and the fields of contract
 * section 2, and returns its parsed fields. Never throws, whatever the input.
 */
export function validateBrCode(text: unknown, options: ValidateBrCodeOptions = {}): BrCodeCheck {
  const fail = (reason: BrCodeProblem, message: string): BrCodeCheck => ({ ok: false, reason, message });
  if (typeof text !== 'string') return fail('not_a_string', 'a BR Code is a string');
  if ([...text].length > MAX_BR_CODE_LENGTH) return fail('too_long', `longer than ${MAX_BR_CODE_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(text)) return fail('control_characters', 'contains control characters');
  const parsed = parseTlv(text);
  if (!parsed.ok) return fail('malformed_tlv', parsed.reason);
  const { fields } = parsed;
  const byId = new Map<string, string>();
  for (const f of fields) {
    if (byId.has(f.id)) return fail('duplicate_field', `field ${f.id} appears twice`);
    byId.set(f.id, f.value);
  }
  if (fields[0]?.id !== '00' || fields[0].value !== '01') return fail('bad_payload_format', 'must start with 000201');
  const last = fields[fields.length - 1];
  if (last?.id !== '63') return fail('missing_crc', 'must end with field 63 (CRC)');
  if (!/^[0-9A-Fa-f]{4}$/.test(last.value)) return fail('bad_crc_format', 'field 63 must be four hex digits');
  const expected = formatCrc(crc16ccittFalse(text.slice(0, text.length - 4)));
  if (last.value.toUpperCase() !== expected) {
    return fail('crc_mismatch', `CRC is ${last.value.toUpperCase()}, the text gives ${expected}`);
  }
  const poi = byId.get('01');
  if (poi !== undefined && poi !== '11' && poi !== '12') return fail('bad_point_of_initiation', 'field 01 must be 11 or 12');
  const accountText = byId.get('26');
  if (accountText === undefined) return fail('missing_pix_account', 'field 26 (Pix merchant account) is missing');
  const account = parseTlv(accountText);
  if (!account.ok) return fail('malformed_tlv', `field 26: ${account.reason}`);
  const sub = new Map(account.fields.map((f) => [f.id, f.value]));
  const gui = sub.get('00');
  if (gui === undefined || gui.toLowerCase() !== PIX_GUI) return fail('bad_gui', `field 26.00 must be ${PIX_GUI}`);
  const pixKey = sub.get('01') ?? null;
  const locationUrl = sub.get('25') ?? null;
  if (pixKey === null && locationUrl === null) return fail('missing_key_or_location', 'field 26 carries neither a key (01) nor a location (25)');
  if (options.requireLocation === true && (locationUrl === null || locationUrl === '')) {
    return fail('missing_location', 'a dynamic code must carry a location URL (26.25)');
  }
  const mcc = byId.get('52');
  if (mcc === undefined || !/^\d{4}$/.test(mcc)) return fail('bad_mcc', 'field 52 must be four digits');
  const currency = byId.get('53');
  if (currency !== '986') return fail('bad_currency', 'field 53 must be 986 (BRL)');
  const amount = byId.get('54') ?? null;
  let amountCents: number | null = null;
  if (amount !== null) {
    const m = /^(\d{1,10})(?:\.(\d{1,2}))?$/.exec(amount);
    if (m === null) return fail('bad_amount', 'field 54 must be a decimal amount with at most two places');
    amountCents = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
    if (amountCents <= 0) return fail('bad_amount', 'field 54 must be greater than zero');
  }
  const country = byId.get('58');
  if (country !== 'BR') return fail('bad_country', 'field 58 must be BR');
  const merchantName = byId.get('59');
  if (merchantName === undefined || merchantName.length < 1 || [...merchantName].length > 25) {
    return fail('bad_merchant_name', 'field 59 must be 1 to 25 characters');
  }
  const merchantCity = byId.get('60');
  if (merchantCity === undefined || merchantCity.length < 1 || [...merchantCity].length > 15) {
    return fail('bad_merchant_city', 'field 60 must be 1 to 15 characters');
  }
  const additional = byId.get('62');
  if (additional === undefined) return fail('missing_additional_data', 'field 62 (additional data) is missing');
  const additionalFields = parseTlv(additional);
  if (!additionalFields.ok) return fail('malformed_tlv', `field 62: ${additionalFields.reason}`);
  const txid = additionalFields.fields.find((f) => f.id === '05')?.value ?? null;
  return {
    ok: true,
    code: {
      pointOfInitiation: poi ?? null,
      gui,
      locationUrl,
      pixKey,
      mcc,
      currency,
      amount,
      amountCents,
      country,
      merchantName,
      merchantCity,
      txid,
      crc: last.value.toUpperCase(),
    },
  };
}
