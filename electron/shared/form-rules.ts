/**
 * The rules of typed form fields that the core enforces and the renderer checks first, so a
 * form names what is wrong beside the field before any confirmation, with the very rule the
 * core refuses by (issue 26). Pure; no Node built-ins (the renderer runs it too).
 */

/** Reference 4.6 and 8: a claim's details are 10 to 4000 characters. */
export const CLAIM_DETAILS_MIN = 10;
export const CLAIM_DETAILS_MAX = 4000;
/** Reference 8: a claim's external_id has at most 128 characters. */
export const CLAIM_REFERENCE_MAX = 128;

/** How the service stores details (reference 4.6): every run of line breaks becomes one space. */
export function collapseLineBreaks(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}

/** The details as the service will keep them: line breaks collapsed, spaces around cut. */
export function claimDetailsKept(text: string): string {
  return collapseLineBreaks(text).trim();
}

export type ClaimDetailsProblem = 'claim_details_short' | 'claim_details_long';

/** What is wrong with a claim's details as the service would count them, or null. */
export function claimDetailsProblem(text: string): ClaimDetailsProblem | null {
  const length = claimDetailsKept(text).length;
  if (length < CLAIM_DETAILS_MIN) return 'claim_details_short';
  if (length > CLAIM_DETAILS_MAX) return 'claim_details_long';
  return null;
}

/** An operator's name as the core takes it (bridge argument `person`): 1 to 80 characters once trimmed. */
export const OPERATOR_NAME_MAX = 80;

export type OperatorNameProblem = 'operator_name_empty' | 'operator_name_too_long';

/** What is wrong with an operator's name as typed (the core keeps it trimmed), or null. */
export function operatorNameProblem(text: string): OperatorNameProblem | null {
  const name = text.trim();
  if (name === '') return 'operator_name_empty';
  if (name.length > OPERATOR_NAME_MAX) return 'operator_name_too_long';
  return null;
}

/** A PIN is 4 to 8 digits (ASCII: no other script's digits, no spaces). */
export const PIN_PATTERN = /^\d{4,8}$/;

export type PinProblem = 'pin_shape' | 'pin_repeated_digit' | 'pin_digits_in_row';

/**
 * What is wrong with a PIN being set (issue 25): not 4 to 8 digits, or one a person guesses
 * first: one digit repeated (0000, 777777) or a straight run up or down (1234, 9876, 7890,
 * 3210, 0987). Signing in does not judge this: operators who have such a PIN keep it.
 */
export function pinSetProblem(pin: string): PinProblem | null {
  if (!PIN_PATTERN.test(pin)) return 'pin_shape';
  const digits = [...pin].map(Number);
  const steps = new Set(digits.slice(1).map((d, i) => (d - (digits[i] as number) + 10) % 10));
  if (steps.size !== 1) return null;
  const [step] = steps;
  if (step === 0) return 'pin_repeated_digit';
  if (step === 1 || step === 9) return 'pin_digits_in_row';
  return null;
}

/** Reference 8 (printed QR checkout_desc 1 to 140): the poster prints it, so every description keeps to it. */
export const CHECKOUT_DESC_MAX = 140;

export type CheckoutDescProblem = 'checkout_desc_empty' | 'checkout_desc_too_long';

/** What is wrong with a checkout's description (trimmed, counted as a person counts characters), or null. */
export function checkoutDescProblem(text: string): CheckoutDescProblem | null {
  const desc = text.trim();
  if (desc === '') return 'checkout_desc_empty';
  if ([...desc].length > CHECKOUT_DESC_MAX) return 'checkout_desc_too_long';
  return null;
}

export const STORE_EMAIL_MAX = 200;

/**
 * An email a person can write to: one @, something before it, a dotted domain after it, no
 * spaces or angle brackets. Not the whole of RFC 5322: what a store's contact email looks like.
 */
const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:".]{2,}$/u;

/** Whether a typed (trimmed) email looks like one; empty is for the caller to decide. */
export function isEmail(text: string): boolean {
  const email = text.trim();
  return email.length <= STORE_EMAIL_MAX && EMAIL.test(email) && !email.includes('..');
}

/** A phone number: 8 to 15 digits (E.164's most), written with spaces, dashes, dots, brackets or a leading +. */
const PHONE_CHARS = /^\+?[0-9\s().-]+$/u;
export const PHONE_DIGITS_MIN = 8;
export const PHONE_DIGITS_MAX = 15;

/** Whether a typed (trimmed) phone number looks like one; empty is for the caller to decide. */
export function isPhone(text: string): boolean {
  const phone = text.trim();
  if (!PHONE_CHARS.test(phone)) return false;
  const digits = phone.replace(/\D/g, '').length;
  return digits >= PHONE_DIGITS_MIN && digits <= PHONE_DIGITS_MAX;
}

/** A paired till's or display's name as the core keeps it (trimmed): 1 to 60 characters. */
export const DEVICE_NAME_MAX = 60;

export type DeviceNameProblem = 'device_name_empty' | 'device_name_too_long';

/** What is wrong with a device's name as typed (the core keeps it trimmed), or null. */
export function deviceNameProblem(text: string): DeviceNameProblem | null {
  const name = text.trim();
  if (name === '') return 'device_name_empty';
  if (name.length > DEVICE_NAME_MAX) return 'device_name_too_long';
  return null;
}

/** The most a store's or checkout's number can be at the service (a signed 32-bit integer). */
export const RECORD_ID_MAX = 2_147_483_647;

/** Whether a number is a store's or checkout's number: a whole number from 1 to RECORD_ID_MAX. */
export function isRecordId(id: number): boolean {
  return Number.isSafeInteger(id) && id >= 1 && id <= RECORD_ID_MAX;
}
