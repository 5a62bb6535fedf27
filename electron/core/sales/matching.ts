/**
 * Which sale a payment report (charge.paid, Tx Status paid/refunded) or a charge.done
 * belongs to. The one rule of the app: the terminal calls it for every report it takes in
 * and for every report it tries again, and its tests call it too.
 *
 * Reference 4.5 rule 6: a report belongs to a sale by pix_id or service_id, never by amount,
 * time or checkout. Anything less than one sale that both ids agree on is kept apart for a
 * person, with the reason; nothing is decided by which sale an index happened to list first.
 *
 * Pure: the caller finds the candidate sales (every sale holding the report's pix_id, every
 * sale holding its service_id) and journals the outcome.
 */
import { contradictsIdentity } from './lifecycle.ts';
import type { PaymentReport, Sale } from './lifecycle.ts';

export type UnmatchedReason =
  /** The report names neither pix_id nor service_id. */
  | 'no_ids'
  /** Its ids name no sale we know (yet: it is matched again when a sale learns its ids). */
  | 'unknown_ids'
  /** pix_id names one sale and service_id another, or the sale found holds the other id differently. */
  | 'ids_conflict'
  /** One id is held by more than one sale. */
  | 'ambiguous';

export const UNMATCHED_REASONS: readonly UnmatchedReason[] = ['no_ids', 'unknown_ids', 'ids_conflict', 'ambiguous'];

/** The sales that hold the report's ids, as the journal's indexes find them. */
export interface MatchCandidates {
  readonly byPixId: readonly Sale[];
  readonly byServiceId: readonly Sale[];
}

export type MatchOutcome =
  | { readonly kind: 'sale'; readonly sale: Sale }
  | { readonly kind: 'unmatched'; readonly reason: UnmatchedReason; readonly candidates: readonly string[] };

/**
 * A person ties a report nobody could match to a sale: typically the payment of an
 * `uncertain` sale whose 201 never reached us. Matching by ids stays the only automatic rule
 * (reference 4.5 rule 6); this is a person's decision, journaled with who and when, beside
 * the report it ties. It does not teach the sale ids.
 */
export interface PaymentAttributed {
  readonly type: 'payment.attributed';
  /** `reportKey` of the report kept apart: a payment, or its charge.done. */
  readonly payment_key: string;
  readonly sale_id: string;
  readonly by: string;
  readonly at: number;
}

const unique = (sales: readonly Sale[]): Sale[] => [...new Map(sales.map((s) => [s.sale_id, s])).values()];

export function matchReport(report: PaymentReport, candidates: MatchCandidates): MatchOutcome {
  if (!report.pix_id && !report.service_id) return { kind: 'unmatched', reason: 'no_ids', candidates: [] };
  const byPix = report.pix_id ? unique(candidates.byPixId.filter((s) => s.pix_id === report.pix_id)) : [];
  const byService = report.service_id ? unique(candidates.byServiceId.filter((s) => s.service_id === report.service_id)) : [];
  const named = unique([...byPix, ...byService]).map((s) => s.sale_id).sort();
  if (byPix.length > 1 || byService.length > 1) return { kind: 'unmatched', reason: 'ambiguous', candidates: named };
  const [pix] = byPix;
  const [service] = byService;
  if (pix && service && pix.sale_id !== service.sale_id) return { kind: 'unmatched', reason: 'ids_conflict', candidates: named };
  const sale = pix ?? service;
  if (!sale) return { kind: 'unmatched', reason: 'unknown_ids', candidates: [] };
  // The lifecycle refuses a report whose other id contradicts the sale's identity: its rule, not a
  // copy, asked without applying the report (the fold applies it once, issue 9).
  if (contradictsIdentity(sale, report)) return { kind: 'unmatched', reason: 'ids_conflict', candidates: named };
  return { kind: 'sale', sale };
}
