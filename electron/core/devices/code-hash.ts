import { randomBytes, scrypt } from 'node:crypto';
import type { PinHash } from '../operators/pin.ts';

/**
 * The slow hash a pairing code rests under: scrypt with the parameters of a PIN
 * (operators/pin.ts), so an offer's `code_hash` reads like a PIN's. The salt is not drawn per
 * code but per store journal and rotation (devices.ts, SALT_ROTATION_MS): a typed code is
 * then hashed once and looked up among the live offers' hashes, whatever their number.
 *
 * What a shared salt costs against someone who reads the journal: a code is 8 digits, so
 * finding one from its hash is trying 10^8 codes under its salt, with per-code salts or a
 * shared one alike. What sharing gives away is that the same 10^8 tries find every code made
 * under that salt at once, not one; and a table of all codes would serve for every offer of
 * the salt. Hence the salt is random (no table can be made before the journal is read) and
 * rotates (one brute force reaches the codes of one hour at most); and a code lives 10
 * minutes, is used once, and is void after 20 wrong guesses, while 10^8 scrypts of this cost
 * are days of a computer's time.
 */
export type SlowCodeHash = (code: string, params: Pick<PinHash, 'n' | 'r' | 'p' | 'salt'>, bytes: number) => Promise<string>;

const N = 1 << 15;
const R = 8;
const P = 1;
const KEY_BYTES = 32;

/** scrypt of the code under a stored salt and parameters, as base64 (the form `PinHash.hash` has). */
export const scryptCode: SlowCodeHash = (code, params, bytes) =>
  new Promise((resolve, reject) => {
    // 128·N·r bytes are needed; Node's default ceiling is exactly that at N = 2^15.
    scrypt(code.normalize('NFKC'), Buffer.from(params.salt, 'base64'), bytes, { N: params.n, r: params.r, p: params.p, maxmem: 256 * params.n * params.r }, (err, key) =>
      err ? reject(err) : resolve(key.toString('base64')),
    );
  });

/** A new random salt for the codes of the next rotation, with the parameters they rest under. */
export function newCodeSalt(): Pick<PinHash, 'alg' | 'n' | 'r' | 'p' | 'salt'> {
  return { alg: 'scrypt', n: N, r: R, p: P, salt: randomBytes(16).toString('base64') };
}

export const CODE_KEY_BYTES = KEY_BYTES;

/** Offers whose codes are hashed under the same salt and parameters share this key. */
export function saltKey(h: Pick<PinHash, 'n' | 'r' | 'p' | 'salt'>): string {
  return `${h.n}:${h.r}:${h.p}:${h.salt}`;
}
