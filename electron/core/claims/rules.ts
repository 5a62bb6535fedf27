/**
 * The claims desk's rules (issue 12), pure: which pay-out may be claimed and why not, the
 * claim form, and how a claim's status may move. Reference 2.6, 3.2, 4.6 and 8.
 */
import { MED_REASONS, MED_STATUSES, type MedReason, type MedStatus, type Payout } from '../api/routes/payouts.ts';
import { CoreError } from '../errors.ts';
import { CLAIM_DETAILS_MAX, CLAIM_DETAILS_MIN, CLAIM_REFERENCE_MAX, claimDetailsKept, claimDetailsProblem } from '../../shared/form-rules.ts';

/** Reference 8: the central bank takes a claim up to 80 days after; open it within 79. */
export const CLAIM_WINDOW_DAYS = 79;
export const DAY_MS = 86_400_000;
export const DETAILS_MIN = CLAIM_DETAILS_MIN;
export const DETAILS_MAX = CLAIM_DETAILS_MAX;
export const EXTERNAL_ID_MAX = CLAIM_REFERENCE_MAX;

export type NotClaimable = 'not_processed' | 'date_unknown' | 'outside_window' | 'claimed' | 'unconfirmed';

export type Claimability = { claimable: true; daysLeft: number } | { claimable: false; why: NotClaimable; daysLeft: number | null };

/**
 * Whether a pay-out may be claimed now (reference 4.6 acceptance conditions): processed by the
 * bank (an end-to-end id), dated, inside the window, and no claim yet. `claimed`: a claim the
 * service lists or this journal holds for it; `unconfirmed`: an earlier request whose outcome
 * is unknown (it may have reached the operator), which no one should repeat blindly.
 */
export function claimability(payout: Payout, now: number, known: { claimed: boolean; unconfirmed: boolean }): Claimability {
  const created = payout.created_at === null ? null : Date.parse(payout.created_at);
  const daysLeft = created === null ? null : CLAIM_WINDOW_DAYS - Math.floor((now - created) / DAY_MS);
  if (known.claimed) return { claimable: false, why: 'claimed', daysLeft };
  if (known.unconfirmed) return { claimable: false, why: 'unconfirmed', daysLeft };
  if (daysLeft === null) return { claimable: false, why: 'date_unknown', daysLeft };
  if (daysLeft <= 0) return { claimable: false, why: 'outside_window', daysLeft: 0 };
  if (payout.e2e_id === null) return { claimable: false, why: 'not_processed', daysLeft };
  return { claimable: true, daysLeft };
}

export interface ClaimForm {
  reason: string;
  details: string;
  /** The merchant's own reference (the claim's external_id); empty for none. */
  externalId?: string;
}

export type ClaimField = 'reason' | 'details' | 'externalId' | 'medCaseId';

/**
 * The body of a claim, or a refusal naming the field and its problem (the renderer's sentence
 * for it names the field too). Details are counted as the service will keep them, line breaks
 * collapsed into spaces (reference 4.6), so a text the counter accepts is one the service
 * accepts; the form checks first with the same rule (electron/shared/form-rules.ts).
 */
export function claimBody(form: ClaimForm): { reason: MedReason; details: string; external_id?: string } {
  if (!(MED_REASONS as readonly string[]).includes(form.reason)) throw fieldError('reason', 'Reason: choose the reason for the claim.', 'claim_reason_missing');
  const details = claimDetailsKept(form.details);
  const problem = claimDetailsProblem(form.details);
  if (problem === 'claim_details_short') throw fieldError('details', `Details: describe what happened in at least ${DETAILS_MIN} characters; this text has ${details.length}.`, problem);
  if (problem === 'claim_details_long') throw fieldError('details', `Details: at most ${DETAILS_MAX} characters; this text has ${details.length}.`, problem);
  const externalId = (form.externalId ?? '').trim();
  if (externalId.length > EXTERNAL_ID_MAX) throw fieldError('externalId', `Your reference: at most ${EXTERNAL_ID_MAX} characters.`, 'claim_reference_long');
  return { reason: form.reason as MedReason, details, ...(externalId === '' ? {} : { external_id: externalId }) };
}

function fieldError(field: ClaimField, message: string, problem?: string): CoreError {
  return new CoreError('invalid_argument', message, { field, ...(problem === undefined ? {} : { problem }) });
}

/**
 * A claim id as the bank or support gave it to a supervisor. Reference 2.6: it has the prefix
 * `med_`; 4.6: it is sent exactly as returned, case unchanged, so only the spaces a paste
 * brings around it are cut. The rest is what a path segment can carry (no space, slash or
 * query), so the GET that checks it asks for that claim and nothing else.
 */
export const MED_CASE_ID = /^med_[A-Za-z0-9_-]{1,96}$/;

export function typedMedCaseId(text: string): string {
  const id = text.trim();
  if (!MED_CASE_ID.test(id)) {
    throw fieldError('medCaseId', 'A claim id starts with med_ followed by letters and digits, as the bank or support gave it (for example med_4f2a9c); check what was typed. Nothing was recorded.', 'claim_id_malformed');
  }
  return id;
}

/** A claim this journal knows, as the choice of which to read by id sees it. */
export interface KnownClaim {
  med_case_id: string;
  /** The furthest status seen. */
  status: MedStatus;
  /** Whether the journal holds the claim as last read (to show it without asking again). */
  hasRecord: boolean;
  /** When this core last read it by id; null if never. */
  readAt: number | null;
}

/**
 * Reference 4.6: the list answers only the newest claims (at most 200) and takes no offset,
 * so a claim older than those can be followed only by reading it by its id. Which of the
 * claims this journal knows to read now, at most `budget` of them: those the list did not
 * answer that can still move (3.2: closed and cancelled never do), and a terminal one the
 * journal holds no record of, once, to show it; never read first, then the longest unread.
 */
export function claimsToRead(known: readonly KnownClaim[], listed: ReadonlySet<string>, budget: number): string[] {
  const terminal = (s: MedStatus) => s === 'closed' || s === 'cancelled';
  return known
    .filter((c) => !listed.has(c.med_case_id) && (!terminal(c.status) || (!c.hasRecord && c.readAt === null)))
    .sort((a, b) => (a.readAt === null ? (b.readAt === null ? 0 : -1) : b.readAt === null ? 1 : a.readAt - b.readAt))
    .slice(0, Math.max(0, budget))
    .map((c) => c.med_case_id);
}

const RANK = new Map<MedStatus, number>(MED_STATUSES.map((s, i) => [s, i]));

/**
 * Reference 3.2: a status only moves forward. `cancelled` ends a claim from any status, so it
 * ranks last with `closed`; an answer that would move a claim back is not shown (the status
 * kept is the furthest seen) and is flagged instead.
 */
export function nextStatus(kept: MedStatus | null, answered: MedStatus): { status: MedStatus; backwards: boolean } {
  if (kept === null || kept === answered) return { status: answered, backwards: false };
  const terminal = (s: MedStatus) => s === 'closed' || s === 'cancelled';
  if (terminal(kept)) return { status: kept, backwards: true };
  if (terminal(answered)) return { status: answered, backwards: false };
  return (RANK.get(answered) ?? 0) < (RANK.get(kept) ?? 0) ? { status: kept, backwards: true } : { status: answered, backwards: false };
}

/** Whole days since the claim was opened, for the list. */
export function daysSince(createdAt: string, now: number): number {
  return Math.max(0, Math.floor((now - Date.parse(createdAt)) / DAY_MS));
}
