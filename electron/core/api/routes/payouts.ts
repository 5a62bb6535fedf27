/** Pay-outs (contract 5) and their fraud-recovery (MED) claims (reference 2.6, 3.2, 4.6). */
import { v } from '../../../shared/schema.ts';
import {
  centsOrNull,
  datetime,
  datetimeOrNull,
  decodeAnswer,
  flag,
  list,
  oneOf,
  oneOfOrNull,
  record,
  recordOrNull,
  text,
  textOrNull,
  withAmounts,
} from '../decode.ts';
import { PAY_OUT, route } from './route.ts';

// ── Pay-outs (contract 5) ────────────────────────────────────────────────────────────────

const PAYOUT = withAmounts(
  {
    currency: text,
    service_id: text,
    external_id: textOrNull,
    /** Null until the bank processed it; a tracked MED claim needs it. */
    e2e_id: textOrNull,
    payer_document: textOrNull,
    created_at: datetimeOrNull,
  },
  { amount: { currency: 'currency' } },
);
export type Payout = v.InferOutput<typeof PAYOUT>;

export interface PageQuery {
  limit?: number;
  offset?: number;
}

// ── MED claims (reference 2.6, 3.2, 4.6) ─────────────────────────────────────────────────

export const MED_REASONS = ['scam', 'account_takeover', 'coercion', 'credentials_stolen', 'other_fraud', 'unknown'] as const;
export type MedReason = (typeof MED_REASONS)[number];

export const MED_STATUSES = ['dispatching', 'open', 'tracking', 'under_analysis', 'analysed', 'refunding', 'closed', 'cancelled'] as const;
export type MedStatus = (typeof MED_STATUSES)[number];

/** Reference 4.6: exactly one of service_id and payout_external_id. */
export type OpenMedClaimInput = (
  | { service_id: string; payout_external_id?: undefined }
  | { payout_external_id: string; service_id?: undefined }
) & {
  reason: MedReason;
  /** 10 to 4000 characters; line breaks are collapsed by the service. */
  details: string;
  external_id?: string;
};

/** Reference 4.6: the 202 of a claim the service follows itself. */
const MED_TRACKED = v.pipe(
  record({ med_case_id: text, status_id: oneOf(['dispatching']), message: text, warning: textOrNull }),
  v.transform((opening) => ({ handling: 'tracked' as const, ...opening })),
);

/** Reference 4.6: the operator-handled form has outcome/handling `manual` and a null med_case_id. */
const MED_MANUAL = v.pipe(
  record({ message: text }),
  v.transform(({ message }) => ({ handling: 'manual' as const, med_case_id: null, message })),
);

/** Reference 4.6: 202 in one of two forms the caller cannot choose. */
export type MedOpening = v.InferOutput<typeof MED_TRACKED> | v.InferOutput<typeof MED_MANUAL>;

function decodeMedOpening(body: unknown): MedOpening {
  if (body !== null && typeof body === 'object') {
    const { handling, outcome } = body as Record<string, unknown>;
    if (handling === 'manual' || outcome === 'manual') return decodeAnswer(MED_MANUAL, body);
  }
  return decodeAnswer(MED_TRACKED, body);
}

const MED_CLAIM = v.pipe(
  record({
    med_case_id: text,
    service_id: text,
    e2e_id: text,
    status_id: oneOf(MED_STATUSES),
    /** Must not be used to infer whether money came back (reference 2.6). */
    result_id: oneOfOrNull(['agreed', 'disagreed']),
    reason: text,
    money_refunded: flag,
    refunded_amount: centsOrNull,
    external_id: textOrNull,
    created_at: datetime,
    /** Only while dispatching (reference 4.6). */
    outcome_hint: recordOrNull({ retryable: flag, message: text }),
  }),
  v.transform(({ refunded_amount, ...claim }) => ({ ...claim, refunded_cents: refunded_amount })),
);
export type MedClaim = v.InferOutput<typeof MED_CLAIM>;

export const PAYOUT_ROUTES = {
  'payouts.list': route({
    method: 'GET',
    path: '/v2/payouts',
    action: 'list the pay-outs',
    access: PAY_OUT,
    retry: 'always',
    success: [200],
    assumptions: ['Pay-out record as contract 5; the list answers a JSON array of them.'],
    encode: (query: PageQuery) => ({ query: { ...query } }),
    decode: (body) => decodeAnswer(list(PAYOUT), body),
  }),
  'payouts.get': route({
    method: 'GET',
    path: '/v2/payouts/{service_id}',
    action: 'read the pay-out',
    access: PAY_OUT,
    retry: 'always',
    success: [200],
    assumptions: ['Pay-out record as contract 5.'],
    encode: (input: { service_id: string }) => ({ params: { service_id: input.service_id } }),
    decode: (body) => decodeAnswer(PAYOUT, body),
  }),
  'meds.open': route({
    method: 'POST',
    path: '/v2/payout_meds',
    action: 'open the fraud-recovery (MED) claim',
    access: PAY_OUT,
    // Reference 4.6: claim_not_confirmed warns that a repeat may open a second claim.
    retry: 'never',
    success: [202],
    assumptions: ['Access is pay_out with manager or supervisor (contract 1).'],
    encode: (input: OpenMedClaimInput) => ({ body: input }),
    decode: (body) => decodeMedOpening(body),
  }),
  'meds.get': route({
    method: 'GET',
    path: '/v2/payout_meds/{med_case_id}',
    action: 'read the MED claim',
    access: PAY_OUT,
    retry: 'always',
    success: [200],
    assumptions: [],
    encode: (input: { med_case_id: string }) => ({ params: { med_case_id: input.med_case_id } }),
    decode: (body) => decodeAnswer(MED_CLAIM, body),
  }),
  'meds.list': route({
    method: 'GET',
    path: '/v2/payout_meds',
    action: 'list the MED claims',
    access: PAY_OUT,
    retry: 'always',
    success: [200],
    assumptions: [],
    encode: (query: { limit?: number }) => ({ query: { ...query } }),
    decode: (body) => decodeAnswer(list(MED_CLAIM), body),
  }),
} as const;
