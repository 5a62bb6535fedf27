import { describe, expect, it } from 'vitest';
import {
  CHECKOUT_DESC_MAX,
  CLAIM_DETAILS_MAX,
  checkoutDescProblem,
  claimDetailsKept,
  claimDetailsProblem,
  DEVICE_NAME_MAX,
  deviceNameProblem,
  isRecordId,
  isEmail,
  isPhone,
  OPERATOR_NAME_MAX,
  operatorNameProblem,
  pinSetProblem,
  RECORD_ID_MAX,
} from './form-rules.ts';

describe("a claim's details, counted as the service keeps them", () => {
  it.each([
    ['five characters', 'abcde', 'claim_details_short'],
    ['empty', '', 'claim_details_short'],
    ['only spaces and line breaks', ' \n\r\n  \t', 'claim_details_short'],
    ['nine once spaces around are cut', '  012345678  ', 'claim_details_short'],
    ['ten', '0123456789', null],
    ['ten made of words and one line break', 'lost\nphone', null],
    ['the most', 'x'.repeat(CLAIM_DETAILS_MAX), null],
    ['one too many', 'x'.repeat(CLAIM_DETAILS_MAX + 1), 'claim_details_long'],
    ['the most once a run of line breaks collapses', `${'x'.repeat(CLAIM_DETAILS_MAX - 2)}\r\n\n\ny`, null],
  ])('%s', (_name, text, expected) => {
    expect(claimDetailsProblem(text)).toBe(expected);
  });

  it('keeps one space for each run of line breaks', () => {
    expect(claimDetailsKept(' a\r\n\nb\nc ')).toBe('a b c');
  });
});

describe('a store email', () => {
  it.each([
    ['loja@example.com', true],
    ['  loja.centro+caixa@mail.example.com.br ', true],
    ['not-an-email', false],
    ['loja@', false],
    ['@example.com', false],
    ['loja@example', false],
    ['loja@@example.com', false],
    ['loja @example.com', false],
    ['loja@example..com', false],
    ['<loja@example.com>', false],
    ['loja@example.c', false],
    ['a,b@example.com', false],
    [`${'x'.repeat(190)}@example.com`, false],
    ['', false],
  ])('%j is an email: %s', (text, expected) => {
    expect(isEmail(text)).toBe(expected);
  });
});

describe('a store phone', () => {
  it.each([
    ['+55 11 3456-7890', true],
    ['(11) 98765-4321', true],
    ['1134567890', true],
    ['1234567', false],
    ['1234 5678 9012 3456', false],
    ['call me', false],
    ['11 3456-7890 ext 2', false],
    ['++55 11 3456 7890', false],
    ['55+11 3456 7890', false],
    ['', false],
    ['١١٣٤٥٦٧٨٩٠', false],
  ])('%j is a phone: %s', (text, expected) => {
    expect(isPhone(text)).toBe(expected);
  });
});

describe("an operator's name, as the core keeps it (trimmed)", () => {
  it.each([
    ['a name', 'Ana', null],
    ['spaces around', '  Ana Souza  ', null],
    ['empty', '', 'operator_name_empty'],
    ['spaces, tabs and line breaks only', ' \t\r\n ', 'operator_name_empty'],
    ['no-break spaces only', '\u00a0\u2003\ufeff', 'operator_name_empty'],
    ['the most', 'x'.repeat(OPERATOR_NAME_MAX), null],
    ['the most with spaces around, which are cut', `  ${'x'.repeat(OPERATOR_NAME_MAX)}  `, null],
    ['one too many', 'x'.repeat(OPERATOR_NAME_MAX + 1), 'operator_name_too_long'],
    ['a pasted page', 'Ana '.repeat(10_000), 'operator_name_too_long'],
    ['markup is only text', '<img src=x onerror=alert(1)>', null],
  ])('%s', (_name, text, expected) => {
    expect(operatorNameProblem(text)).toBe(expected);
  });
});

describe('a PIN being set', () => {
  it.each([
    ['four digits', '2468', null],
    ['eight digits', '86420135', null],
    ['three digits', '246', 'pin_shape'],
    ['nine digits', '246813579', 'pin_shape'],
    ['empty', '', 'pin_shape'],
    ['a space inside', '24 68', 'pin_shape'],
    ['a line break after', '2468\n', 'pin_shape'],
    ['a minus sign', '-2468', 'pin_shape'],
    ['a decimal point', '24.68', 'pin_shape'],
    ['an exponent', '2e10', 'pin_shape'],
    ['Arabic-Indic digits', '\u0662\u0664\u0666\u0668', 'pin_shape'],
    ['full-width digits', '\uff12\uff14\uff16\uff18', 'pin_shape'],
    ['a zero-width space inside', '24\u200b68', 'pin_shape'],
    ['one digit repeated', '0000', 'pin_repeated_digit'],
    ['one digit repeated, eight times', '77777777', 'pin_repeated_digit'],
    ['digits in a row up', '1234', 'pin_digits_in_row'],
    ['digits in a row down', '9876', 'pin_digits_in_row'],
    ['digits in a row across 9 and 0', '7890', 'pin_digits_in_row'],
    ['digits in a row down across 0 and 9', '0987', 'pin_digits_in_row'],
    ['steps of two', '1357', null],
    ['a row broken once', '12345679', null],
  ])('%s', (_name, pin, expected) => {
    expect(pinSetProblem(pin)).toBe(expected);
  });
});

describe("a checkout's description", () => {
  it.each([
    ['a name', 'Caixa 1', null],
    ['empty', '', 'checkout_desc_empty'],
    ['spaces and line breaks only', ' \r\n\t ', 'checkout_desc_empty'],
    ['the most', 'x'.repeat(CHECKOUT_DESC_MAX), null],
    ['the most with spaces around, which are cut', ` ${'x'.repeat(CHECKOUT_DESC_MAX)} `, null],
    ['one too many', 'x'.repeat(CHECKOUT_DESC_MAX + 1), 'checkout_desc_too_long'],
    // Counted as a person counts characters: an emoji is one, though JavaScript counts two.
    ['the most, in emoji', '🧾'.repeat(CHECKOUT_DESC_MAX), null],
    ['one emoji too many', '🧾'.repeat(CHECKOUT_DESC_MAX + 1), 'checkout_desc_too_long'],
    ['a pasted page', 'Caixa '.repeat(50_000), 'checkout_desc_too_long'],
  ])('%s', (_name, text, expected) => {
    expect(checkoutDescProblem(text)).toBe(expected);
  });
});

describe("a paired device's name, as the core keeps it (trimmed)", () => {
  it.each([
    ['a name', 'Till 2', null],
    ['spaces around', '  Caixa 2  ', null],
    ['empty', '', 'device_name_empty'],
    ['spaces, tabs and line breaks only', ' \t\r\n ', 'device_name_empty'],
    ['no-break spaces only', '\u00a0\u2003\ufeff', 'device_name_empty'],
    ['the most', 'x'.repeat(DEVICE_NAME_MAX), null],
    ['the most with spaces around, which are cut', `  ${'x'.repeat(DEVICE_NAME_MAX)}  `, null],
    ['one too many', 'x'.repeat(DEVICE_NAME_MAX + 1), 'device_name_too_long'],
    // Counted as the bridge bounds it (UTF-16 units): 31 emoji are 62.
    ['31 emoji', '🧾'.repeat(31), 'device_name_too_long'],
    ['a pasted page', 'Till '.repeat(10_000), 'device_name_too_long'],
    ['markup is only text', '<img src=x onerror=alert(1)>', null],
  ])('%s', (_name, text, expected) => {
    expect(deviceNameProblem(text)).toBe(expected);
  });
});

describe("a store's or checkout's number", () => {
  it.each([
    [1, true],
    [RECORD_ID_MAX, true],
    [0, false],
    [-1, false],
    [1.5, false],
    [RECORD_ID_MAX + 1, false],
    [Number.NaN, false],
    [Number.POSITIVE_INFINITY, false],
  ])('%s', (id, expected) => {
    expect(isRecordId(id)).toBe(expected);
  });
});
