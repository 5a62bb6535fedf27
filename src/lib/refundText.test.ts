import { describe, expect, it } from 'vitest';
import { LANGS } from '../../electron/core/contract.ts';
import { errorText, errorTextKey } from './errorText.ts';
import { translate } from './i18n.ts';
import { saleSentence, statusWordKey } from './messages.ts';

/** Refunds (issue 10, point 4 and 5) in the person's words, in every language. */
describe('refund words', () => {
  it('a partly refunded sale has its own word, neither Paid nor Refunded, and says how much went back', () => {
    const words = { en: 'Partly refunded', 'pt-BR': 'Estornada em parte', es: 'Reembolsada en parte' } as const;
    for (const lang of LANGS) {
      const word = translate(lang, statusWordKey('partly_refunded'));
      expect(word).toBe(words[lang]);
      expect(word).not.toBe(translate(lang, statusWordKey('paid')));
      expect(word).not.toBe(translate(lang, statusWordKey('refunded')));
    }
    expect(saleSentence('en', { key: 'sale.partly_refunded', params: { amount_cents: 1000, received_cents: 1000, refunded_cents: 400, kept_cents: 600 } })).toBe(
      'R$4.00 of the R$10.00 received was refunded to the customer; R$6.00 was kept.',
    );
  });

  const problems = [
    'refund_not_paid',
    'refund_open',
    'refund_nothing_left',
    'refund_amount_invalid',
    'refund_amount_too_large',
    'refund_reason_too_long',
    'refund_less_left',
    'refund_charge_not_found',
  ] as const;
  it.each(problems)('the core’s refusal %s reaches the person as its own sentence in every language', (problem) => {
    const error = { code: 'conflict' as const, message: 'English, for logs', params: { problem } };
    expect(errorTextKey(error)).toBe(`error.problem.${problem}`);
    const sentences = LANGS.map((lang) => errorText(lang, error));
    expect(new Set(sentences).size).toBe(LANGS.length);
    for (const s of sentences) expect(s).not.toMatch(/[{}]/);
  });

  it('a refused amount is never read as the cashier’s amount field', () => {
    // The core names no `field` for a refund amount: its sentence is the refund's, not the charge keypad's.
    expect(errorTextKey({ code: 'invalid_argument', message: '', params: { problem: 'refund_amount_too_large', left_cents: 600 } })).toBe('error.problem.refund_amount_too_large');
  });
});
