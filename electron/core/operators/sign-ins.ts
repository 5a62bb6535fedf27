import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { DEVICE_REVOKED } from '../devices/registry.ts';
import type { Connection } from '../devices/connection.ts';
import type { JournalEntry, Projection } from '../journal/port.ts';
import { OPERATOR_CHANGED, OPERATOR_DISABLED, OPERATOR_SIGN_IN_RESUMED, OPERATOR_SIGNED_IN, OPERATOR_SIGNED_OUT } from './registry.ts';
import { isRole, type Role } from './roles.ts';
import { idlePast, mayResume } from './sessions.ts';

/**
 * Issue 23: the sign-ins that have not ended, as the journal tells them, so that whichever
 * core answers a till's reconnect (the same one restarted, or a standby that took over) can
 * decide whether its sign-in goes on. At sign-in the core gives the page a resume secret
 * (256 random bits) and journals only its SHA-256 with the sign-in; the page keeps the
 * secret in memory (a reload asks for the PIN again) and offers it when its connection comes
 * back. Every way a sign-in ends today is a journal entry this fold reads: a sign-out (by
 * hand, the till's own lock, the core's idle sweep, a connection gone past its grace), a new
 * PIN or role, the operator disabled, the device revoked.
 */

export { OPERATOR_SIGN_IN_RESUMED };
/**
 * A person was at the till (the page's auth.active), written at most every ACTIVE_EVERY_MS
 * per sign-in: what another core knows of the idle time. Only while sign-ins lock when idle.
 */
export const OPERATOR_ACTIVE = 'operator.active';

/** The last act another core knows of is at most this old (or a quarter of the lock time): it may end a sign-in that much early, never late. */
export const ACTIVE_EVERY_MS = 60_000;

export function activeEveryMs(lockMinutes: number): number {
  return Math.min(ACTIVE_EVERY_MS, (lockMinutes * 60_000) / 4);
}

/** Where a sign-in was made, as the journal says it: the store computer's own window, or a paired device. */
export function placeOf(connection: Connection): string {
  return connection.kind === 'device' ? `device:${connection.device.id}` : connection.kind;
}

export interface LiveSignIn {
  signInId: string;
  operatorId: string;
  /** The role it was made with: a new role ends it (the fold), and a resume checks it again. */
  role: Role;
  place: string;
  /** SHA-256 (hex) of the resume secret; the secret itself is never written. */
  resumeSha256: string;
  /** The operator's last act known to the journal, on the session clock (sessions.ts). */
  activeAt: number;
}

/** Sign-ins at most: a journal of many tills that died with sign-ins open does not grow the projection past this. */
const MAX_LIVE = 10_000;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const RESUME_SHA256 = /^[0-9a-f]{64}$/;

export function foldSignInEntry(live: readonly LiveSignIn[], entry: JournalEntry): readonly LiveSignIn[] {
  const d = entry.data as Record<string, unknown>;
  switch (entry.type) {
    case OPERATOR_SIGNED_IN: {
      const signInId = str(d.sign_in_id);
      const operatorId = str(d.operator_id);
      const place = str(d.place);
      // Sign-ins journaled before issue 23 have no resume secret: nothing to resume.
      if (signInId === null || operatorId === null || place === null || !isRole(d.role) || typeof d.resume_sha256 !== 'string' || !RESUME_SHA256.test(d.resume_sha256)) return live;
      const activeAt = typeof d.active_at === 'number' ? d.active_at : 0;
      const next = [...live.filter((s) => s.signInId !== signInId), { signInId, operatorId, role: d.role, place, resumeSha256: d.resume_sha256, activeAt }];
      return next.length > MAX_LIVE ? next.slice(next.length - MAX_LIVE) : next;
    }
    case OPERATOR_ACTIVE: {
      const signInId = str(d.sign_in_id);
      const at = d.active_at;
      if (signInId === null || typeof at !== 'number') return live;
      return live.map((s) => (s.signInId === signInId && at > s.activeAt ? { ...s, activeAt: at } : s));
    }
    case OPERATOR_SIGNED_OUT: {
      const signInId = str(d.sign_in_id);
      return signInId === null ? live : live.filter((s) => s.signInId !== signInId);
    }
    // Issue 25: a new PIN or role, or the operator disabled, ends their sign-ins on every till.
    case OPERATOR_CHANGED:
      return live.filter((s) => s.operatorId !== d.operator_id || (d.pin === undefined && (d.role === undefined || d.role === s.role)));
    case OPERATOR_DISABLED:
      return live.filter((s) => s.operatorId !== d.operator_id);
    case DEVICE_REVOKED:
      return live.filter((s) => s.place !== `device:${String(d.device_id)}`);
    default:
      return live;
  }
}

const FOLDED: readonly string[] = [OPERATOR_SIGNED_IN, OPERATOR_ACTIVE, OPERATOR_SIGNED_OUT, OPERATOR_CHANGED, OPERATOR_DISABLED, DEVICE_REVOKED];

export const SIGN_INS_PROJECTION = 'sign_ins';
export const signInsProjection: Projection<readonly LiveSignIn[]> = {
  initial: [],
  reduce: (live, entry) => (FOLDED.includes(entry.type) ? foldSignInEntry(live, entry) : live),
};

/** A new sign-in's id and resume secret, and the hash the journal keeps of it. */
export function newResumeGrant(): { signInId: string; secret: string; sha256: string } {
  const secret = randomBytes(32).toString('base64url');
  return { signInId: randomUUID(), secret, sha256: resumeSha256(secret) };
}

export function resumeSha256(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A resume secret as the core makes them: 43 characters of base64url (256 bits). */
export function isResumeSecret(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
}

export type ResumeRefusal = 'unknown' | 'other_place' | 'operator_gone' | 'role_changed' | 'idle' | 'dropped_too_long';

/**
 * Whether a sign-in found by its secret's hash goes on for a connection that offers it: the
 * one rule, on the facts the journal and this core have. `droppedAt`: when its connection
 * dropped (session clock), null while one is still open; a sign-in this core found in the
 * journal (the core that made it stopped) counts from when this core took over.
 */
export function resumeRefusal(
  signIn: LiveSignIn | undefined,
  facts: { place: string; operator: { disabled: boolean; role: Role } | undefined; now: number; lockMinutes: number; activeAt: number; droppedAt: number | null },
): ResumeRefusal | null {
  if (!signIn) return 'unknown';
  // A secret is good for the device it was given to: another device's credential cannot borrow it.
  if (signIn.place !== facts.place) return 'other_place';
  if (!facts.operator || facts.operator.disabled) return 'operator_gone';
  if (facts.operator.role !== signIn.role) return 'role_changed';
  if (idlePast(facts.activeAt, facts.now, facts.lockMinutes)) return 'idle';
  if (facts.droppedAt !== null && !mayResume(facts.droppedAt, facts.now)) return 'dropped_too_long';
  return null;
}
