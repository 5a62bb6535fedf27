/**
 * MED claims (pay-out fraud recovery), reference 2.6, 3.2, 4.6, 8: who may open a claim, the
 * tracked and operator-handled (`manual`) forms, the retryable re-open, the forward-only
 * status machine, and the per-IP rate limits. Plain serializable records and explicit times;
 * routes/med.ts turns outcomes into HTTP.
 *
 * Which pay-outs get the manual form (the reference says the caller cannot choose): every
 * pay-out is tracked unless the operator marks it manual through the control API
 * (`PUT /_sandbox/payouts/{service_id}/med`), so the fixture's pay-outs are all tracked.
 */
import { formatCents } from '../shared/money.ts';
import { newId } from './ids.ts';
import type { PayoutRecord, SandboxState } from './state.ts';
import { DAY_MS } from './settlement.ts';

export const MED_STATUSES = [
  'dispatching',
  'open',
  'tracking',
  'under_analysis',
  'analysed',
  'refunding',
  'closed',
  'cancelled',
] as const;
export type MedStatus = (typeof MED_STATUSES)[number];
const TERMINAL: ReadonlySet<MedStatus> = new Set(['closed', 'cancelled']);

/** reference 4.6: the reasons a claim may give; anything else is a 422. */
export const MED_REASONS = ['scam', 'account_takeover', 'coercion', 'credentials_stolen', 'other_fraud', 'unknown'] as const;
export type MedReason = (typeof MED_REASONS)[number];

export const MED_RESULTS = ['agreed', 'disagreed'] as const;
export type MedResult = (typeof MED_RESULTS)[number];

/** reference 8 */
export const MED_WINDOW_MS = 79 * DAY_MS;
export const DETAILS_MIN = 10;
export const DETAILS_MAX = 4000;
export const EXTERNAL_ID_MAX = 128;
export const LIST_LIMIT = { min: 1, max: 200, default: 50 } as const;
/** reference 8: requests per minute per IP address. */
export const MED_RATE_LIMITS = { open: 20, get: 60, list: 60 } as const;
/** How long an operator-handled claim stays "being processed, unconfirmed" (reference 4.6: "a few minutes"). */
export const MANUAL_CONFIRM_MS = 5 * 60_000;

/** reference 4.6: "send exactly as returned, case unchanged"; anything else is malformed (422). */
/**
 * Reference 4.6: send the id exactly as returned, case unchanged; a malformed one gives 422.
 * Malformed is what no id could be (another prefix, upper case, other characters); a
 * well-formed id that names no claim of the merchant is a 404 `not_found`.
 */
export const MED_CASE_ID_PATTERN = /^med_[0-9a-z]{1,64}$/;

export function newMedCaseId(): string {
  return newId('med_');
}

export interface MedClaimRecord {
  med_case_id: string;
  merchantId: number;
  service_id: string;
  e2e_id: string;
  status_id: MedStatus;
  result_id: MedResult | null;
  reason: MedReason;
  /** The text for the analysing bank; never returned (reference 2.6). Line breaks collapsed. */
  details: string;
  money_refunded: boolean;
  refunded_cents: number | null;
  external_id: string | null;
  created_at: number;
  /** Meaningful only while dispatching (outcome_hint.retryable). */
  retryable: boolean;
  /** Creation order, for newest-first lists. */
  seq: number;
}

/** An operator-handled claim: no med_case_id, not listed (reference 4.6 second form). */
export interface ManualClaimRecord {
  merchantId: number;
  service_id: string;
  received_at: number;
  /** Until then a repeat answers manual_claim_in_progress, afterwards manual_claim_already_sent. */
  confirmed_at: number;
}

/** The operator's choice for one pay-out (control API). */
export interface PayoutMedHandling {
  handling: 'tracked' | 'manual';
  /** `unconfirmed`: manual registrations answer claim_not_confirmed and record nothing. */
  manual_registration: 'confirmed' | 'unconfirmed';
}

/** What the MED domain keeps besides its claims (state.ext.med). */
export interface MedExtra {
  /** Operator-handled claims by `${merchantId}/${service_id}`. */
  manual: Record<string, ManualClaimRecord>;
  /** The operator's choice by pay-out service_id; absent means tracked. */
  handling: Record<string, PayoutMedHandling>;
  nextSeq: number;
}

/** The MED domain's slice of the sandbox state; the objects are the ones stored there. */
export interface MedBook {
  /** By med_case_id (state.medClaims). */
  claims: Record<string, MedClaimRecord>;
  extra: MedExtra;
}

export function emptyMedBook(): MedBook {
  return { claims: {}, extra: { manual: {}, handling: {}, nextSeq: 1 } };
}

/** The book over the sandbox state (read it per request: a reset replaces the contents). */
export function medBookOf(state: SandboxState): MedBook {
  let extra = state.ext['med'] as MedExtra | undefined;
  if (extra === undefined) {
    extra = emptyMedBook().extra;
    state.ext['med'] = extra;
  }
  return { claims: state.medClaims as Record<string, MedClaimRecord>, extra };
}

/**
 * Every reason's message, in one place. reference 4.6: messages are for people, currently
 * Spanish, and may change; callers branch on `reason`.
 */
export const MED_MESSAGE = {
  tracked: 'Reclamo MED registrado; se está enviando al banco. Consulte su estado en GET /v2/payout_meds/{med_case_id}.',
  reopened: 'Reclamo MED reenviado con el nuevo motivo y detalle; se está enviando al banco.',
  warning: 'El pago no tiene documento del pagador: el reclamo se envía igual, pero el banco puede tardar más en analizarlo.',
  manual: 'Reclamo recibido; lo gestiona el operador y no se puede seguir por la API. Consulte el resultado con soporte.',
  payout_not_found: 'Pago no encontrado.',
  already_exists: 'Ya existe un reclamo MED para este pago.',
  duplicate_external_id: 'El external_id ya se usa en otro reclamo de este comercio.',
  manual_claim_already_sent: 'El reclamo de este pago ya fue enviado al operador.',
  manual_claim_in_progress: 'Una solicitud anterior para este pago todavía se está procesando; repita en unos minutos.',
  outside_window: 'El pago tiene más de 79 días: está fuera del plazo para reclamar.',
  payout_date_unknown: 'No se conoce la fecha del pago.',
  e2e_not_resolved: 'El pago todavía no tiene identificador end-to-end.',
  evidence_upload_unavailable: 'El envío de archivos de evidencia no está disponible.',
  claim_not_confirmed: 'No se pudo confirmar el registro del reclamo; repetir puede crear un segundo reclamo.',
  not_found: 'Reclamo MED no encontrado.',
  rate_limited: 'Demasiadas solicitudes; espere un minuto.',
  hint_retryable: 'El proveedor rechazó el envío antes de llegar al Banco Central: puede reenviar el reclamo.',
  hint_wait: 'Aún sin confirmación del proveedor: no reenvíe, siga consultando.',
} as const;

export type MedErrorReason =
  | 'payout_not_found'
  | 'already_exists'
  | 'duplicate_external_id'
  | 'manual_claim_already_sent'
  | 'manual_claim_in_progress'
  | 'outside_window'
  | 'payout_date_unknown'
  | 'e2e_not_resolved'
  | 'evidence_upload_unavailable'
  | 'claim_not_confirmed';

/** reference 4.6 error table: the status of each reason ("unprocessable" is 422). */
export const MED_ERROR_STATUS: Readonly<Record<MedErrorReason, number>> = {
  payout_not_found: 404,
  already_exists: 409,
  duplicate_external_id: 409,
  manual_claim_already_sent: 409,
  manual_claim_in_progress: 409,
  outside_window: 422,
  payout_date_unknown: 422,
  e2e_not_resolved: 422,
  evidence_upload_unavailable: 422,
  // reference 4.6 says only "error": the registration went to the operator and no answer came back
  claim_not_confirmed: 502,
};

/** A POST body that passed validation. */
export interface OpenClaimRequest {
  reason: MedReason;
  details: string;
  /** undefined when not sent (re-open keeps the old one, reference 3.2). */
  external_id: string | undefined;
  filesSent: boolean;
}

export type OpenClaimOutcome =
  | { kind: 'error'; status: number; reason: MedErrorReason; message: string; extra: Record<string, unknown> }
  | { kind: 'accepted'; body: Record<string, unknown> };

function fail(reason: MedErrorReason, extra: Record<string, unknown> = {}): OpenClaimOutcome {
  return { kind: 'error', status: MED_ERROR_STATUS[reason], reason, message: MED_MESSAGE[reason], extra };
}

/** reference 4.6: line breaks are collapsed into spaces in the fixed template. */
export function collapseLineBreaks(details: string): string {
  return details.replace(/[\r\n]+/g, ' ');
}

function manualKey(merchantId: number, serviceId: string): string {
  return `${merchantId}/${serviceId}`;
}

function claimForPayout(book: MedBook, merchantId: number, serviceId: string): MedClaimRecord | undefined {
  return Object.values(book.claims).find((c) => c.merchantId === merchantId && c.service_id === serviceId);
}

function trackedAccepted(claim: MedClaimRecord, payout: PayoutRecord, message: string): OpenClaimOutcome {
  const body: Record<string, unknown> = { med_case_id: claim.med_case_id, status_id: claim.status_id, message };
  // reference 4.6: accepted without payer details, but the response carries a warning
  if (payout.payer_document === null) body['warning'] = MED_MESSAGE.warning;
  return { kind: 'accepted', body };
}

/**
 * `POST /v2/payout_meds` after validation. `payout` is the merchant's pay-out or null (a
 * missing and a foreign pay-out look the same, reference 4.6). Mutates the book on success.
 */
export function openClaim(
  book: MedBook,
  input: { merchantId: number; payout: PayoutRecord | null; request: OpenClaimRequest; now: number; newId: () => string },
): OpenClaimOutcome {
  const { merchantId, payout, request, now } = input;
  if (request.filesSent) return fail('evidence_upload_unavailable');
  if (payout === null || payout.merchant_id !== merchantId) return fail('payout_not_found');
  const existing = claimForPayout(book, merchantId, payout.service_id);
  // reference 8: external_id is unique across the merchant's claims (its own claim may keep it)
  if (
    request.external_id !== undefined &&
    Object.values(book.claims).some(
      (c) => c.merchantId === merchantId && c.external_id === request.external_id && c !== existing,
    )
  ) {
    return fail('duplicate_external_id');
  }
  // reference 3.2: only a dispatching claim the provider rejected (retryable) can be re-opened;
  // any other existing claim, cancelled included, answers already_exists with its id and status
  if (existing !== undefined && !(existing.status_id === 'dispatching' && existing.retryable)) {
    return fail('already_exists', { med_case_id: existing.med_case_id, status_id: existing.status_id });
  }
  const handling = book.extra.handling[payout.service_id] ?? { handling: 'tracked', manual_registration: 'confirmed' };
  const manual = existing === undefined && handling.handling === 'manual';
  if (manual) {
    const previous = book.extra.manual[manualKey(merchantId, payout.service_id)];
    if (previous !== undefined) {
      return fail(now < previous.confirmed_at ? 'manual_claim_in_progress' : 'manual_claim_already_sent');
    }
  }
  if (payout.created_at === null) return fail('payout_date_unknown');
  // reference 8: the central bank accepts 80 days; the service takes claims within 79
  if (now - payout.created_at > MED_WINDOW_MS) return fail('outside_window');
  if (manual) {
    if (handling.manual_registration === 'unconfirmed') return fail('claim_not_confirmed');
    book.extra.manual[manualKey(merchantId, payout.service_id)] = {
      merchantId,
      service_id: payout.service_id,
      received_at: now,
      confirmed_at: now + MANUAL_CONFIRM_MS,
    };
    return { kind: 'accepted', body: { outcome: 'manual', handling: 'manual', med_case_id: null, message: MED_MESSAGE.manual } };
  }
  // reference 4.6: a tracked claim needs the pay-out's end-to-end id
  if (payout.e2e_id === null) return fail('e2e_not_resolved');
  const details = collapseLineBreaks(request.details);
  if (existing !== undefined) {
    // reference 3.2: same med_case_id, new reason and details, external_id only if sent
    existing.reason = request.reason;
    existing.details = details;
    if (request.external_id !== undefined) existing.external_id = request.external_id;
    existing.retryable = false;
    return trackedAccepted(existing, payout, MED_MESSAGE.reopened);
  }
  const claim: MedClaimRecord = {
    med_case_id: input.newId(),
    merchantId,
    service_id: payout.service_id,
    e2e_id: payout.e2e_id,
    status_id: 'dispatching',
    result_id: null,
    reason: request.reason,
    details,
    money_refunded: false,
    refunded_cents: null,
    external_id: request.external_id ?? null,
    created_at: now,
    retryable: false,
    seq: book.extra.nextSeq++,
  };
  book.claims[claim.med_case_id] = claim;
  return trackedAccepted(claim, payout, MED_MESSAGE.tracked);
}

/** reference 2.6: the claim as get and list return it. */
export function claimView(c: MedClaimRecord): Record<string, unknown> {
  const view: Record<string, unknown> = {
    med_case_id: c.med_case_id,
    service_id: c.service_id,
    e2e_id: c.e2e_id,
    status_id: c.status_id,
    result_id: c.result_id,
    reason: c.reason,
    money_refunded: c.money_refunded,
    refunded_amount: c.refunded_cents === null ? null : formatCents(c.refunded_cents),
    external_id: c.external_id,
    created_at: new Date(c.created_at).toISOString(),
  };
  // reference 2.6: outcome_hint only while dispatching
  if (c.status_id === 'dispatching') {
    view['outcome_hint'] = { retryable: c.retryable, message: c.retryable ? MED_MESSAGE.hint_retryable : MED_MESSAGE.hint_wait };
  }
  return view;
}

/** reference 5 rule 4: another merchant's claim is answered as a missing one. */
export function findClaim(book: MedBook, merchantId: number, medCaseId: string): MedClaimRecord | null {
  const c = book.claims[medCaseId];
  return c !== undefined && c.merchantId === merchantId ? c : null;
}

/** reference 4.6: newest first; operator-handled claims never appear. */
export function listClaims(book: MedBook, merchantId: number, limit: number): MedClaimRecord[] {
  return Object.values(book.claims)
    .filter((c) => c.merchantId === merchantId)
    .sort((a, b) => b.created_at - a.created_at || b.seq - a.seq)
    .slice(0, limit);
}

// ---------------------------------------------------------------------------------------
// The operator moves a claim (control API): forward only

export interface AdvanceRequest {
  status: MedStatus;
  money_refunded?: boolean;
  refunded_cents?: number;
  result_id?: MedResult | null;
  retryable?: boolean;
}

export type AdvanceOutcome =
  | { ok: true }
  /** 409: the move would go backwards or out of a terminal status. */
  | { ok: false; status: 409; detail: string }
  /** 422: the fields contradict each other; `field` names the offending one. */
  | { ok: false; status: 422; field: string; message: string };

/** Position in the forward order; `cancelled` may follow any non-terminal status. */
function rank(s: MedStatus): number {
  return s === 'cancelled' ? MED_STATUSES.indexOf('closed') : MED_STATUSES.indexOf(s);
}

/** reference 3.2: "status_id only moves forward, never to an earlier status". */
export function advanceClaim(claim: MedClaimRecord, payoutCents: number, req: AdvanceRequest): AdvanceOutcome {
  if (TERMINAL.has(claim.status_id)) {
    return { ok: false, status: 409, detail: `MED claim ${claim.med_case_id} is ${claim.status_id}, a terminal status: it does not move any more` };
  }
  if (rank(req.status) < rank(claim.status_id)) {
    return { ok: false, status: 409, detail: `MED claim status only moves forward: ${claim.status_id} -> ${req.status} goes backwards` };
  }
  if (req.retryable !== undefined && req.status !== 'dispatching') {
    return { ok: false, status: 422, field: 'retryable', message: 'retryable applies only while status is dispatching' };
  }
  if (req.money_refunded === false && (claim.money_refunded || req.refunded_cents !== undefined)) {
    return claim.money_refunded
      ? { ok: false, status: 409, detail: 'money_refunded only moves from false to true' }
      : { ok: false, status: 422, field: 'refunded_amount', message: 'refunded_amount requires money_refunded true' };
  }
  const moneyRefunded = req.money_refunded ?? (req.refunded_cents !== undefined ? true : claim.money_refunded);
  const refundedCents = req.refunded_cents ?? claim.refunded_cents;
  if (moneyRefunded && refundedCents === null) {
    return { ok: false, status: 422, field: 'refunded_amount', message: 'refunded_amount is required when money_refunded is true' };
  }
  // reference 2.6: "may be less than the pay-out amount", never more
  if (refundedCents !== null && (refundedCents <= 0 || refundedCents > payoutCents)) {
    return { ok: false, status: 422, field: 'refunded_amount', message: `refunded_amount must be above 0.00 and at most ${formatCents(payoutCents)}` };
  }
  claim.status_id = req.status;
  claim.retryable = req.status === 'dispatching' ? (req.retryable ?? claim.retryable) : false;
  claim.money_refunded = moneyRefunded;
  claim.refunded_cents = refundedCents;
  if (req.result_id !== undefined) claim.result_id = req.result_id;
  return { ok: true };
}

// ---------------------------------------------------------------------------------------
// Rate limits (reference 8): a sliding minute of sandbox time per IP and endpoint

export class SlidingWindowLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #hits = new Map<string, number[]>();

  constructor(limit: number, windowMs = 60_000) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  /** Counts a request; returns null when allowed, or the seconds until one is allowed again. */
  hit(key: string, now: number): number | null {
    const recent = (this.#hits.get(key) ?? []).filter((t) => t > now - this.#windowMs);
    if (recent.length >= this.#limit) {
      this.#hits.set(key, recent);
      const oldest = recent[0] ?? now;
      return Math.max(1, Math.ceil((oldest + this.#windowMs - now) / 1000));
    }
    recent.push(now);
    this.#hits.set(key, recent);
    return null;
  }

  clear(): void {
    this.#hits.clear();
  }
}
