import { describe, expect, it } from 'vitest';
import { LANGS } from '../../electron/core/contract.ts';
import { CHECKOUT_DESC_MAX, CLAIM_DETAILS_MAX, CLAIM_DETAILS_MIN, CLAIM_REFERENCE_MAX, claimDetailsProblem } from '../../electron/shared/form-rules.ts';
import { formatCount, formatMoney } from './format.ts';
import { dictionary, translate } from './i18n.ts';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('dictionaries', () => {
  const keys = Object.keys(dictionary('en')).sort();
  it.each(LANGS)('%s has every key, none empty, with the same placeholders as English', (lang) => {
    const dict = dictionary(lang);
    expect(Object.keys(dict).sort()).toEqual(keys);
    for (const key of keys) {
      const text = dict[key as keyof typeof dict];
      expect(text.trim(), `${lang} ${key}`).not.toBe('');
      expect(placeholders(text), `${lang} ${key}`).toEqual(placeholders(dictionary('en')[key as keyof typeof dict]));
    }
  });

  it('keeps the English words the tests and the issue rely on', () => {
    expect(translate('en', 'cashier.amount')).toBe('Amount');
    expect(translate('en', 'cashier.reference')).toBe('Reference');
    expect(translate('en', 'cashier.charge')).toBe('Charge');
    expect(translate('en', 'screen.qrAlt')).toBe('Payment QR code');
    expect(translate('en', 'screen.waiting')).toBe('Waiting for payment');
    expect(translate('en', 'outcome.pending')).toBe('Waiting for payment');
    expect(translate('en', 'outcome.displaced')).toBe('Displaced');
    expect(translate('en', 'outcome.paid')).toBe('Paid');
    expect(translate('en', 'outcome.amount_mismatch')).toBe('Amount mismatch');
    expect(translate('en', 'outcome.expired')).toBe('Expired');
    expect(translate('en', 'outcome.paid_late')).toBe('Late payment');
    expect(translate('en', 'screen.scanPrinted')).toBe('or scan the printed QR');
  });

  it('fills placeholders and leaves unknown ones visible', () => {
    expect(translate('en', 'status.terminalValue', { store: 1, checkout: 2 })).toBe('Store 1 · Checkout 2');
    expect(translate('en', 'status.terminalValue', { store: 1 })).toBe('Store 1 · Checkout {checkout}');
  });

  it('writes counts the language’s way, and leaves numbers that are names as given', () => {
    expect(translate('pt-BR', 'claims.count', { count: 3987, max: 4000 })).toBe('3.987 de 4.000 caracteres (no mínimo 10).');
    expect(translate('en', 'claims.count', { count: 3987, max: 4000 })).toBe('3,987 of 4,000 characters (at least 10).');
    expect(translate('es', 'claims.count', { count: 12, max: 4000 })).toBe('12 de 4000 caracteres (al menos 10).');
    expect(translate('en', 'claims.daysLeft', { days: 1200 })).toBe('Can be claimed: 1,200 days left.');
    // A count already written stays as written; an id is a name, never grouped.
    expect(translate('pt-BR', 'claims.count', { count: '3.987', max: 4000 })).toBe('3.987 de 4.000 caracteres (no mínimo 10).');
    expect(translate('en', 'status.terminalValue', { store: 12345, checkout: 2 })).toBe('Store 12345 · Checkout 2');
  });
});

describe('the limits the form rules judge by, named in every language', () => {
  it.each(LANGS)('%s: a claim’s details name the very limits of the rule, written by the one formatter', (lang) => {
    const max = formatCount(lang, CLAIM_DETAILS_MAX);
    const min = formatCount(lang, CLAIM_DETAILS_MIN);
    const long = claimDetailsProblem('x'.repeat(CLAIM_DETAILS_MAX + 1));
    const short = claimDetailsProblem('x'.repeat(CLAIM_DETAILS_MIN - 1));
    expect(translate(lang, `error.problem.${long as 'claim_details_long'}`)).toContain(` ${max} `);
    expect(translate(lang, `error.problem.${short as 'claim_details_short'}`)).toContain(` ${min} `);
    expect(translate(lang, 'claims.count', { count: 0, max: CLAIM_DETAILS_MAX })).toContain(` ${max} `);
    expect(translate(lang, 'claims.count', { count: 0, max: CLAIM_DETAILS_MAX })).toContain(` ${min})`);
    expect(translate(lang, 'error.problem.claim_reference_long')).toContain(` ${formatCount(lang, CLAIM_REFERENCE_MAX)} `);
    expect(translate(lang, 'error.problem.checkout_desc_too_long')).toContain(` ${formatCount(lang, CHECKOUT_DESC_MAX)} `);
    expect(translate(lang, 'checkouts.descRule')).toContain(` ${formatCount(lang, CHECKOUT_DESC_MAX)} `);
  });

  it('no text writes those limits by hand', () => {
    const limits = [CLAIM_DETAILS_MAX, CLAIM_REFERENCE_MAX, CHECKOUT_DESC_MAX].flatMap((n) => LANGS.map((lang) => formatCount(lang, n)).concat(String(n)));
    const keys = ['claims.count', 'error.problem.claim_details_short', 'error.problem.claim_details_long', 'error.problem.claim_reference_long', 'checkouts.descRule', 'error.problem.checkout_desc_too_long'] as const;
    for (const lang of LANGS) {
      for (const key of keys) {
        const raw = dictionary(lang)[key];
        for (const limit of new Set(limits)) expect(raw, `${lang} ${key}`).not.toContain(limit);
      }
    }
  });
});

describe('formatMoney', () => {
  it('formats integer cents as reais for each language', () => {
    expect(formatMoney('pt-BR', 1000).replace(/\s/g, ' ')).toBe('R$ 10,00');
    expect(formatMoney('en', 123456)).toBe('R$1,234.56');
    expect(formatMoney('es', 1).replace(/\s/g, ' ')).toMatch(/^(R\$ 0,01|0,01 R\$)$/);
  });
});
