/**
 * Identifiers the service hands out. Random (not sequential) so ids never repeat across a
 * reset or a restart, and a merchant cannot guess another merchant's ids.
 */
import { randomBytes, randomUUID } from 'node:crypto';

/** prefix + 24 hex characters, e.g. "pix_3f9a...". */
export function newId(prefix: string): string {
  return prefix + randomUUID().replaceAll('-', '').slice(0, 24);
}

/** A location id at the "gateway": 32 hex characters. */
export function newLocationId(): string {
  return randomUUID().replaceAll('-', '');
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * A Pix end-to-end id: "E" + the payer institution's ISPB (8 digits) + yyyyMMddHHmm (UTC) +
 * 11 alphanumerics, 32 characters in all.
 */
export function newE2eId(nowMs: number): string {
  const d = new Date(nowMs);
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  const stamp = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}`;
  const tail = [...randomBytes(11)].map((b) => ALNUM[b % ALNUM.length]).join('');
  return `E18236120${stamp}${tail}`;
}
