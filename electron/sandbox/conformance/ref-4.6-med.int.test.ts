/**
 * Reference 4.6 (MED claims), with 2.6 (fields), 3.2 (statuses), 7 (error bodies) and 8
 * (limits), through HTTP against a sandbox started in-process on loopback. The control API
 * plays the provider and the operator (contract 7).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { PAYOUT_CASHIER_TOKEN, TOKENS, addPayoutCashierToken, useHarness, type Answer, type Harness } from './payout-settlement-harness.ts';


const DETAILS = 'Golpe pelo WhatsApp: a vítima transferiu achando que pagava um boleto.';
const CLAIM_FIELDS = ['created_at', 'e2e_id', 'external_id', 'med_case_id', 'money_refunded', 'reason', 'refunded_amount', 'result_id', 'service_id', 'status_id'];

// Reset before each test, which also forgets the minute's rate-limit counts.
const h: Harness = useHarness();

function open(body: Record<string, unknown>, token: string = TOKENS.manager): Promise<Answer> {
  return h.api('POST', '/v2/payout_meds', token, body);
}

function claimBody(serviceId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { service_id: serviceId, reason: 'scam', details: DETAILS, ...extra };
}

async function openOk(serviceId = 'po_fixture_ok', extra: Record<string, unknown> = {}): Promise<string> {
  const r = await open(claimBody(serviceId, extra));
  expect(r.status).toBe(202);
  return r.body.med_case_id;
}

function get(id: string, token: string = TOKENS.manager): Promise<Answer> {
  return h.api('GET', `/v2/payout_meds/${id}`, token);
}

function advance(id: string, body: Record<string, unknown>): Promise<Answer> {
  return h.control('POST', `/_sandbox/med/${id}/advance`, body);
}

function expectReason(r: Answer, status: number, reason: string): void {
  expect(r.status).toBe(status);
  expect(r.body.detail).toMatchObject({ reason, message: expect.any(String) });
}

describe('POST /v2/payout_meds: tracked form', () => {
  it('answers 202 with med_case_id, status dispatching and a message; get shows the claim', async () => {
    const r = await open(claimBody('po_fixture_ok', { external_id: 'case-1' }));
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ med_case_id: expect.stringMatching(/^med_/), status_id: 'dispatching', message: expect.any(String) });
    const claim = await get(r.body.med_case_id);
    expect(claim.status).toBe(200);
    expect(claim.body).toEqual({
      med_case_id: r.body.med_case_id,
      service_id: 'po_fixture_ok',
      e2e_id: expect.stringMatching(/^E/),
      status_id: 'dispatching',
      result_id: null,
      reason: 'scam',
      money_refunded: false,
      refunded_amount: null,
      external_id: 'case-1',
      created_at: expect.any(String),
      outcome_hint: { retryable: false, message: expect.any(String) },
    });
    // reference 2.6: never the text sent to the central bank
    expect(JSON.stringify(claim.body)).not.toContain('WhatsApp');
    const payout = await h.api('GET', '/v2/payouts/po_fixture_ok', TOKENS.manager);
    expect(claim.body.e2e_id).toBe(payout.body.e2e_id);
  });

  it('finds the pay-out by payout_external_id as well', async () => {
    const r = await open({ payout_external_id: 'ext_po_fixture_ok', reason: 'coercion', details: DETAILS });
    expect(r.status).toBe(202);
    expect((await get(r.body.med_case_id)).body.service_id).toBe('po_fixture_ok');
  });

  it('accepts a pay-out without payer document but carries a warning', async () => {
    const r = await open(claimBody('po_fixture_no_doc'));
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ med_case_id: expect.any(String), status_id: 'dispatching', message: expect.any(String), warning: expect.any(String) });
    const withDoc = await open(claimBody('po_fixture_ok'));
    expect(withDoc.body).not.toHaveProperty('warning');
  });

  it('takes every reason of the list', async () => {
    for (const reason of ['scam', 'account_takeover', 'coercion', 'credentials_stolen', 'other_fraud', 'unknown']) {
      await h.reset();
      const r = await open(claimBody('po_fixture_ok', { reason }));
      expect(r.status).toBe(202);
      expect((await get(r.body.med_case_id)).body.reason).toBe(reason);
    }
  });

  it('accepts details of exactly 10 and 4000 characters', async () => {
    expect((await open(claimBody('po_fixture_ok', { details: 'x'.repeat(10) }))).status).toBe(202);
    expect((await open(claimBody('po_fixture_no_doc', { details: 'y'.repeat(4000) }))).status).toBe(202);
  });

  it('accepts an external_id of 128 characters', async () => {
    expect((await open(claimBody('po_fixture_ok', { external_id: 'e'.repeat(128) }))).status).toBe(202);
  });
});

describe('POST /v2/payout_meds: errors (reference 4.6 table)', () => {
  it.each([
    ['missing reason', { service_id: 'po_fixture_ok', details: DETAILS }, 'missing', ['body', 'reason']],
    ['unknown reason', { service_id: 'po_fixture_ok', reason: 'phishing', details: DETAILS }, 'enum', ['body', 'reason']],
    ['details under 10', { service_id: 'po_fixture_ok', reason: 'scam', details: 'curto' }, 'string_too_short', ['body', 'details']],
    ['details over 4000', { service_id: 'po_fixture_ok', reason: 'scam', details: 'x'.repeat(4001) }, 'string_too_long', ['body', 'details']],
    ['missing details', { service_id: 'po_fixture_ok', reason: 'scam' }, 'missing', ['body', 'details']],
    ['neither pay-out identifier', { reason: 'scam', details: DETAILS }, 'value_error', ['body']],
    ['both pay-out identifiers', { service_id: 'po_fixture_ok', payout_external_id: 'ext_po_fixture_ok', reason: 'scam', details: DETAILS }, 'value_error', ['body']],
    ['external_id over 128', { service_id: 'po_fixture_ok', reason: 'scam', details: DETAILS, external_id: 'e'.repeat(129) }, 'string_too_long', ['body', 'external_id']],
  ])('%s: 422 validation list', async (_name, body, type, loc) => {
    const r = await open(body);
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ type, loc, msg: expect.any(String) })]));
    expect((await h.api('GET', '/v2/payout_meds', TOKENS.manager)).body).toEqual([]);
  });

  it('names the allowed reasons in the message', async () => {
    const r = await open(claimBody('po_fixture_ok', { reason: 'phishing' }));
    expect(r.body.detail[0].msg).toContain("'account_takeover'");
  });

  it('404 payout_not_found for a missing pay-out, and identically for another merchant', async () => {
    const missing = await open(claimBody('po_missing'));
    const foreign = await open(claimBody('po_fixture_m2'));
    const byExternal = await open({ payout_external_id: 'ext_po_fixture_m2', reason: 'scam', details: DETAILS });
    expectReason(missing, 404, 'payout_not_found');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect(byExternal.body).toEqual(missing.body);
  });

  it('422 outside_window for a pay-out 90 days old', async () => {
    expectReason(await open(claimBody('po_fixture_old')), 422, 'outside_window');
  });

  it('422 payout_date_unknown for an undated pay-out', async () => {
    expectReason(await open(claimBody('po_fixture_undated')), 422, 'payout_date_unknown');
  });

  it('422 e2e_not_resolved without an end-to-end id', async () => {
    expectReason(await open(claimBody('po_fixture_no_e2e')), 422, 'e2e_not_resolved');
  });

  it('422 evidence_upload_unavailable when files are sent, and nothing is created', async () => {
    expectReason(await open(claimBody('po_fixture_ok', { files: [{ name: 'print.png' }] })), 422, 'evidence_upload_unavailable');
    expectReason(await open(claimBody('po_fixture_ok', { files: [] })), 422, 'evidence_upload_unavailable');
    expect((await h.api('GET', '/v2/payout_meds', TOKENS.manager)).body).toEqual([]);
  });

  it('409 already_exists for a second claim, with med_case_id and status_id', async () => {
    const id = await openOk('po_fixture_ok');
    const again = await open(claimBody('po_fixture_ok', { reason: 'other_fraud' }));
    expectReason(again, 409, 'already_exists');
    expect(again.body.detail).toMatchObject({ med_case_id: id, status_id: 'dispatching' });
    expect((await get(id)).body.reason).toBe('scam');
    // the same pay-out named by its external_id is the same claim
    const byExternal = await open({ payout_external_id: 'ext_po_fixture_ok', reason: 'scam', details: DETAILS });
    expect(byExternal.body.detail).toMatchObject({ reason: 'already_exists', med_case_id: id });
  });

  it('409 duplicate_external_id when another claim of the merchant uses it', async () => {
    await openOk('po_fixture_ok', { external_id: 'shared-ref' });
    expectReason(await open(claimBody('po_fixture_no_doc', { external_id: 'shared-ref' })), 409, 'duplicate_external_id');
  });

  it('the 79-day window: accepted just inside, refused just outside', async () => {
    // po_fixture_ok was processed 2 days ago: 77 days later it is 79 days old
    await h.advance(77 * 86_400 - 3_600);
    expect((await open(claimBody('po_fixture_ok'))).status).toBe(202);
    await h.reset();
    await h.advance(77 * 86_400 + 3_600);
    expectReason(await open(claimBody('po_fixture_ok')), 422, 'outside_window');
  });

  it('needs scope pay_out (401) and role manager or supervisor (403), like pay-out sending', async () => {
    await addPayoutCashierToken(h);
    const noScope = await open(claimBody('po_fixture_ok'), TOKENS.cashier);
    expect(noScope.status).toBe(401);
    expect(noScope.body).toEqual({ detail: 'Token Profile Not Authorized for this Endpoint' });
    const noToken = await h.api('POST', '/v2/payout_meds', null, claimBody('po_fixture_ok'));
    expect(noToken.status).toBe(401);
    expect(noToken.body).toEqual({ detail: 'Could not validate credentials' });
    for (const path of ['/v2/payout_meds', '/v2/payout_meds/med_000000000000000000000000']) {
      const noRole = await h.api('GET', path, PAYOUT_CASHIER_TOKEN);
      expect(noRole.status).toBe(403);
      expect(noRole.body).toEqual({ detail: 'User role not authorized for this endpoint' });
    }
    expect((await h.api('POST', '/v2/payout_meds', PAYOUT_CASHIER_TOKEN, claimBody('po_fixture_ok'))).status).toBe(403);
    expect((await open(claimBody('po_fixture_ok'), TOKENS.supervisor)).status).toBe(202);
    expect((await open(claimBody('po_fixture_no_doc'), TOKENS.payout)).status).toBe(202);
  });
});

describe('re-open while dispatching (reference 3.2 and 4.6)', () => {
  it('retryable: same med_case_id, new reason and details, external_id kept when not sent, retryable back to false', async () => {
    const id = await openOk('po_fixture_ok', { external_id: 'first-ref' });
    expect((await advance(id, { status: 'dispatching', retryable: true })).status).toBe(200);
    expect((await get(id)).body.outcome_hint).toEqual({ retryable: true, message: expect.any(String) });
    const again = await open(claimBody('po_fixture_ok', { reason: 'account_takeover', details: 'Conta invadida, transferência sem autorização.' }));
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ med_case_id: id, status_id: 'dispatching' });
    const claim = await get(id);
    expect(claim.body).toMatchObject({ med_case_id: id, reason: 'account_takeover', external_id: 'first-ref', outcome_hint: { retryable: false } });
    expect((await h.api('GET', '/v2/payout_meds', TOKENS.manager)).body).toHaveLength(1);
  });

  it('replaces external_id when it is sent', async () => {
    const id = await openOk('po_fixture_ok', { external_id: 'first-ref' });
    await advance(id, { status: 'dispatching', retryable: true });
    await open(claimBody('po_fixture_ok', { external_id: 'second-ref' }));
    expect((await get(id)).body.external_id).toBe('second-ref');
  });

  it('a retry while another is in progress gets already_exists with status dispatching', async () => {
    const id = await openOk();
    await advance(id, { status: 'dispatching', retryable: true });
    expect((await open(claimBody('po_fixture_ok'))).status).toBe(202);
    const second = await open(claimBody('po_fixture_ok'));
    expectReason(second, 409, 'already_exists');
    expect(second.body.detail).toMatchObject({ med_case_id: id, status_id: 'dispatching' });
  });

  it('retryable false: a second POST is refused, keep polling', async () => {
    const id = await openOk();
    expectReason(await open(claimBody('po_fixture_ok')), 409, 'already_exists');
    expect((await get(id)).body.outcome_hint.retryable).toBe(false);
  });

  it('cancelled from dispatching cannot be reopened: 409 already_exists', async () => {
    const id = await openOk();
    expect((await advance(id, { status: 'cancelled' })).status).toBe(200);
    const again = await open(claimBody('po_fixture_ok', { reason: 'coercion' }));
    expectReason(again, 409, 'already_exists');
    expect(again.body.detail).toMatchObject({ med_case_id: id, status_id: 'cancelled' });
  });
});

describe('operator-handled form (reference 4.6 second form)', () => {
  beforeEach(async () => {
    expect((await h.control('PUT', '/_sandbox/payouts/po_fixture_ok/med', { handling: 'manual' })).status).toBe(200);
  });

  it('answers outcome manual, handling manual, med_case_id null; nothing appears in the list', async () => {
    const r = await open(claimBody('po_fixture_ok'));
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ outcome: 'manual', handling: 'manual', med_case_id: null, message: expect.any(String) });
    expect((await h.api('GET', '/v2/payout_meds', TOKENS.manager)).body).toEqual([]);
  });

  it('a repeat is manual_claim_in_progress for a few minutes, then manual_claim_already_sent', async () => {
    await open(claimBody('po_fixture_ok'));
    expectReason(await open(claimBody('po_fixture_ok')), 409, 'manual_claim_in_progress');
    await h.advance(5 * 60);
    expectReason(await open(claimBody('po_fixture_ok')), 409, 'manual_claim_already_sent');
  });

  it('an unconfirmed registration answers claim_not_confirmed; a later repeat goes through', async () => {
    await h.control('PUT', '/_sandbox/payouts/po_fixture_ok/med', { handling: 'manual', manual_registration: 'unconfirmed' });
    expectReason(await open(claimBody('po_fixture_ok')), 502, 'claim_not_confirmed');
    await h.control('PUT', '/_sandbox/payouts/po_fixture_ok/med', { handling: 'manual' });
    expect((await open(claimBody('po_fixture_ok'))).body.outcome).toBe('manual');
  });

  it('still refuses a pay-out outside the window or undated', async () => {
    await h.control('PUT', '/_sandbox/payouts/po_fixture_old/med', { handling: 'manual' });
    await h.control('PUT', '/_sandbox/payouts/po_fixture_undated/med', { handling: 'manual' });
    expectReason(await open(claimBody('po_fixture_old')), 422, 'outside_window');
    expectReason(await open(claimBody('po_fixture_undated')), 422, 'payout_date_unknown');
  });

  it('does not need an end-to-end id (e2e_not_resolved is for tracked claims only)', async () => {
    await h.control('PUT', '/_sandbox/payouts/po_fixture_no_e2e/med', { handling: 'manual' });
    expect((await open(claimBody('po_fixture_no_e2e'))).body.outcome).toBe('manual');
  });

  it('the knob refuses an unknown pay-out and an unknown handling', async () => {
    expect((await h.control('PUT', '/_sandbox/payouts/po_nope/med', { handling: 'manual' })).status).toBe(404);
    expect((await h.control('PUT', '/_sandbox/payouts/po_fixture_ok/med', { handling: 'sometimes' })).status).toBe(422);
  });
});

describe('status moves forward only (reference 3.2) through the control API', () => {
  it('walks the statuses forward; outcome_hint disappears after dispatching', async () => {
    const id = await openOk();
    for (const status of ['open', 'tracking', 'under_analysis', 'analysed', 'refunding']) {
      const r = await advance(id, { status });
      expect(r.status).toBe(200);
      expect(r.body.status_id).toBe(status);
      const claim = await get(id);
      expect(claim.body.status_id).toBe(status);
      expect(claim.body).not.toHaveProperty('outcome_hint');
      expect(Object.keys(claim.body).sort()).toEqual(CLAIM_FIELDS);
    }
    const closed = await advance(id, { status: 'closed', refunded_amount: '120.00', result_id: 'agreed' });
    expect(closed.status).toBe(200);
    expect((await get(id)).body).toMatchObject({ status_id: 'closed', money_refunded: true, refunded_amount: '120.00', result_id: 'agreed' });
  });

  it('refuses a move backwards with 409 and leaves the claim as it was', async () => {
    const id = await openOk();
    await advance(id, { status: 'tracking' });
    const back = await advance(id, { status: 'open' });
    expect(back.status).toBe(409);
    expect(back.body.detail).toContain('forward');
    expect((await get(id)).body.status_id).toBe('tracking');
  });

  it('nothing moves out of a terminal status', async () => {
    const id = await openOk();
    await advance(id, { status: 'closed' });
    expect((await advance(id, { status: 'cancelled' })).status).toBe(409);
    expect((await advance(id, { status: 'closed', result_id: 'disagreed' })).status).toBe(409);
  });

  it('refuses retryable outside dispatching, an unknown status, and a refund above the pay-out', async () => {
    const id = await openOk();
    expect((await advance(id, { status: 'open', retryable: true })).status).toBe(422);
    expect((await advance(id, { status: 'resolved' })).status).toBe(422);
    expect((await advance(id, { status: 'refunding', refunded_amount: '150.01' })).status).toBe(422);
    expect((await get(id)).body.status_id).toBe('dispatching');
    expect((await advance('med_000000000000000000000000', { status: 'open' })).status).toBe(404);
  });

  it('money_refunded stays false until a refund arrives, and a partial refund is shown as is', async () => {
    const id = await openOk();
    await advance(id, { status: 'refunding' });
    expect((await get(id)).body).toMatchObject({ money_refunded: false, refunded_amount: null });
    await advance(id, { status: 'closed', money_refunded: true, refunded_amount: '40.50', result_id: null });
    expect((await get(id)).body).toMatchObject({ money_refunded: true, refunded_amount: '40.50', result_id: null });
  });
});

describe('GET /v2/payout_meds/{med_case_id}', () => {
  it('422 for a malformed id, case included (send it exactly as returned)', async () => {
    const id = await openOk();
    for (const bad of [id.toUpperCase(), 'MED_123', 'abc', 'med_', `${id}-x`, 'med_a b', `med_${'0'.repeat(65)}`]) {
      const r = await get(bad);
      expect(r.status).toBe(422);
      expect(r.body.detail).toEqual([expect.objectContaining({ type: 'string_pattern_mismatch', loc: ['path', 'med_case_id'] })]);
    }
  });

  it('404 not_found for an unknown id, and identically for another merchant claim', async () => {
    const foreign = await h.api('POST', '/v2/payout_meds', TOKENS.otherMerchant, claimBody('po_fixture_m2'));
    expect(foreign.status).toBe(202);
    const missing = await get('med_000000000000000000000000');
    expectReason(missing, 404, 'not_found');
    // Well-formed but no claim of ours: not found, not malformed.
    expectReason(await get('med_nonexistent'), 404, 'not_found');
    const other = await get(foreign.body.med_case_id);
    expect(other.status).toBe(404);
    expect(other.body).toEqual(missing.body);
    expect((await get(foreign.body.med_case_id, TOKENS.otherMerchant)).status).toBe(200);
  });
});

describe('GET /v2/payout_meds', () => {
  it('lists the merchant claims newest first, limit 1..200 default 50', async () => {
    const first = await openOk('po_fixture_ok');
    await h.advance(1);
    const second = await openOk('po_fixture_no_doc');
    await h.api('POST', '/v2/payout_meds', TOKENS.otherMerchant, claimBody('po_fixture_m2'));
    const list = await h.api('GET', '/v2/payout_meds', TOKENS.manager);
    expect(list.status).toBe(200);
    expect(list.body.map((c: { med_case_id: string }) => c.med_case_id)).toEqual([second, first]);
    expect(Object.keys(list.body[0]).sort()).toEqual([...CLAIM_FIELDS, 'outcome_hint'].sort());
    expect((await h.api('GET', '/v2/payout_meds?limit=1', TOKENS.manager)).body.map((c: { med_case_id: string }) => c.med_case_id)).toEqual([second]);
    expect((await h.api('GET', '/v2/payout_meds?limit=200', TOKENS.manager)).status).toBe(200);
  });

  it('answers an empty array when there is none', async () => {
    const r = await h.api('GET', '/v2/payout_meds', TOKENS.manager);
    expect(r.status).toBe(200);
    expect(r.body).toEqual([]);
  });

  it.each(['limit=0', 'limit=201', 'limit=x'])('refuses %s with 422', async (query) => {
    const r = await h.api('GET', `/v2/payout_meds?${query}`, TOKENS.manager);
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['query', 'limit']);
  });
});

describe('rate limits per IP (reference 8)', () => {
  it('opening: 20 per minute, then 429; allowed again a minute later', async () => {
    for (let i = 0; i < 20; i++) expect((await open(claimBody('po_missing'))).status).toBe(404);
    const limited = await open(claimBody('po_fixture_ok'));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body.detail).toMatchObject({ reason: 'rate_limited', message: expect.any(String) });
    await h.advance(60);
    expect((await open(claimBody('po_fixture_ok'))).status).toBe(202);
  });

  it('get: 60 per minute, then 429', async () => {
    const id = await openOk();
    for (let i = 0; i < 60; i++) expect((await get(id)).status).toBe(200);
    expect((await get(id)).status).toBe(429);
    await h.advance(60);
    expect((await get(id)).status).toBe(200);
  });

  it('list: 60 per minute, then 429, counted apart from get', async () => {
    for (let i = 0; i < 60; i++) expect((await h.api('GET', '/v2/payout_meds', TOKENS.manager)).status).toBe(200);
    expect((await h.api('GET', '/v2/payout_meds', TOKENS.manager)).status).toBe(429);
    expect((await get('med_000000000000000000000000')).status).toBe(404);
  });
});
