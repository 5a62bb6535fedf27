import { describe, expect, it } from 'vitest';
import { CLAIM_DETAILS_MAX, claimDetailsKept, claimDetailsProblem, isEmail, isPhone } from './form-rules.ts';

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
