import { describe, expect, it } from 'vitest';
import { claimDetailsCount, claimFormProblems } from './claimForm.ts';

const ok = { reason: 'scam', details: 'A fake invoice was paid.', reference: '' };

describe('the claim form names each wrong field before the confirmation (issue 26)', () => {
  it.each([
    ['everything right', ok, {}],
    ['details of 5 characters', { ...ok, details: 'abcde' }, { details: 'error.problem.claim_details_short' }],
    ['details of 9 and line breaks', { ...ok, details: '\n\nabcdefghi\n\n' }, { details: 'error.problem.claim_details_short' }],
    ['details of 4001', { ...ok, details: 'x'.repeat(4001) }, { details: 'error.problem.claim_details_long' }],
    ['no reason chosen', { ...ok, reason: '' }, { reason: 'error.problem.claim_reason_missing' }],
    ['a reference of 129', { ...ok, reference: 'r'.repeat(129) }, { reference: 'error.problem.claim_reference_long' }],
    ['a reference of 128 with spaces around', { ...ok, reference: ` ${'r'.repeat(128)} ` }, {}],
    ['all three wrong at once', { reason: '', details: '', reference: 'r'.repeat(200) }, {
      reason: 'error.problem.claim_reason_missing',
      details: 'error.problem.claim_details_short',
      reference: 'error.problem.claim_reference_long',
    }],
  ])('%s', (_name, fields, expected) => {
    expect(claimFormProblems(fields)).toEqual(expected);
  });

  it('counts details as the service keeps them', () => {
    expect(claimDetailsCount('  lost\r\n\nphone  ')).toBe(10);
  });
});
