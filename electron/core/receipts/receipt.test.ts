import { describe, expect, it } from 'vitest';
import { reduceSale, type PaymentReceived, type Sale, type SaleEvent } from '../sales/lifecycle.ts';
import { decodeEscPos, valueOf } from './fixtures/escpos.ts';
import { readPrinterAddress } from './printer.ts';
import { literal, receiptMarkup, receiptMoney, refundReceipt, saleReceipt, testPage, type ReceiptContext } from './receipt.ts';
import { escposBytes, receiptSheetSvg, receiptText } from './render.ts';

const T0 = Date.UTC(2026, 10, 23, 15, 4, 5);
const S = 'sale-1';
const requested: SaleEvent = { type: 'sale.requested', sale_id: S, idempotency_key: 'k', store_id: 1, checkout_id: 2, seq: 1, amount_cents: 1250, external_id: 'order-77', requested_by: 'Ana', at: T0 };
const created: SaleEvent = { type: 'sale.created', sale_id: S, pix_id: 'pix_1', service_id: 'svc_1', qr_type: 'printed_dynamic', emv: 'E', pqr_emv: 'P', created_at: T0 + 1, expires_at: T0 + 300_000, at: T0 + 1 };
const paid: PaymentReceived = { type: 'payment.received', source: 'webhook', webhook_id: 'w', pix_id: 'pix_1', service_id: 'svc_1', amount_brl: '12.50', paid_at: T0 + 60_000, e2e_id: 'E12345678202611231504abcdefghijk', at: T0 + 61_000 };
const refundAsked: SaleEvent = { type: 'refund.requested', sale_id: S, refund_id: 'r1', idempotency_key: 'k-r1', amount_cents: 500, requested_by: 'Sue', at: T0 + 120_000 };
const refundMade: SaleEvent = { type: 'refund.made', sale_id: S, refund_id: 'r1', pay_in_refund_request_id: 'rpir_1', service_refund_id: 'rpi_1', refunded_cents: 500, at: T0 + 121_000 };

/** A sale as the lifecycle's own reducer makes it from journaled events. */
function build(events: readonly SaleEvent[]): Sale {
  let sale: Sale | undefined;
  for (const e of events) sale = reduceSale(sale, e);
  if (!sale) throw new Error('no sale');
  return sale;
}

const ctx: ReceiptContext = { lang: 'pt-BR', timeZone: 'America/Sao_Paulo', store: { store_id: 1, name: 'Padaria São João', address: 'Rua das Flores, 12' }, till: { store_id: 1, checkout_id: 2 } };

describe('a paid sale’s receipt', () => {
  it('says the store, when it was paid, the amount received, the e2e id, the reference, the till and who rang it up', () => {
    const built = saleReceipt(build([requested, created, paid]), ctx);
    if (!built.ok) throw new Error(built.refusal);
    const printed = decodeEscPos(escposBytes(built.receipt));
    expect(printed.lines).toContain('Padaria São João');
    expect(printed.lines).toContain('Rua das Flores, 12');
    expect(printed.lines).toContain('Comprovante de pagamento Pix');
    // The payment's own paid_at (15:05:05 UTC), in the till's zone, not when the journal heard of it.
    expect(valueOf(printed, 'Data')).toBe('23/11/2026, 12:05:05');
    expect(valueOf(printed, 'ID fim a fim')).toBe('E12345678202611231504abcdefghijk');
    expect(valueOf(printed, 'Referência')).toBe('order-77');
    expect(valueOf(printed, 'Caixa')).toBe('2');
    expect(valueOf(printed, 'Operador')).toBe('Ana');
    expect(valueOf(printed, 'Valor')).toBe('R$ 12,50');
    // One cut, after everything printed.
    expect(printed.cuts).toHaveLength(1);
    expect(printed.lines.slice(printed.cuts[0]).every((l) => l.trim() === '')).toBe(true);
  });

  it('is refused for a sale not paid', () => {
    expect(saleReceipt(build([requested, created]), ctx)).toEqual({ ok: false, refusal: 'not_paid' });
  });

  it('prints the store’s number when the service could not name it, and a dash for a missing reference', () => {
    const { external_id: _dropped, ...noReference } = requested as Extract<SaleEvent, { type: 'sale.requested' }>;
    const built = saleReceipt(build([noReference, created, paid]), { ...ctx, lang: 'en', timeZone: 'UTC', store: { store_id: 1, name: null, address: null } });
    if (!built.ok) throw new Error(built.refusal);
    expect(receiptText(built.receipt)).toContain('Store 1');
    const printed = decodeEscPos(escposBytes(built.receipt));
    expect([valueOf(printed, 'Reference'), valueOf(printed, 'Amount'), valueOf(printed, 'Date')]).toEqual(['—', 'R$ 12.50', '11/23/26, 3:05:05 PM']);
  });
});

describe('a refund’s receipt', () => {
  it('is its own: the amount given back, when the service made it, the sale it is of, and the supervisor', () => {
    const built = refundReceipt(build([requested, created, paid, refundAsked, refundMade]), 'r1', { ...ctx, lang: 'en', timeZone: 'UTC' });
    if (!built.ok) throw new Error(built.refusal);
    const printed = decodeEscPos(escposBytes(built.receipt));
    expect(printed.lines).toContain('Pix refund receipt');
    const labels = ['Date', 'Sale amount', 'Refunded', 'Refund id', 'End-to-end id', 'Operator', 'Till', 'Reference'];
    expect(labels.map((l) => valueOf(printed, l))).toEqual(['11/23/26, 3:06:06 PM', 'R$ 12.50', 'R$ 5.00', 'rpi_1', 'E12345678202611231504abcdefghijk', 'Sue', '2', 'order-77']);
    expect(printed.cuts).toHaveLength(1);
  });

  it('is refused while the refund is not made, and for a refund of another sale', () => {
    const asked = build([requested, created, paid, refundAsked]);
    expect(refundReceipt(asked, 'r1', ctx)).toEqual({ ok: false, refusal: 'refund_not_made' });
    expect(refundReceipt(asked, 'r9', ctx)).toEqual({ ok: false, refusal: 'refund_not_found' });
  });
});

describe('what a person typed never becomes markup', () => {
  it.each([
    ['a column', 'Loja | Filial'],
    ['a cut', '='],
    ['a rule', '---'],
    ['a barcode property', '{code:123;option:qrcode}'],
    ['emphasis and size', '^^"big"^'],
    ['a backslash', 'C:\\loja\\'],
    ['a line break', 'Rua A\nBairro B'],
  ])('%s prints as typed', (_case, name) => {
    const page = testPage({ ...ctx, store: { store_id: 1, name, address: null }, operator: name, at: T0 });
    const printed = decodeEscPos(escposBytes(page));
    const asPrinted = name.replace(/\n/g, ' ');
    expect(printed.lines[0]).toBe(asPrinted);
    expect(valueOf(printed, 'Operador')).toBe(asPrinted);
    expect(printed.cuts).toHaveLength(1);
  });

  it('stays text in the drawn sheet: markup of the page is escaped, never drawn as elements', () => {
    const sheet = receiptSheetSvg(testPage({ ...ctx, store: { store_id: 1, name: '<b>&"x', address: null }, operator: '<script>', at: T0 }));
    expect(sheet).not.toMatch(/<b>|<script>/);
    expect(sheet).toContain('&lt;');
    expect(sheet).not.toContain('@import');
    expect(sheet).toBe(receiptSheetSvg(testPage({ ...ctx, store: { store_id: 1, name: '<b>&"x', address: null }, operator: '<script>', at: T0 })));
  });

  it('escapes every markup character', () => {
    expect(literal('\\|{}-=~_"`^')).toBe('\\\\\\|\\{\\}\\-\\=\\~\\_\\"\\`\\^');
    expect(receiptMarkup(testPage({ ...ctx, operator: 'x', at: T0 })).split('\n').filter((l) => l === '=')).toEqual([]);
  });
});

describe('money on paper', () => {
  it.each([
    ['pt-BR', 1250, 'R$ 12,50'],
    ['es', 5, 'R$ 0,05'],
    ['en', 100_000_000, 'R$ 1000000.00'],
  ] as const)('%s %d -> %s', (lang, cents, text) => {
    expect(receiptMoney(lang, cents)).toBe(text);
  });
});

describe('readPrinterAddress', () => {
  it.each([
    ['192.168.0.50', { host: '192.168.0.50', port: 9100 }],
    ['192.168.0.50:9101', { host: '192.168.0.50', port: 9101 }],
    [' Printer-1.local ', { host: 'printer-1.local', port: 9100 }],
    ['[fe80::1]:9100', { host: 'fe80::1', port: 9100 }],
    ['[::1]', { host: '::1', port: 9100 }],
  ])('reads %j', (typed, address) => {
    expect(readPrinterAddress(typed)).toEqual({ ok: true, address });
  });

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['printer:0', 'port'],
    ['printer:65536', 'port'],
    ['printer:9100x', 'port'],
    ['printer:-1', 'port'],
    ['printer:', 'port'],
    ['tcp://printer:9100', 'host'],
    ['printer/9100', 'host'],
    ['my printer', 'host'],
    ['-printer', 'host'],
    ['fe80::1', 'host'],
    ['[printer]:9100', 'host'],
    ['a'.repeat(254), 'host'],
    [':9100', 'host'],
  ])('refuses %j (%s)', (typed, problem) => {
    expect(readPrinterAddress(typed)).toEqual({ ok: false, problem });
  });
});
