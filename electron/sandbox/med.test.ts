import { describe, expect, it } from 'vitest';
import {
  MANUAL_CONFIRM_MS,
  MED_CASE_ID_PATTERN,
  MED_STATUSES,
  MED_WINDOW_MS,
  SlidingWindowLimiter,
  advanceClaim,
  claimView,
  emptyMedBook,
  findClaim,
  listClaims,
  newMedCaseId,
  openClaim,
  type MedBook,
  type MedClaimRecord,
  type MedStatus,
  type OpenClaimRequest,
} from './med.ts';
import type { PayoutRecord } from './state.ts';

const NOW = Date.UTC(2026, 10, 21, 13, 45, 0);
const DAY = 86_400_000;

function payout(overrides: Partial<PayoutRecord> = {}): PayoutRecord {
  return {
    service_id: 'po_1',
    merchant_id: 1,
    external_id: 'ext_po_1',
    amount_cents: 15_000,
    currency: 'BRL',
    e2e_id: 'E12345678202611191200abcdefghijk',
    payer_document: '12345678909',
    created_at: NOW - 2 * DAY,
    ...overrides,
  };
}

const REQUEST: OpenClaimRequest = { reason: 'scam', details: 'Golpe por WhatsApp,\nvítima enganada', external_id: undefined, filesSent: false };

let ids = 0;
function open(book: MedBook, p: PayoutRecord | null, request: Partial<OpenClaimRequest> = {}, now = NOW, merchantId = 1) {
  return openClaim(book, { merchantId, payout: p, request: { ...REQUEST, ...request }, now, newId: () => `med_${String(++ids).padStart(24, '0')}` });
}

function onlyClaim(book: MedBook): MedClaimRecord {
  const claims = Object.values(book.claims);
  expect(claims).toHaveLength(1);
  return claims[0]!;
}

describe('openClaim: tracked form (reference 4.6)', () => {
  it('records a dispatching claim before anything else happens', () => {
    const book = emptyMedBook();
    const outcome = open(book, payout(), { external_id: 'case-1' });
    expect(outcome).toEqual({
      kind: 'accepted',
      body: { med_case_id: expect.stringMatching(/^med_/), status_id: 'dispatching', message: expect.any(String) },
    });
    const claim = onlyClaim(book);
    expect(claim).toMatchObject({ status_id: 'dispatching', retryable: false, money_refunded: false, refunded_cents: null, external_id: 'case-1', e2e_id: payout().e2e_id });
    // reference 4.6: line breaks collapsed into spaces
    expect(claim.details).toBe('Golpe por WhatsApp, vítima enganada');
  });

  it('warns when the pay-out has no payer document, and still accepts', () => {
    const outcome = open(emptyMedBook(), payout({ payer_document: null }));
    expect(outcome.kind).toBe('accepted');
    expect(outcome.kind === 'accepted' && outcome.body['warning']).toEqual(expect.any(String));
  });

  it('carries no warning when the payer document is set', () => {
    const outcome = open(emptyMedBook(), payout());
    expect(outcome.kind === 'accepted' && 'warning' in outcome.body).toBe(false);
  });

  it.each([
    ['files sent', payout(), { filesSent: true }, 422, 'evidence_upload_unavailable'],
    ['no such pay-out', null, {}, 404, 'payout_not_found'],
    ['another merchant pay-out', payout({ merchant_id: 2 }), {}, 404, 'payout_not_found'],
    ['undated pay-out', payout({ created_at: null }), {}, 422, 'payout_date_unknown'],
    ['90 days old', payout({ created_at: NOW - 90 * DAY }), {}, 422, 'outside_window'],
    ['79 days and a second', payout({ created_at: NOW - MED_WINDOW_MS - 1000 }), {}, 422, 'outside_window'],
    ['no end-to-end id', payout({ e2e_id: null }), {}, 422, 'e2e_not_resolved'],
  ] as const)('%s -> %s %s', (_name, p, request, status, reason) => {
    const book = emptyMedBook();
    expect(open(book, p, request)).toMatchObject({ kind: 'error', status, reason, message: expect.any(String) });
    expect(book.claims).toEqual({});
  });

  it('accepts a pay-out exactly 79 days old', () => {
    expect(open(emptyMedBook(), payout({ created_at: NOW - MED_WINDOW_MS })).kind).toBe('accepted');
  });

  it('allows one claim per pay-out: the second gets already_exists with id and status', () => {
    const book = emptyMedBook();
    open(book, payout());
    const claim = onlyClaim(book);
    expect(open(book, payout(), { reason: 'coercion' })).toMatchObject({
      kind: 'error',
      status: 409,
      reason: 'already_exists',
      extra: { med_case_id: claim.med_case_id, status_id: 'dispatching' },
    });
    expect(claim.reason).toBe('scam');
  });

  it('refuses an external_id another claim of the merchant uses, but not another merchant', () => {
    const book = emptyMedBook();
    open(book, payout(), { external_id: 'dup' });
    expect(open(book, payout({ service_id: 'po_2' }), { external_id: 'dup' })).toMatchObject({ status: 409, reason: 'duplicate_external_id' });
    expect(open(book, payout({ service_id: 'po_3', merchant_id: 2 }), { external_id: 'dup' }, NOW, 2).kind).toBe('accepted');
  });

  it('checks files before anything else, even for a missing pay-out', () => {
    expect(open(emptyMedBook(), null, { filesSent: true })).toMatchObject({ reason: 'evidence_upload_unavailable' });
  });
});

describe('retryable re-open (reference 3.2)', () => {
  function rejected(): { book: MedBook; claim: MedClaimRecord } {
    const book = emptyMedBook();
    open(book, payout(), { external_id: 'first' });
    const claim = onlyClaim(book);
    expect(advanceClaim(claim, 15_000, { status: 'dispatching', retryable: true })).toEqual({ ok: true });
    return { book, claim };
  }

  it('keeps the med_case_id, takes the new reason and details, retryable back to false', () => {
    const { book, claim } = rejected();
    const outcome = open(book, payout(), { reason: 'account_takeover', details: 'Conta invadida pelo golpista' });
    expect(outcome).toMatchObject({ kind: 'accepted', body: { med_case_id: claim.med_case_id, status_id: 'dispatching' } });
    expect(onlyClaim(book)).toMatchObject({ reason: 'account_takeover', details: 'Conta invadida pelo golpista', retryable: false, external_id: 'first' });
  });

  it('replaces external_id only when sent', () => {
    const { book } = rejected();
    open(book, payout(), { external_id: 'second' });
    expect(onlyClaim(book).external_id).toBe('second');
  });

  it('a second re-open while the first is in progress gets already_exists with dispatching', () => {
    const { book, claim } = rejected();
    open(book, payout());
    expect(open(book, payout())).toMatchObject({ status: 409, reason: 'already_exists', extra: { med_case_id: claim.med_case_id, status_id: 'dispatching' } });
  });

  it('a cancelled claim cannot be reopened', () => {
    const book = emptyMedBook();
    open(book, payout());
    const claim = onlyClaim(book);
    expect(advanceClaim(claim, 15_000, { status: 'cancelled' })).toEqual({ ok: true });
    expect(open(book, payout())).toMatchObject({ status: 409, reason: 'already_exists', extra: { status_id: 'cancelled' } });
  });
});

describe('operator-handled form', () => {
  function manualBook(registration: 'confirmed' | 'unconfirmed' = 'confirmed'): MedBook {
    const book = emptyMedBook();
    book.extra.handling['po_1'] = { handling: 'manual', manual_registration: registration };
    return book;
  }

  it('answers manual, records no trackable claim', () => {
    const book = manualBook();
    expect(open(book, payout({ e2e_id: null }))).toEqual({
      kind: 'accepted',
      body: { outcome: 'manual', handling: 'manual', med_case_id: null, message: expect.any(String) },
    });
    expect(book.claims).toEqual({});
    expect(listClaims(book, 1, 50)).toEqual([]);
  });

  it('a repeat is in progress for a few minutes, then already sent', () => {
    const book = manualBook();
    open(book, payout());
    expect(open(book, payout(), {}, NOW + MANUAL_CONFIRM_MS - 1)).toMatchObject({ status: 409, reason: 'manual_claim_in_progress' });
    expect(open(book, payout(), {}, NOW + MANUAL_CONFIRM_MS)).toMatchObject({ status: 409, reason: 'manual_claim_already_sent' });
  });

  it('an unconfirmed registration records nothing, so a repeat goes through', () => {
    const book = manualBook('unconfirmed');
    expect(open(book, payout())).toMatchObject({ kind: 'error', status: 502, reason: 'claim_not_confirmed' });
    expect(book.extra.manual).toEqual({});
    book.extra.handling['po_1'] = { handling: 'manual', manual_registration: 'confirmed' };
    expect(open(book, payout()).kind).toBe('accepted');
  });

  it('still applies the window and the date rules', () => {
    expect(open(manualBook(), payout({ created_at: null }))).toMatchObject({ reason: 'payout_date_unknown' });
    expect(open(manualBook(), payout({ created_at: NOW - 90 * DAY }))).toMatchObject({ reason: 'outside_window' });
  });
});

describe('advanceClaim: forward only (reference 3.2)', () => {
  function claimAt(status: MedStatus): MedClaimRecord {
    const book = emptyMedBook();
    open(book, payout());
    const claim = onlyClaim(book);
    claim.status_id = status;
    return claim;
  }

  const forward: [MedStatus, MedStatus][] = [];
  const backward: [MedStatus, MedStatus][] = [];
  const nonTerminal = MED_STATUSES.filter((s) => s !== 'closed' && s !== 'cancelled');
  for (const from of nonTerminal) {
    for (const to of MED_STATUSES) {
      const fromIndex = MED_STATUSES.indexOf(from);
      const toIndex = to === 'cancelled' ? 99 : MED_STATUSES.indexOf(to);
      (toIndex >= fromIndex ? forward : backward).push([from, to]);
    }
  }

  it.each(forward)('%s -> %s is allowed', (from, to) => {
    const claim = claimAt(from);
    expect(advanceClaim(claim, 15_000, { status: to })).toEqual({ ok: true });
    expect(claim.status_id).toBe(to);
  });

  it.each(backward)('%s -> %s is refused with 409', (from, to) => {
    const claim = claimAt(from);
    expect(advanceClaim(claim, 15_000, { status: to })).toMatchObject({ ok: false, status: 409 });
    expect(claim.status_id).toBe(from);
  });

  it.each(['closed', 'cancelled'] as const)('nothing moves out of %s', (terminal) => {
    const claim = claimAt(terminal);
    for (const to of MED_STATUSES) expect(advanceClaim(claim, 15_000, { status: to })).toMatchObject({ ok: false, status: 409 });
  });

  it('retryable only while dispatching, and cleared on leaving it', () => {
    const claim = claimAt('dispatching');
    expect(advanceClaim(claim, 15_000, { status: 'open', retryable: true })).toMatchObject({ ok: false, status: 422, field: 'retryable' });
    expect(advanceClaim(claim, 15_000, { status: 'dispatching', retryable: true })).toEqual({ ok: true });
    expect(claimView(claim)['outcome_hint']).toEqual({ retryable: true, message: expect.any(String) });
    expect(advanceClaim(claim, 15_000, { status: 'open' })).toEqual({ ok: true });
    expect(claim.retryable).toBe(false);
    expect('outcome_hint' in claimView(claim)).toBe(false);
  });

  it('money: refunded_amount implies money_refunded, never above the pay-out, never back to false', () => {
    const claim = claimAt('refunding');
    expect(advanceClaim(claim, 15_000, { status: 'refunding', money_refunded: true })).toMatchObject({ status: 422, field: 'refunded_amount' });
    expect(advanceClaim(claim, 15_000, { status: 'refunding', refunded_cents: 15_001 })).toMatchObject({ status: 422, field: 'refunded_amount' });
    expect(advanceClaim(claim, 15_000, { status: 'refunding', money_refunded: false, refunded_cents: 100 })).toMatchObject({ status: 422 });
    expect(advanceClaim(claim, 15_000, { status: 'closed', refunded_cents: 12_000, result_id: 'agreed' })).toEqual({ ok: true });
    expect(claimView(claim)).toMatchObject({ status_id: 'closed', money_refunded: true, refunded_amount: '120.00', result_id: 'agreed' });
    const other = claimAt('refunding');
    advanceClaim(other, 15_000, { status: 'refunding', refunded_cents: 500 });
    expect(advanceClaim(other, 15_000, { status: 'refunding', money_refunded: false })).toMatchObject({ status: 409 });
  });
});

describe('views and lookups', () => {
  it('never shows the details text, shows outcome_hint while dispatching', () => {
    const book = emptyMedBook();
    open(book, payout(), { external_id: 'x1' });
    const view = claimView(onlyClaim(book));
    expect(Object.keys(view).sort()).toEqual(
      ['created_at', 'e2e_id', 'external_id', 'med_case_id', 'money_refunded', 'outcome_hint', 'reason', 'refunded_amount', 'result_id', 'service_id', 'status_id'].sort(),
    );
    expect(view['outcome_hint']).toEqual({ retryable: false, message: expect.any(String) });
  });

  it('finds only the merchant own claim and lists newest first', () => {
    const book = emptyMedBook();
    open(book, payout(), {}, NOW);
    open(book, payout({ service_id: 'po_2' }), {}, NOW + 1);
    open(book, payout({ service_id: 'po_3', merchant_id: 2 }), {}, NOW + 2, 2);
    const list = listClaims(book, 1, 50);
    expect(list.map((c) => c.service_id)).toEqual(['po_2', 'po_1']);
    expect(listClaims(book, 1, 1).map((c) => c.service_id)).toEqual(['po_2']);
    expect(findClaim(book, 1, list[0]!.med_case_id)).toBe(list[0]);
    const foreign = listClaims(book, 2, 50)[0]!;
    expect(findClaim(book, 1, foreign.med_case_id)).toBeNull();
  });

  it('makes ids that match the published pattern', () => {
    for (let i = 0; i < 20; i++) expect(newMedCaseId()).toMatch(MED_CASE_ID_PATTERN);
    expect('MED_0123456789abcdef01234567').not.toMatch(MED_CASE_ID_PATTERN);
  });
});

describe('SlidingWindowLimiter (reference 8)', () => {
  it('allows the limit per minute, then tells how long to wait', () => {
    const limiter = new SlidingWindowLimiter(3);
    expect([0, 10, 20].map((t) => limiter.hit('ip', NOW + t * 1000))).toEqual([null, null, null]);
    expect(limiter.hit('ip', NOW + 30_000)).toBe(30);
    expect(limiter.hit('other-ip', NOW + 30_000)).toBeNull();
    expect(limiter.hit('ip', NOW + 60_000)).toBe(null);
  });

  it('forgets everything on clear', () => {
    const limiter = new SlidingWindowLimiter(1);
    limiter.hit('ip', NOW);
    expect(limiter.hit('ip', NOW)).not.toBeNull();
    limiter.clear();
    expect(limiter.hit('ip', NOW)).toBeNull();
  });
});
