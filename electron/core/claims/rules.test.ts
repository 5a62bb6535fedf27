import { describe, expect, it } from 'vitest';
import type { MedStatus, Payout } from '../api/routes/payouts.ts';
import { CoreError } from '../errors.ts';
import { claimability, claimBody, claimsToRead, DAY_MS, daysSince, nextStatus, typedMedCaseId } from './rules.ts';

const NOW = Date.UTC(2026, 10, 24, 12);
const payout = (fields: Partial<Payout>): Payout => ({
  service_id: 'po_1',
  external_id: null,
  amount: { minor: 10_000, scale: 2, currency: 'BRL' },
  currency: 'BRL',
  e2e_id: 'E0001',
  payer_document: '12345678909',
  created_at: new Date(NOW - 2 * DAY_MS).toISOString(),
  ...fields,
});
const none = { claimed: false, unconfirmed: false };

describe('which pay-out may be claimed (reference 4.6, 8)', () => {
  it.each([
    ['processed, two days old', payout({}), none, { claimable: true, daysLeft: 77 }],
    ['on its last day', payout({ created_at: new Date(NOW - 78 * DAY_MS - 1).toISOString() }), none, { claimable: true, daysLeft: 1 }],
    ['79 days old', payout({ created_at: new Date(NOW - 79 * DAY_MS).toISOString() }), none, { claimable: false, why: 'outside_window', daysLeft: 0 }],
    ['90 days old', payout({ created_at: new Date(NOW - 90 * DAY_MS).toISOString() }), none, { claimable: false, why: 'outside_window', daysLeft: 0 }],
    ['without a date', payout({ created_at: null }), none, { claimable: false, why: 'date_unknown', daysLeft: null }],
    ['not processed by the bank', payout({ e2e_id: null }), none, { claimable: false, why: 'not_processed', daysLeft: 77 }],
    ['already claimed', payout({}), { claimed: true, unconfirmed: false }, { claimable: false, why: 'claimed', daysLeft: 77 }],
    ['an earlier request unconfirmed', payout({}), { claimed: false, unconfirmed: true }, { claimable: false, why: 'unconfirmed', daysLeft: 77 }],
  ])('%s', (_name, p, known, expected) => {
    expect(claimability(p, NOW, known)).toEqual(expected);
  });
});

describe('the claim form', () => {
  const field = (form: Parameters<typeof claimBody>[0]) => {
    try {
      claimBody(form);
      return null;
    } catch (err) {
      expect(err).toBeInstanceOf(CoreError);
      return (err as CoreError).params?.['field'];
    }
  };

  it.each([
    ['ten characters', { reason: 'scam', details: '0123456789' }, null],
    ['nine characters', { reason: 'scam', details: '012345678' }, 'details'],
    ['ten once spaces around are cut', { reason: 'scam', details: '  012345678  ' }, 'details'],
    ['4000 characters', { reason: 'scam', details: 'x'.repeat(4000) }, null],
    ['4001 characters', { reason: 'scam', details: 'x'.repeat(4001) }, 'details'],
    // Line breaks collapse into one space each run: 3998 + 1 + 1 = 4000 as the service keeps it.
    ['4000 once line breaks collapse', { reason: 'scam', details: `${'x'.repeat(3998)}\r\n\n${'y'}` }, null],
    ['an unknown reason', { reason: 'revenge', details: '0123456789' }, 'reason'],
    ['a reference of 128', { reason: 'unknown', details: '0123456789', externalId: 'r'.repeat(128) }, null],
    ['a reference of 129', { reason: 'unknown', details: '0123456789', externalId: 'r'.repeat(129) }, 'externalId'],
  ])('%s', (_name, form, expected) => {
    expect(field(form)).toBe(expected);
  });

  it.each([
    ['five characters of details', { reason: 'scam', details: 'short' }, 'details', 'claim_details_short', /^Details: .*at least 10 characters; this text has 5\./],
    ['4001 characters of details', { reason: 'scam', details: 'x'.repeat(4001) }, 'details', 'claim_details_long', /^Details: at most 4000 characters; this text has 4001\./],
    ['no reason', { reason: '', details: '0123456789' }, 'reason', 'claim_reason_missing', /^Reason: /],
    ['a reference of 129', { reason: 'scam', details: '0123456789', externalId: 'r'.repeat(129) }, 'externalId', 'claim_reference_long', /^Your reference: /],
  ])('refuses %s naming the field first in its sentence', (_name, form, field, problem, sentence) => {
    let refusal: unknown = null;
    try {
      claimBody(form);
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(CoreError);
    expect((refusal as CoreError).params).toEqual({ field, problem });
    expect((refusal as CoreError).message).toMatch(sentence);
  });

  it('sends details as the service keeps them and leaves an empty reference out', () => {
    expect(claimBody({ reason: 'coercion', details: 'line one\nline two\r\n\r\nthree', externalId: '  ' })).toEqual({ reason: 'coercion', details: 'line one line two three' });
    expect(claimBody({ reason: 'scam', details: '0123456789', externalId: ' case-7 ' })).toEqual({ reason: 'scam', details: '0123456789', external_id: 'case-7' });
  });
});

describe('a status only moves forward (reference 3.2)', () => {
  it.each<[MedStatus | null, MedStatus, MedStatus, boolean]>([
    [null, 'dispatching', 'dispatching', false],
    ['dispatching', 'open', 'open', false],
    ['open', 'under_analysis', 'under_analysis', false],
    ['under_analysis', 'open', 'under_analysis', true],
    ['refunding', 'closed', 'closed', false],
    ['open', 'cancelled', 'cancelled', false],
    ['closed', 'refunding', 'closed', true],
    ['cancelled', 'dispatching', 'cancelled', true],
    ['analysed', 'analysed', 'analysed', false],
  ])('%s, then %s: shows %s', (kept, answered, status, backwards) => {
    expect(nextStatus(kept, answered)).toEqual({ status, backwards });
  });
});

it('counts whole days since a claim was opened', () => {
  expect(daysSince(new Date(NOW - 3 * DAY_MS - 5).toISOString(), NOW)).toBe(3);
  expect(daysSince(new Date(NOW + 60_000).toISOString(), NOW)).toBe(0);
});

describe('a claim id typed by a supervisor (reference 2.6: prefix med_; 4.6: sent as returned)', () => {
  const typed = (text: string) => {
    try {
      return typedMedCaseId(text);
    } catch (err) {
      expect(err).toBeInstanceOf(CoreError);
      expect((err as CoreError).params).toMatchObject({ field: 'medCaseId', problem: 'claim_id_malformed' });
      return null;
    }
  };

  it.each([
    ['as the service returns it', 'med_8f3k2a9', 'med_8f3k2a9'],
    ['with spaces around, as pasted', '  med_8f3k2a9 \n', 'med_8f3k2a9'],
    ['its case kept', 'med_AbC123', 'med_AbC123'],
    ['empty', '', null],
    ['without the prefix', '8f3k2a9', null],
    ['the prefix alone', 'med_', null],
    ['another prefix', 'po_8f3k2a9', null],
    ['the prefix in capitals', 'MED_8f3k2a9', null],
    ['with a space inside', 'med_8f3k 2a9', null],
    ['with a slash', 'med_8f3k/../x', null],
    ['with a query', 'med_8f3k?limit=1', null],
    ['too long', `med_${'a'.repeat(97)}`, null],
  ])('%s', (_name, text, expected) => {
    expect(typed(text)).toBe(expected);
  });
});

describe('which known claims are read by their id (the list shows only the newest 200)', () => {
  const known = (id: string, status: MedStatus, hasRecord: boolean, readAt: number | null) => ({ med_case_id: id, status, hasRecord, readAt });

  it('reads the claims off the list that can still move, never read first, then the longest unread, within the budget', () => {
    const claims = [
      known('med_listed', 'open', true, null),
      known('med_closed', 'closed', true, null),
      known('med_cancelled', 'cancelled', true, 5),
      known('med_read_late', 'open', true, 30),
      known('med_read_early', 'tracking', true, 10),
      known('med_never', 'dispatching', false, null),
      // A terminal claim never recorded here (journaled before records were kept): read once to show it.
      known('med_closed_unrecorded', 'closed', false, null),
    ];
    expect(claimsToRead(claims, new Set(['med_listed']), 10)).toEqual(['med_never', 'med_closed_unrecorded', 'med_read_early', 'med_read_late']);
    expect(claimsToRead(claims, new Set(['med_listed']), 3)).toEqual(['med_never', 'med_closed_unrecorded', 'med_read_early']);
    expect(claimsToRead(claims, new Set(['med_listed']), 0)).toEqual([]);
  });

  it('reads a terminal claim no more once it has been read', () => {
    expect(claimsToRead([known('med_closed_unrecorded', 'closed', false, 7)], new Set(), 10)).toEqual([]);
  });
});
