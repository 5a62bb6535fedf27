import { describe, expect, it } from 'vitest';
import { decimalSeparator, hasThousandsSeparator, pressKey, previewCents, sanitizeTyped, type KeypadKey } from './amountInput.ts';

const press = (keys: readonly KeypadKey[], sep: ',' | '.' = ',', start = '') => keys.reduce((text, key) => pressKey(text, key, sep), start);

describe('pressKey', () => {
  it.each<[readonly KeypadKey[], string]>([
    [['1', '2', 'separator', '5', '0'], '12,50'],
    [['separator', '5'], '0,5'],
    [['0', '0', '7'], '7'],
    [['1', 'separator', 'separator', '2'], '1,2'],
    [['1', 'separator', '2', '3', '4'], '1,23'],
    [['9', '9', '9', '9', '9', '9', '9', '9'], '9999999'],
    [['1', '2', 'backspace'], '1'],
    [['backspace'], ''],
    [['1', '2', 'clear'], ''],
    [['5', '00'], '500'],
    [['5', 'separator', '00'], '5,00'],
    [['5', 'separator', '1', '00'], '5,10'],
  ])('%j -> %s', (keys, text) => {
    expect(press(keys)).toBe(text);
  });

  it('uses the language separator but respects one already typed', () => {
    expect(press(['1', 'separator', '5'], '.')).toBe('1.5');
    expect(press(['separator', '5'], ',', '3.')).toBe('3.5');
  });
});

describe('sanitizeTyped', () => {
  it.each([
    ['12,50', '12,50'],
    ['R$ 12,50', '12,50'],
    ['12.5a', '12.5'],
    ['-3', '3'],
    ['1e3', '13'],
    ['\u202e12', '12'],
    ['1'.repeat(40), '1'.repeat(20)],
  ])('%j -> %j', (raw, text) => {
    expect(sanitizeTyped(raw)).toBe(text);
  });
});

describe('previewCents', () => {
  it.each<[string, number | null]>([
    ['12,50', 1250],
    ['12.50', 1250],
    ['12,5', 1250],
    ['0,01', 1],
    ['0', null],
    ['', null],
    ['12,505', null],
    ['1.234,56', null],
    [',', null],
    // A thousands separator is never read as cents ("2.500" is not R$ 2,50).
    ['2.500', null],
    ['1,000', null],
    ['10.000', null],
    ['2.500 ', null],
    ['2.50', 250],
  ])('%j -> %s', (text, cents) => {
    expect(previewCents(text)).toBe(cents);
  });
});

describe('hasThousandsSeparator', () => {
  it.each<[string, boolean]>([
    ['2.500', true],
    ['1,000', true],
    ['1.000.000', true],
    ['12,505', true],
    ['2.50', false],
    ['2,5', false],
    ['2500', false],
    ['1.000,00', false],
    ['', false],
  ])('%j -> %s', (text, refused) => {
    expect(hasThousandsSeparator(text)).toBe(refused);
  });
});

describe('decimalSeparator', () => {
  it('is a comma in pt-BR and es, a period in en', () => {
    expect(decimalSeparator('pt-BR')).toBe(',');
    expect(decimalSeparator('es')).toBe(',');
    expect(decimalSeparator('en')).toBe('.');
  });
});
