import { describe, expect, it } from 'vitest';
import { LANGS, type Lang } from '../../electron/core/contract.ts';
import { MAX_SALE_CENTS } from '../../electron/shared/money.ts';
import { CONFIRM_FROM_CENTS } from './amountInput.ts';
import { decimalText, formatCount, formatDecimalsIn, formatFigure, formatMoney, type Figure } from './format.ts';
import { dictionary, translate, type TextKey } from './i18n.ts';

// Intl separates a unit from its number with a no-break space; the tables read it as a space.
const plain = (text: string) => text.replace(/\s/g, ' ');

describe('decimalText', () => {
  it.each([
    [0, 2, '0.00'],
    [5, 2, '0.05'],
    [-300, 2, '-3.00'],
    [24_731_829_753, 2, '247318297.53'],
    [30_500_000, 6, '30.500000'],
    [-5, 6, '-0.000005'],
    [42, 0, '42'],
    [Number.MAX_SAFE_INTEGER, 2, '90071992547409.91'],
  ])('%d at scale %d is %s', (minor, scale, text) => {
    expect(decimalText(minor, scale)).toBe(text);
  });

  it('refuses what is not a safe integer rather than round it', () => {
    expect(() => decimalText(1.5, 2)).toThrow(RangeError);
    expect(() => decimalText(2 ** 53, 2)).toThrow(RangeError);
  });
});

describe('formatMoney: integer cents as reais', () => {
  it.each<[Lang, number, string]>([
    ['pt-BR', 100_000_000, 'R$ 1.000.000,00'],
    ['en', 100_000_000, 'R$1,000,000.00'],
    ['es', 100_000_000, '1.000.000,00 R$'],
    ['pt-BR', 1250, 'R$ 12,50'],
    ['en', 1250, 'R$12.50'],
    ['pt-BR', 0, 'R$ 0,00'],
    ['en', 0, 'R$0.00'],
    ['es', 0, '0,00 R$'],
    ['pt-BR', -1250, '-R$ 12,50'],
    ['en', -1250, '-R$12.50'],
    ['es', -1250, '-12,50 R$'],
    ['en', 1, 'R$0.01'],
  ])('%s %d -> %s', (lang, cents, text) => {
    expect(plain(formatMoney(lang, cents))).toBe(text);
  });

  it('never rounds: the last cent of the largest safe amount is kept', () => {
    expect(formatMoney('en', Number.MAX_SAFE_INTEGER)).toBe('R$90,071,992,547,409.91');
  });
});

describe('formatFigure: any currency at its own scale', () => {
  const ars = (minor: number): Figure => ({ minor, scale: 2, currency: 'ARS' });
  const usdt = (minor: number): Figure => ({ minor, scale: 6, currency: 'USDt' });
  it.each<[Lang, Figure, string]>([
    ['en', ars(24_731_829_753), 'ARS 247,318,297.53'],
    ['pt-BR', ars(24_731_829_753), 'ARS 247.318.297,53'],
    ['es', ars(24_731_829_753), '247.318.297,53 ARS'],
    ['en', ars(-123_450), '-ARS 1,234.50'],
    ['en', usdt(30_500_000), 'USDt 30.500000'],
    ['pt-BR', usdt(30_500_000), 'USDt 30,500000'],
    ['es', usdt(30_500_000), '30,500000 USDt'],
    ['en', usdt(1_234_567_000_001), 'USDt 1,234,567.000001'],
    ['en', usdt(0), 'USDt 0.000000'],
    ['en', usdt(-5), '-USDt 0.000005'],
    ['pt-BR', { minor: 5250, scale: 2, currency: 'BRL' }, 'R$ 52,50'],
    ['en', { minor: 123_456, scale: 2, currency: null }, '1,234.56'],
    ['pt-BR', { minor: 123_456, scale: 2, currency: null }, '1.234,56'],
  ])('%s %o -> %s', (lang, figure, text) => {
    expect(plain(formatFigure(lang, figure))).toBe(text);
  });
});

describe('formatCount', () => {
  it('groups thousands as each language does (es leaves a four-digit number whole)', () => {
    const counts = (lang: Lang) => [0, 1234, 1_234_567].map((n) => formatCount(lang, n));
    expect(counts('pt-BR')).toEqual(['0', '1.234', '1.234.567']);
    expect(counts('en')).toEqual(['0', '1,234', '1,234,567']);
    expect(counts('es')).toEqual(['0', '1234', '1.234.567']);
  });
});

describe('formatDecimalsIn: the figures of a line the core wrote', () => {
  it.each<[Lang, string, string]>([
    ['en', '1234567.500000 − 0.000000', '1,234,567.500000 − 0.000000'],
    ['pt-BR', '1234567.500000 − 0.000000', '1.234.567,500000 − 0,000000'],
    ['en', '-12.50', '-12.50'],
    ['en', '90071992547409.91', '90,071,992,547,409.91'],
    ['en', '123456789012345678901.000001', '123,456,789,012,345,678,901.000001'],
    ['en', 'ARS', 'ARS'],
    ['en', 'USDt, BRL', 'USDt, BRL'],
  ])('%s %s -> %s', (lang, text, shown) => {
    expect(formatDecimalsIn(lang, text)).toBe(shown);
  });
});

describe('sentences name amounts in one format', () => {
  it('asks to confirm a large amount with both amounts written the same way', () => {
    const sentence = (lang: Lang) => plain(translate(lang, 'cashier.confirmLarge', { amount: formatMoney(lang, MAX_SALE_CENTS) }));
    expect(sentence('en')).toBe('R$1,000,000.00 is R$10,000.00 or more: check it with the customer, then press Charge again to confirm.');
    expect(sentence('pt-BR')).toMatch(/^R\$ 1\.000\.000,00 é R\$ 10\.000,00 ou mais:/);
    expect(sentence('es')).toMatch(/^1\.000\.000,00 R\$ es 10\.000,00 R\$ o más:/);
  });

  it.each(LANGS)('%s: every rule amount is the formatter’s, and no text writes an amount with its unit by hand (typing examples like 12,50 are input, not amounts)', (lang) => {
    expect(translate(lang, 'cashier.amountProblem.too_large')).toContain(formatMoney(lang, MAX_SALE_CENTS));
    expect(translate(lang, 'cashier.confirmLarge', { amount: 'X' })).toContain(formatMoney(lang, CONFIRM_FROM_CENTS));
    expect(translate(lang, 'error.problem.refund_amount_invalid')).toContain(formatMoney(lang, 0));
    for (const [key, text] of Object.entries(dictionary(lang))) {
      expect(text, `${lang} ${key}`).not.toMatch(/R\$|\d\s?(BRL|ARS|USDt)\b|\b(BRL|ARS|USDt)\s?\d/);
      expect(translate(lang, key as TextKey), `${lang} ${key}`).not.toMatch(/\{(max_sale|confirm_from|zero_amount)\}/);
    }
  });
});
