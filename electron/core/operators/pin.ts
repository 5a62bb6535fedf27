import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { PIN_PATTERN, pinSetProblem } from '../../shared/form-rules.ts';

export { PIN_PATTERN };

/**
 * A PIN is 4 to 8 digits and rests only as a slow salted hash: scrypt with a random salt per
 * PIN and its parameters stored beside the hash, so stronger parameters later still read the
 * old ones. A short PIN is guessable offline whatever the hash: the lockout (registry.ts) is
 * what stands between a thief and the till, the hash keeps the journal from telling PINs.
 */

export interface PinHash {
  alg: 'scrypt';
  n: number;
  r: number;
  p: number;
  salt: string;
  hash: string;
}

const N = 1 << 15;
const R = 8;
const P = 1;
const KEY_BYTES = 32;

function derive(pin: string, salt: Buffer, options: ScryptOptions, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // 128·N·r bytes are needed; Node's default ceiling is exactly that at N = 2^15.
    scrypt(pin.normalize('NFKC'), salt, length, { ...options, maxmem: 256 * (options.N ?? N) * (options.r ?? R) }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPin(pin: string): Promise<PinHash> {
  if (!PIN_PATTERN.test(pin)) throw new TypeError('a PIN is 4 to 8 digits');
  const salt = randomBytes(16);
  const key = await derive(pin, salt, { N, r: R, p: P }, KEY_BYTES);
  return { alg: 'scrypt', n: N, r: R, p: P, salt: salt.toString('base64'), hash: key.toString('base64') };
}

export function isPinHash(value: unknown): value is PinHash {
  if (typeof value !== 'object' || value === null) return false;
  const h = value as Record<string, unknown>;
  return h.alg === 'scrypt' && [h.n, h.r, h.p].every((x) => Number.isSafeInteger(x) && (x as number) > 0) && typeof h.salt === 'string' && typeof h.hash === 'string';
}

/** Constant-time: how much of a PIN matched must not show in how long the answer took. */
export async function pinMatches(pin: string, stored: PinHash): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'base64');
  const key = await derive(pin, Buffer.from(stored.salt, 'base64'), { N: stored.n, r: stored.r, p: stored.p }, expected.length);
  return PIN_PATTERN.test(pin) && key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * Issue 25: a PIN that people guess first is refused when a PIN is set (a new operator, a new
 * PIN): one digit repeated (0000, 777777) or a straight run up or down (1234, 9876, 7890,
 * 3210, 0987). The sentence says why, for the form. Operators who already have such a PIN
 * keep signing in with it: the lock-out (lockout.ts) still bounds the guesses, and a manager
 * gives them a new one on the Operators screen.
 */
export function trivialPinProblem(pin: string): string | null {
  // The rule is shared with the forms (electron/shared/form-rules.ts), which say it first.
  const problem = pinSetProblem(pin);
  if (problem === 'pin_repeated_digit') return 'A PIN of one repeated digit is too easy to guess: choose another.';
  if (problem === 'pin_digits_in_row') return 'A PIN of digits in a row, like 1234 or 9876, is too easy to guess: choose another.';
  return null;
}
