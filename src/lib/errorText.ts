import type { ErrorCode, Lang, WireError } from '../../electron/core/contract.ts';
import type { TypedAmountProblem } from '../../electron/shared/money.ts';
import { AMOUNT_PROBLEM_TEXT } from './amountInput.ts';
import { dictionary, translate, type TextKey } from './i18n.ts';

/**
 * An error as the renderer holds it: the bridge's code and params (the core's `message` is
 * English, for logs; it is kept but never shown). These pure functions choose the sentence
 * in the cashier's language from the code, and from `params.problem` (the service client's
 * identifier, electron/core/api/errors.ts) or `params.reason` (the terminal's conflicts)
 * where present; every code has a translated fallback.
 */
export interface UiError {
  code: ErrorCode | 'disconnected' | 'unauthorized';
  message: string;
  params?: WireError['params'];
}

const CODE_TEXT: Record<UiError['code'], TextKey> = {
  invalid_argument: 'error.code.invalid_argument',
  unknown_method: 'error.code.unknown_method',
  not_ready: 'error.code.not_ready',
  service_unreachable: 'error.code.service_unreachable',
  service_timeout: 'error.code.service_timeout',
  service_rejected: 'error.code.service_rejected',
  service_failed: 'error.code.service_failed',
  conflict: 'error.code.conflict',
  not_found: 'error.code.not_found',
  journal_unavailable: 'error.code.journal_unavailable',
  forbidden: 'error.code.forbidden',
  signed_out: 'error.code.signed_out',
  sign_in_refused: 'error.code.sign_in_refused',
  pairing_refused: 'error.code.pairing_refused',
  not_paired: 'error.code.not_paired',
  internal: 'error.code.internal',
  disconnected: 'error.disconnected',
  unauthorized: 'connection.unauthorized',
};

/** The core's names of a field where they differ from the form's (the service's words). */
const FIELD_NAME: Readonly<Record<string, string>> = { store_name: 'name', phone_number: 'phone' };

function param(error: UiError, name: string): string | null {
  const value = error.params?.[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** A key of the dictionary built from a code, or null when there is no such key. */
function knownKey(key: string): TextKey | null {
  return Object.hasOwn(dictionary('en'), key) ? (key as TextKey) : null;
}

/** The sentence key for any error, wherever it is shown. */
export function errorTextKey(error: UiError): TextKey {
  const problem = param(error, 'problem');
  // The core's refusal of a typed amount names the reader's problem (electron/shared/money.ts):
  // the same sentence as under the field, never the service's problem of the same name.
  if (error.code === 'invalid_argument' && param(error, 'field') === 'amount') {
    return problem !== null && Object.hasOwn(AMOUNT_PROBLEM_TEXT, problem) ? AMOUNT_PROBLEM_TEXT[problem as TypedAmountProblem] : 'error.amount';
  }
  if (problem !== null) {
    const key = knownKey(`error.problem.${problem}`);
    if (key) return key;
  }
  // Any other refusal of something typed names its field (the bridge's and the core's
  // `params.field`), never "something" (issue 26).
  if (error.code === 'invalid_argument') {
    const field = param(error, 'field');
    const key = field === null ? null : knownKey(`error.field.${Object.hasOwn(FIELD_NAME, field) ? FIELD_NAME[field] : field}`);
    if (key) return key;
  }
  // A refusal says who may: the least role the core named.
  if (error.code === 'forbidden') {
    const role = param(error, 'role');
    const key = role === null ? null : knownKey(`error.forbidden.${role}`);
    if (key) return key;
  }
  if (error.code === 'conflict' || error.code === 'pairing_refused' || error.code === 'forbidden') {
    const reason = param(error, 'reason');
    const key = reason === null ? null : knownKey(`error.${error.code}.${reason}`);
    if (key) return key;
  }
  // A code from a newer core than this renderer still gets a sentence.
  return Object.hasOwn(CODE_TEXT, error.code) ? CODE_TEXT[error.code] : 'error.code.internal';
}

/**
 * The sentence key for a charge's error: the same as anywhere else, except where the
 * counter needs its own words. A lost answer may hide a sale already made (its QR may be on
 * the customer display), so the cashier is told to look before charging again.
 */
export function chargeErrorTextKey(error: UiError): TextKey {
  switch (error.code) {
    case 'disconnected':
      return 'error.chargeLost';
    case 'conflict':
      // The terminal's only reason-less refusal of a charge: the previous create is in flight.
      return param(error, 'reason') === null ? 'error.busy' : errorTextKey(error);
    case 'service_unreachable':
    case 'service_timeout':
      return param(error, 'problem') === null ? 'error.unreachable' : errorTextKey(error);
    default:
      return errorTextKey(error);
  }
}

export function errorText(lang: Lang, error: UiError): string {
  return translate(lang, errorTextKey(error));
}

export function chargeErrorText(lang: Lang, error: UiError): string {
  return translate(lang, chargeErrorTextKey(error));
}
