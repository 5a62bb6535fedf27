/**
 * Issue 12 through the shells' dispatcher, as a signed-in supervisor, on a real core and its
 * embedded sandbox; what the service holds is read through its public API with the
 * merchant's own token, never through the app alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_TOKENS } from '../../sandbox/fixture.ts';
import { systemClock } from '../../shared/clock.ts';
import type { Core } from '../core.ts';
import { memoryLogger } from '../log.ts';
import type { CoreOnSandbox } from '../terminal/fixtures/core.ts';
import { DETAILS, okOn, refusedOn, startClaimsApp, type ClaimsApp, type Dispatch } from './fixtures/claims-app.ts';
import { CLAIM_OPENED, CLAIM_OPERATOR_HANDLED, CLAIM_REQUESTED, CLAIM_STATUS_CHANGED, CLAIM_UNCONFIRMED, type ClaimRow, type OpenOutcome, type PayoutRow } from './desk.ts';

const log = memoryLogger(systemClock);
let app: ClaimsApp;
let env: CoreOnSandbox;
let core: Core;
let call: Dispatch;
let base: string;

beforeAll(async () => {
  app = await startClaimsApp('claims', log, 'claims');
  ({ env, core, call, base } = app);
}, 60_000);

afterAll(() => app?.stop());

const ok = <T>(method: string, args?: unknown) => okOn<T>(call, method, args);
const refused = (method: string, args: unknown) => refusedOn(call, method, args);

/** The service's own list of the merchant's claims (contract 7), newest first. */
async function serviceClaims(): Promise<{ med_case_id: string; service_id: string; reason: string; status_id: string }[]> {
  const res = await fetch(`${base}/v2/payout_meds?limit=200`, { headers: { authorization: `Bearer ${FIXTURE_TOKENS.manager}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as { med_case_id: string; service_id: string; reason: string; status_id: string }[];
}

const entries = (type: string) => core.journal.eventsOfType(type);

describe('the pay-outs', () => {
  it('say which can be claimed, with the days left, and why not; another merchant’s are not there', async () => {
    const rows = await ok<PayoutRow[]>('claims.payouts', {});
    const by = new Map(rows.map((r) => [r.payout.service_id, r.claim]));
    expect(by.get('po_fixture_ok')).toEqual({ claimable: true, daysLeft: 77 });
    expect(by.get('po_fixture_no_doc')).toMatchObject({ claimable: true });
    expect(by.get('po_fixture_no_e2e')).toMatchObject({ claimable: false, why: 'not_processed' });
    expect(by.get('po_fixture_old')).toMatchObject({ claimable: false, why: 'outside_window' });
    expect(by.get('po_fixture_undated')).toMatchObject({ claimable: false, why: 'date_unknown', daysLeft: null });
    expect(by.has('po_fixture_m2')).toBe(false);
  });
});

describe('opening a claim', () => {
  it('refuses a form the service would refuse, with the field, and sends nothing', async () => {
    const before = (await serviceClaims()).length;
    expect(await refused('claims.open', { serviceId: 'po_fixture_ok', reason: 'scam', details: 'too\nshort' })).toMatchObject({ code: 'invalid_argument', params: { field: 'details' } });
    expect(await refused('claims.open', { serviceId: 'po_fixture_ok', reason: 'revenge', details: DETAILS })).toMatchObject({ params: { field: 'reason' } });
    expect(await refused('claims.open', { serviceId: 'po_fixture_ok', reason: 'scam', details: DETAILS, externalId: 'x'.repeat(129) })).toMatchObject({ params: { field: 'externalId' } });
    expect(await serviceClaims()).toHaveLength(before);
    expect(await entries(CLAIM_REQUESTED)).toHaveLength(0);
  });

  it('journals the request in the supervisor’s name before the POST, then the tracked claim; a second is refused', async () => {
    const opened = await ok<OpenOutcome>('claims.open', { serviceId: 'po_fixture_ok', reason: 'scam', details: DETAILS, externalId: 'case-1' });
    expect(opened).toMatchObject({ handling: 'tracked', warning: null });
    const id = (opened as { med_case_id: string }).med_case_id;
    expect((await serviceClaims()).find((c) => c.med_case_id === id)).toMatchObject({ service_id: 'po_fixture_ok', reason: 'scam', status_id: 'dispatching' });
    const [request] = await entries(CLAIM_REQUESTED);
    const [result] = await entries(CLAIM_OPENED);
    expect(request!.data).toMatchObject({ by: 'Rui', service_id: 'po_fixture_ok', reason: 'scam', details: DETAILS, external_id: 'case-1' });
    expect(result!.seq).toBeGreaterThan(request!.seq);
    expect(result!.data).toMatchObject({ med_case_id: id, intent_id: request!.data['intent_id'] });
    // Its texts stay in the journal: nothing logged carries them.
    expect(JSON.stringify(log.lines)).not.toContain('fake invoice');

    const again = await refused('claims.open', { serviceId: 'po_fixture_ok', reason: 'other_fraud', details: DETAILS });
    expect(again.message).toMatch(/already exists for this pay-out/);
    expect((await ok<PayoutRow[]>('claims.payouts', {})).find((r) => r.payout.service_id === 'po_fixture_ok')).toMatchObject({ med_case_id: id, claim: { claimable: false, why: 'claimed' } });
  });

  it('warns when the pay-out has no payer details', async () => {
    const opened = await ok<OpenOutcome>('claims.open', { serviceId: 'po_fixture_no_doc', reason: 'account_takeover', details: DETAILS });
    expect(opened).toMatchObject({ handling: 'tracked', warning: expect.any(String) });
  });

  it.each([
    ['po_fixture_no_e2e', /has not finished processing this pay-out yet \(no end-to-end id\); try again later/],
    ['po_fixture_old', /older than the claim window \(79 days\).*contact support/],
    ['po_fixture_undated', /has no date, so a claim cannot be opened through the app; contact support/],
    ['po_fixture_m2', /not found among this merchant's pay-outs; check the pay-out id/],
  ])('%s is refused with a sentence saying what to do', async (serviceId, sentence) => {
    const error = await refused('claims.open', { serviceId, reason: 'scam', details: DETAILS });
    expect(error.message).toMatch(sentence);
  });
});

it('a reference another claim uses is refused with what to do', async () => {
  const error = await refused('claims.open', { serviceId: await freshPayout(), reason: 'scam', details: DETAILS, externalId: 'case-1' });
  expect(error.message).toMatch(/already uses this reference.*give this claim a different reference/);
});

describe('following a claim', () => {
  it('moves to Open, then Closed with the money returned; each change is journaled once', async () => {
    const opened = (await ok<OpenOutcome>('claims.open', { serviceId: await freshPayout(), reason: 'coercion', details: DETAILS })) as { med_case_id: string };
    const id = opened.med_case_id;
    await env.svc('POST', `/_sandbox/med/${id}/advance`, { status: 'open' });
    let row = (await ok<ClaimRow[]>('claims.list')).find((r) => r.handling === 'tracked' && r.claim.med_case_id === id) as Extract<ClaimRow, { handling: 'tracked' }>;
    expect(row.status).toBe('open');
    await env.svc('POST', `/_sandbox/med/${id}/advance`, { status: 'closed', money_refunded: true, refunded_amount: '40.00' });
    row = (await ok<ClaimRow[]>('claims.refresh')).find((r) => r.handling === 'tracked' && r.claim.med_case_id === id) as typeof row;
    expect(row).toMatchObject({ status: 'closed', backwards: false, claim: { money_refunded: true, refunded_cents: 4000 } });
    const changes = (await entries(CLAIM_STATUS_CHANGED)).filter((e) => e.data['med_case_id'] === id).map((e) => e.data['to']);
    expect(changes).toEqual(['open', 'closed']);
    // Every supervisor's attention list hears it (there is no webhook for claims).
    expect((await core.attention()).claims.find((n) => n.med_case_id === id)).toMatchObject({ status: 'closed', money_refunded: true, refunded_cents: 4000 });
  });

  it('a claim the provider rejected is sent again with a new reason and keeps its med_case_id', async () => {
    const serviceId = await freshPayout();
    const { med_case_id: id } = (await ok<OpenOutcome>('claims.open', { serviceId, reason: 'scam', details: DETAILS })) as { med_case_id: string };
    // Not rejected yet: the app refuses to send it again.
    expect((await refused('claims.resubmit', { serviceId, medCaseId: id, reason: 'unknown', details: DETAILS })).params).toMatchObject({ problem: 'claim_not_retryable' });
    await env.svc('POST', `/_sandbox/med/${id}/advance`, { status: 'dispatching', retryable: true });
    const row = (await core.claims.refresh(true)).find((r) => r.handling === 'tracked' && r.claim.med_case_id === id);
    expect(row).toMatchObject({ resubmittable: true });
    const again = await ok<OpenOutcome>('claims.resubmit', { serviceId, medCaseId: id, reason: 'other_fraud', details: `${DETAILS} More details.` });
    expect(again).toMatchObject({ handling: 'tracked', med_case_id: id });
    expect((await serviceClaims()).find((c) => c.med_case_id === id)).toMatchObject({ reason: 'other_fraud' });
  });
});

describe('Refresh', () => {
  it('a burst of presses stays within the service’s 60 list requests a minute', async () => {
    // Sequential presses, each after the last answer: past 60 a minute the service answers 429.
    for (let press = 0; press < 100; press++) expect((await call('claims.refresh')).ok, `press ${press + 1}`).toBe(true);
    // A minute later the service is asked again.
    await env.svc('POST', '/_sandbox/clock/advance', { seconds: 61 });
  });
});

describe('claims handled by the operator', () => {
  it('claim_not_confirmed is journaled and never repeated by the app', async () => {
    const serviceId = await freshPayout();
    await env.svc('PUT', `/_sandbox/payouts/${serviceId}/med`, { handling: 'manual', manual_registration: 'unconfirmed' });
    expect((await refused('claims.open', { serviceId, reason: 'scam', details: DETAILS })).message).toMatch(/do not repeat/i);
    expect((await entries(CLAIM_UNCONFIRMED)).map((e) => e.data['service_id'])).toContain(serviceId);
    const requests = (await entries(CLAIM_REQUESTED)).length;
    expect((await refused('claims.open', { serviceId, reason: 'scam', details: DETAILS })).params).toMatchObject({ problem: 'claim_not_confirmed' });
    // Refused before the journal or the service: nothing was asked again.
    expect(await entries(CLAIM_REQUESTED)).toHaveLength(requests);
    expect((await ok<PayoutRow[]>('claims.payouts', {})).find((r) => r.payout.service_id === serviceId)?.claim).toMatchObject({ claimable: false, why: 'unconfirmed' });
  });

  it('in progress, then already sent; kept by the journal alone and shown after a restart', async () => {
    const serviceId = await freshPayout();
    await env.svc('PUT', `/_sandbox/payouts/${serviceId}/med`, { handling: 'manual' });
    expect(await ok<OpenOutcome>('claims.open', { serviceId, reason: 'scam', details: DETAILS })).toMatchObject({ handling: 'manual' });
    expect((await refused('claims.open', { serviceId, reason: 'scam', details: DETAILS })).message).toMatch(/still being processed; try again in a few minutes/);
    await env.svc('POST', '/_sandbox/clock/advance', { seconds: 6 * 60 });
    expect((await refused('claims.open', { serviceId, reason: 'scam', details: DETAILS })).message).toMatch(/already received a claim for this pay-out; contact support/);
    expect((await serviceClaims()).some((c) => c.service_id === serviceId)).toBe(false);
    expect(await entries(CLAIM_OPERATOR_HANDLED)).toHaveLength(1);

    ({ core, call } = await app.restart(core));
    const rows = await ok<ClaimRow[]>('claims.list');
    expect(rows.filter((r) => r.handling === 'manual')).toEqual([expect.objectContaining({ service_id: serviceId, by: 'Rui' })]);
    // The restarted core's sandbox answers on a new port; this test is the file's last.
  });

});

const freshPayout = () => app.freshPayout();
