import { describe, expect, it } from 'vitest';
import { LANGS } from '../../electron/core/contract.ts';
import { chargeErrorText, chargeErrorTextKey, errorText, errorTextKey, type UiError } from './errorText.ts';
import { translate } from './i18n.ts';

const CODES: readonly UiError['code'][] = [
  'invalid_argument',
  'unknown_method',
  'not_ready',
  'service_unreachable',
  'service_timeout',
  'service_rejected',
  'service_failed',
  'conflict',
  'not_found',
  'internal',
  'disconnected',
  'unauthorized',
];

/** What the core says in English: it must never reach a pt-BR or es screen. */
const ENGLISH = 'An English sentence from the core that must not be shown';

const err = (code: UiError['code'], params?: UiError['params']): UiError => ({ code, message: ENGLISH, ...(params ? { params } : {}) });

describe('errorText', () => {
  it.each(LANGS)('%s: every code has its own translated fallback, never the core message', (lang) => {
    const seen = new Set<string>();
    for (const code of CODES) {
      const text = errorText(lang, err(code));
      expect(text, code).not.toContain(ENGLISH);
      expect(text.trim(), code).not.toBe('');
      seen.add(text);
    }
    expect(seen.size).toBe(CODES.length);
  });

  it('says the same thing in Portuguese as in English, not the English', () => {
    const e = err('service_failed', { problem: 'bad_gateway', route: 'sales.create' });
    expect(errorText('en', e)).toContain('HTTP 502');
    expect(errorText('pt-BR', e)).toContain('HTTP 502');
    expect(errorText('pt-BR', e)).not.toBe(errorText('en', e));
    expect(errorText('es', e)).not.toBe(errorText('en', e));
  });

  // The problem identifiers the service client sets (electron/core/api/errors.ts).
  it.each<[UiError['code'], string]>([
    ['service_rejected', 'no_printed_qr'],
    ['service_failed', 'printed_qr_disabled'],
    ['invalid_argument', 'validation'],
    ['service_rejected', 'credentials'],
    ['service_rejected', 'scope'],
    ['service_rejected', 'role'],
    ['service_rejected', 'rate_limited'],
    ['service_failed', 'bad_gateway'],
    ['service_failed', 'server_error'],
    ['service_failed', 'unavailable'],
    ['service_failed', 'gateway_timeout'],
    ['service_failed', 'unreadable_answer'],
    ['service_unreachable', 'refused'],
    ['service_unreachable', 'dns'],
    ['service_unreachable', 'broken'],
    ['service_timeout', 'deadline'],
    ['service_timeout', 'no_answer'],
    ['service_timeout', 'connect_timeout'],
    ['not_found', 'not_found'],
    ['conflict', 'idempotency_key_reused'],
    ['invalid_argument', 'store_not_found'],
  ])('%s / problem %s has a sentence of its own', (code, problem) => {
    expect(errorTextKey(err(code, { problem, route: 'sales.create' }))).toBe(`error.problem.${problem}`);
  });

  it('falls back to the code for a problem it does not know, or a null one', () => {
    expect(errorTextKey(err('service_rejected', { problem: 'something_new' }))).toBe('error.code.service_rejected');
    expect(errorTextKey(err('service_failed', { problem: null }))).toBe('error.code.service_failed');
    expect(errorTextKey(err('service_failed', { problem: 'toString' }))).toBe('error.code.service_failed');
    expect(errorTextKey(err('service_failed', { problem: '__proto__' }))).toBe('error.code.service_failed');
    expect(errorTextKey(err('constructor' as never))).toBe('error.code.internal');
    expect(errorTextKey(err('brand_new_code' as never))).toBe('error.code.internal');
  });

  it.each([
    ['pending_sale', 'error.conflict.pending_sale'],
    ['shift_open', 'error.conflict.shift_open'],
    ['no_shift', 'error.conflict.no_shift'],
    ['who_knows', 'error.code.conflict'],
  ])('a conflict with reason %s', (reason, key) => {
    expect(errorTextKey(err('conflict', { reason }))).toBe(key);
  });

  it('words the amount refusals of the core, the thousands separator as the preview does', () => {
    expect(errorTextKey(err('invalid_argument', { field: 'amount' }))).toBe('error.amount');
    const thousands = err('invalid_argument', { field: 'amount', problem: 'thousands_separator' });
    for (const lang of LANGS) expect(errorText(lang, thousands)).toBe(translate(lang, 'cashier.thousandsHint'));
    expect(errorText('en', thousands)).toContain('1500');
  });

  it('words every refusal of a typed amount by its own problem, in every language, never as the service’s', () => {
    const sentence = (problem: string, lang: (typeof LANGS)[number]) => errorText(lang, err('invalid_argument', { field: 'amount', problem }));
    expect(sentence('negative', 'en')).toMatch(/minus sign/);
    expect(sentence('exponent', 'en')).toMatch(/plain digits/);
    expect(sentence('too_many_decimals', 'en')).toMatch(/two decimal places/);
    expect(sentence('too_large', 'en')).toBe('A sale is at most R$1,000,000.00.');
    expect(sentence('too_large', 'en')).not.toBe(translate('en', 'error.problem.too_large'));
    for (const lang of LANGS) {
      const texts = ['empty', 'too_long', 'negative', 'exponent', 'not_a_number', 'thousands_separator', 'too_many_decimals', 'zero', 'too_large'].map((p) => sentence(p, lang));
      expect(new Set(texts).size).toBe(texts.length);
      expect(texts).not.toContain(translate(lang, 'error.amount'));
    }
  });
});

describe('chargeErrorText', () => {
  it('says a charge whose answer was lost may have gone through, in every language', () => {
    expect(chargeErrorText('en', err('disconnected'))).toBe('The charge may have gone through: check the current sale before charging again.');
    expect(chargeErrorText('pt-BR', err('disconnected'))).not.toBe(translate('pt-BR', 'error.disconnected'));
    expect(errorText('en', err('disconnected'))).toBe('The connection to the cashier app was lost; try again.');
  });
  it('keeps the counter words for a create in flight and an unreachable service', () => {
    expect(chargeErrorTextKey(err('conflict'))).toBe('error.busy');
    expect(chargeErrorTextKey(err('service_unreachable'))).toBe('error.unreachable');
    expect(chargeErrorTextKey(err('service_rejected', { problem: 'no_printed_qr' }))).toBe('error.problem.no_printed_qr');
    expect(chargeErrorText('es', err('internal'))).not.toContain(ENGLISH);
  });
});

describe('refusals by role (issue 8)', () => {
  it.each([
    ['en', 'supervisor', 'Only a supervisor or a manager can do that.'],
    ['en', 'manager', 'Only a manager can do that.'],
    ['pt-BR', 'supervisor', 'Só um supervisor ou um gerente pode fazer isso.'],
    ['es', 'manager', 'Solo un gerente puede hacer eso.'],
  ] as const)('%s: forbidden for %s says who may', (lang, role, text) => {
    expect(errorText(lang, { code: 'forbidden', message: 'Only … can …', params: { role } })).toBe(text);
  });

  it('a session gone and a wrong PIN have their own sentences', () => {
    expect(errorText('en', { code: 'signed_out', message: 'Sign in first.' })).toMatch(/sign in again/);
    expect(errorText('en', { code: 'sign_in_refused', message: 'x', params: { reason: 'wrong_pin' } })).toBe('That name and PIN do not match an operator of this till.');
    expect(errorText('en', { code: 'conflict', message: 'x', params: { reason: 'last_manager' } })).toMatch(/last manager/);
  });
});

describe('the back office’s refusals (issue 10)', () => {
  // Every problem electron/core/backoffice/rules.ts raises or rewords, and those of the
  // client the Stores screen meets (reference 4.2, 4.4, 7).
  const PROBLEMS = [
    'store_name_empty',
    'checkout_desc_empty',
    'checkout_desc_too_long',
    'wallet_change_unconfirmed',
    'mode_needs_printed_qr',
    'printed_qr_invalid',
    'printed_qr_unsupported',
    'checkout_wallet_differs',
    'gateway_failed',
    'printed_qr_disabled',
    'wallet_not_found',
    'wallet_network_deprecated',
    'office_scope',
    'office_role',
    'office_not_found',
    'office_validation',
    'office_bad_request',
    'office_conflict',
  ];
  it.each(PROBLEMS)('%s has its own sentence in every language', (problem) => {
    const key = errorTextKey({ code: 'invalid_argument', message: 'x', params: { problem } });
    expect(key).toBe(`error.problem.${problem}`);
    for (const lang of LANGS) expect(errorText(lang, { code: 'invalid_argument', message: 'x', params: { problem } })).toMatch(/^\S.{20,}\.$/);
  });

  it('a token without the pay-in scope or the manager role says exactly that', () => {
    expect(errorText('en', { code: 'service_rejected', message: 'x', params: { problem: 'office_scope' } })).toContain('pay-in scope');
    expect(errorText('en', { code: 'service_rejected', message: 'x', params: { problem: 'office_role' } })).toContain('manager role');
  });
});

describe('an unconfirmed claim and the refusals of a bank’s answer (issue 24)', () => {
  // The service's claim_not_confirmed, and every problem electron/core/claims/rules.ts and
  // desk.ts raise when a supervisor records what the bank said of it.
  it.each(['claim_not_confirmed', 'claim_in_flight', 'claim_not_retryable', 'claim_not_unconfirmed', 'claim_id_malformed', 'claim_id_unknown', 'claim_other_payout'])('%s has its own sentence in every language', (problem) => {
    const key = errorTextKey({ code: 'invalid_argument', message: 'x', params: { problem, field: 'medCaseId' } });
    expect(key).toBe(`error.problem.${problem}`);
    for (const lang of LANGS) expect(errorText(lang, { code: 'invalid_argument', message: 'x', params: { problem } })).toMatch(/^\S.{20,}\.$/);
  });
});

describe('a refused field is named, never "something" (issue 26)', () => {
  // The problems electron/core/claims/rules.ts claimBody raises, each with its field.
  it.each([
    ['claim_details_short', 'details', /^Details: .*at least 10 characters/],
    ['claim_details_long', 'details', /^Details: at most 4,000 characters/],
    ['claim_reason_missing', 'reason', /^Reason: /],
    ['claim_reference_long', 'externalId', /^Your reference: at most 128/],
  ])('%s names the %s field', (problem, field, english) => {
    expect(errorText('en', err('invalid_argument', { problem, field }))).toMatch(english);
    for (const lang of LANGS) expect(errorText(lang, err('invalid_argument', { problem, field }))).not.toBe(translate(lang, 'error.code.invalid_argument'));
  });

  it.each([
    // The bridge's refusal of an argument's shape (electron/core/bridge/arguments.ts) names the path.
    ['details', 'Details were not accepted'],
    ['reason', 'Reason was not accepted'],
    ['externalId', 'Your reference was not accepted'],
    ['email', 'Email was not accepted'],
    ['phone', 'Phone was not accepted'],
    // The core's names of the store's fields are the service's.
    ['phone_number', 'Phone was not accepted'],
    ['store_name', 'Name was not accepted'],
  ])('a refusal of %s says which field', (field, english) => {
    expect(errorText('en', err('invalid_argument', { field }))).toContain(english);
  });

  it.each([
    ['an unknown field', { field: 'constructor' }],
    ['a field of null', { field: null }],
    ['no field', undefined],
  ])('%s keeps the general sentence', (_name, params) => {
    expect(errorTextKey(err('invalid_argument', params))).toBe('error.code.invalid_argument');
  });
});
