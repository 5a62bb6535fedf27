/**
 * Issue 24 point 9 through the shells' dispatcher, on a real core and its embedded sandbox:
 * a claim whose answer was lost gets a way forward that a supervisor decides, and claims are
 * followed past the newest 200 the service lists. What the service holds is read and made
 * through its public API with the merchant's own token, as another of the merchant's systems
 * would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_TOKENS } from '../../sandbox/fixture.ts';
import { systemClock } from '../../shared/clock.ts';
import type { Core } from '../core.ts';
import { memoryLogger } from '../log.ts';
import { dispatcherAs, sessionAs } from '../operators/fixtures/sign-in.ts';
import type { CoreOnSandbox } from '../terminal/fixtures/core.ts';
import { DETAILS, okOn, refusedOn, startClaimsApp, type ClaimsApp, type Dispatch } from './fixtures/claims-app.ts';
import { CLAIM_BANK_ANSWERED, CLAIM_STATUS_CHANGED, CLAIM_UNCONFIRMED, DESK_PROJECTION, type ClaimRow, type DeskState, type OpenOutcome, type PayoutRow } from './desk.ts';

const log = memoryLogger(systemClock);
let app: ClaimsApp;
let env: CoreOnSandbox;
let core: Core;
let base: string;
let call: Dispatch;
let cashier: Dispatch;

beforeAll(async () => {
  app = await startClaimsApp('claims-follow', log, 'follow');
  ({ env, core, base, call } = app);
  cashier = await dispatcherAs(core, await sessionAs(core, 'cashier', 'Ana'));
}, 60_000);

afterAll(() => app?.stop());

const ok = <T>(method: string, args?: unknown) => okOn<T>(call, method, args);
const refused = (method: string, args: unknown, by: Dispatch = call) => refusedOn(by, method, args);

const entries = (type: string) => core.journal.eventsOfType(type);
const payoutRow = async (serviceId: string) => (await ok<PayoutRow[]>('claims.payouts', {})).find((r) => r.payout.service_id === serviceId);
const trackedRow = (rows: ClaimRow[], id: string) => rows.find((r) => r.handling === 'tracked' && r.claim.med_case_id === id) as Extract<ClaimRow, { handling: 'tracked' }> | undefined;

const freshPayout = () => app.freshPayout();

/**
 * A claim opened at the service by another of the merchant's systems (not this app). Reference
 * 8 allows 20 openings a minute per IP address: every 15th, the shared clock moves a minute on.
 */
let openedAtService = 0;
async function claimAtService(serviceId: string): Promise<string> {
  if (++openedAtService % 15 === 0) await env.svc('POST', '/_sandbox/clock/advance', { seconds: 61 });
  const res = await fetch(`${base}/v2/payout_meds`, {
    method: 'POST',
    headers: { authorization: `Bearer ${FIXTURE_TOKENS.manager}`, 'content-type': 'application/json' },
    body: JSON.stringify({ service_id: serviceId, reason: 'scam', details: DETAILS }),
  });
  const body = (await res.json()) as { med_case_id?: string };
  if (res.status !== 202 || typeof body.med_case_id !== 'string') throw new Error(`the service did not open the claim: ${res.status} ${JSON.stringify(body)}`);
  return body.med_case_id;
}

/** A claim request whose registration the service could not confirm (reference 4.6 `claim_not_confirmed`). */
async function unconfirmedClaim(): Promise<string> {
  const serviceId = await freshPayout();
  await env.svc('PUT', `/_sandbox/payouts/${serviceId}/med`, { handling: 'manual', manual_registration: 'unconfirmed' });
  expect((await refused('claims.open', { serviceId, reason: 'scam', details: DETAILS })).message).toMatch(/do not repeat/i);
  expect((await payoutRow(serviceId))?.claim).toMatchObject({ claimable: false, why: 'unconfirmed' });
  return serviceId;
}

describe('a claim whose registration was not confirmed', () => {
  it('“No claim was registered”: journaled in the supervisor’s name, and the pay-out can be claimed again', async () => {
    const serviceId = await unconfirmedClaim();
    // The core enforces the role, whatever a screen shows.
    expect(await refused('claims.recordBankAnswer', { serviceId, answer: 'not_registered' }, cashier)).toMatchObject({ code: 'forbidden' });
    expect(await entries(CLAIM_BANK_ANSWERED)).toHaveLength(0);

    await ok('claims.recordBankAnswer', { serviceId, answer: 'not_registered' });
    const [answer] = (await entries(CLAIM_BANK_ANSWERED)).filter((e) => e.data['service_id'] === serviceId);
    expect(answer!.data).toMatchObject({ by: 'Rui', service_id: serviceId, answer: 'not_registered', med_case_id: null });
    expect((await payoutRow(serviceId))?.claim).toMatchObject({ claimable: true });
    // Nothing was sent by the answer itself; the supervisor claims again, by hand.
    await env.svc('PUT', `/_sandbox/payouts/${serviceId}/med`, { handling: 'tracked' });
    expect(await ok<OpenOutcome>('claims.open', { serviceId, reason: 'scam', details: DETAILS })).toMatchObject({ handling: 'tracked' });
    // Answered once: a second answer finds nothing waiting for one.
    expect((await refused('claims.recordBankAnswer', { serviceId, answer: 'not_registered' })).params).toMatchObject({ problem: 'claim_not_unconfirmed' });
  });

  it('two supervisors answering at once record one answer; the other is told a request is in flight', async () => {
    const serviceId = await unconfirmedClaim();
    const before = (await entries(CLAIM_BANK_ANSWERED)).length;
    const both = await Promise.all([call('claims.recordBankAnswer', { serviceId, answer: 'not_registered' }), call('claims.recordBankAnswer', { serviceId, answer: 'not_registered' })]);
    expect(both.filter((e) => e.ok)).toHaveLength(1);
    expect(both.find((e) => !e.ok)).toMatchObject({ error: { params: { problem: 'claim_in_flight' } } });
    expect(await entries(CLAIM_BANK_ANSWERED)).toHaveLength(before + 1);
  });

  it('“The claim exists”: a wrong id is a sentence and changes nothing; the right one is checked with the service and followed', async () => {
    const serviceId = await unconfirmedClaim();
    // The bank registered it after all: the service has a tracked claim on this pay-out.
    await env.svc('PUT', `/_sandbox/payouts/${serviceId}/med`, { handling: 'tracked' });
    const id = await claimAtService(serviceId);
    const otherClaim = await claimAtService(await freshPayout());
    const unconfirmedBefore = (await entries(CLAIM_UNCONFIRMED)).length;
    const answersBefore = (await entries(CLAIM_BANK_ANSWERED)).length;

    const malformed = await refused('claims.recordBankAnswer', { serviceId, answer: 'exists', medCaseId: 'case 42' });
    expect(malformed).toMatchObject({ code: 'invalid_argument', params: { field: 'medCaseId', problem: 'claim_id_malformed' } });
    expect(malformed.message).toMatch(/starts with med_/);
    expect((await refused('claims.recordBankAnswer', { serviceId, answer: 'exists' })).params).toMatchObject({ field: 'medCaseId' });
    const unknown = await refused('claims.recordBankAnswer', { serviceId, answer: 'exists', medCaseId: 'med_nosuchclaim1' });
    expect(unknown).toMatchObject({ params: { field: 'medCaseId', problem: 'claim_id_unknown' } });
    expect(unknown.message).toMatch(/med_nosuchclaim1.*check the id/);
    const another = await refused('claims.recordBankAnswer', { serviceId, answer: 'exists', medCaseId: otherClaim });
    expect(another).toMatchObject({ params: { field: 'medCaseId', problem: 'claim_other_payout' } });
    expect(another.message).toContain(otherClaim);
    // Nothing changed: no answer journaled, the pay-out still waits for one.
    expect(await entries(CLAIM_BANK_ANSWERED)).toHaveLength(answersBefore);
    expect(core.journal.projection<DeskState>(DESK_PROJECTION).unconfirmed).toHaveProperty([serviceId]);
    expect(await entries(CLAIM_UNCONFIRMED)).toHaveLength(unconfirmedBefore);

    await ok('claims.recordBankAnswer', { serviceId, answer: 'exists', medCaseId: ` ${id} ` });
    const answer = (await entries(CLAIM_BANK_ANSWERED)).at(-1)!;
    expect(answer.data).toMatchObject({ by: 'Rui', service_id: serviceId, answer: 'exists', med_case_id: id, claim: { med_case_id: id, service_id: serviceId, status_id: 'dispatching' } });
    expect(await payoutRow(serviceId)).toMatchObject({ med_case_id: id, claim: { claimable: false, why: 'claimed' } });
    // Followed: its moves are journaled like any claim's.
    await env.svc('POST', `/_sandbox/med/${id}/advance`, { status: 'open' });
    expect(trackedRow(await ok<ClaimRow[]>('claims.refresh'), id)).toMatchObject({ status: 'open' });
    expect((await entries(CLAIM_STATUS_CHANGED)).filter((e) => e.data['med_case_id'] === id).map((e) => e.data['to'])).toEqual(['open']);
  });
});

describe('more claims than the service lists (reference 4.6: the newest 200, no offset)', () => {
  it('a claim older than the newest 200 is still followed, read by its id; a closed one stays shown as it ended', async () => {
    const ours = (await ok<OpenOutcome>('claims.open', { serviceId: await freshPayout(), reason: 'coercion', details: DETAILS })) as { med_case_id: string };
    const elsewhere = await claimAtService(await freshPayout());
    const ended = await claimAtService(await freshPayout());
    await env.svc('POST', `/_sandbox/med/${ended}/advance`, { status: 'closed', money_refunded: true, refunded_amount: '12.34' });
    // The app sees the two opened elsewhere once, while they are still among the newest 200.
    const seen = await ok<ClaimRow[]>('claims.refresh');
    expect(trackedRow(seen, elsewhere)).toMatchObject({ status: 'dispatching' });
    expect(trackedRow(seen, ended)).toMatchObject({ status: 'closed' });

    for (let i = 0; i < 200; i++) await claimAtService(await freshPayout());
    const listed = (await (await fetch(`${base}/v2/payout_meds?limit=200`, { headers: { authorization: `Bearer ${FIXTURE_TOKENS.manager}` } })).json()) as { med_case_id: string }[];
    expect(listed).toHaveLength(200);
    expect(listed.map((c) => c.med_case_id)).not.toContain(ours.med_case_id);
    expect(listed.map((c) => c.med_case_id)).not.toContain(elsewhere);

    await env.svc('POST', `/_sandbox/med/${ours.med_case_id}/advance`, { status: 'under_analysis' });
    await env.svc('POST', `/_sandbox/med/${elsewhere}/advance`, { status: 'closed', money_refunded: true, refunded_amount: '40.00' });
    await env.svc('POST', '/_sandbox/clock/advance', { seconds: 61 });
    const rows = await ok<ClaimRow[]>('claims.refresh');
    expect(trackedRow(rows, ours.med_case_id)).toMatchObject({ status: 'under_analysis' });
    expect(trackedRow(rows, elsewhere)).toMatchObject({ status: 'closed', claim: { money_refunded: true, refunded_cents: 4000 } });
    expect(trackedRow(rows, ended)).toMatchObject({ status: 'closed', claim: { money_refunded: true, refunded_cents: 1234 } });
    // Every claim the service holds: the 200 it lists and the 6 this app saw before they fell off.
    expect(rows.filter((r) => r.handling === 'tracked')).toHaveLength(206);
    const moves = async (id: string) => (await entries(CLAIM_STATUS_CHANGED)).filter((e) => e.data['med_case_id'] === id).map((e) => e.data['to']);
    expect(await moves(ours.med_case_id)).toEqual(['under_analysis']);
    expect(await moves(elsewhere)).toEqual(['dispatching', 'closed']);
    // Every supervisor's attention list hears the change of a claim off the list too.
    expect((await core.attention()).claims.find((n) => n.med_case_id === elsewhere)).toMatchObject({ status: 'closed', refunded_cents: 4000 });

    // After a restart, what this core read by id is gone from memory: the closed claims off
    // the list are shown from the journal, the open one is read again.
    ({ core, call } = await app.restart(core));
    const again = await ok<ClaimRow[]>('claims.refresh');
    expect(trackedRow(again, ended)).toMatchObject({ status: 'closed', claim: { money_refunded: true, refunded_cents: 1234 } });
    expect(trackedRow(again, elsewhere)).toMatchObject({ status: 'closed', claim: { money_refunded: true, refunded_cents: 4000 } });
    expect(trackedRow(again, ours.med_case_id)).toMatchObject({ status: 'under_analysis' });
    expect(again.filter((r) => r.handling === 'tracked')).toHaveLength(206);
    // The restarted core's sandbox answers on a new port; this test is the file's last.
  }, 120_000);
});
