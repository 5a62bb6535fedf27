import { CLAIM_REFERENCE_MAX, claimDetailsKept, claimDetailsProblem } from '../../electron/shared/form-rules.ts';
import type { TextKey } from './i18n.ts';

/** The claim form's fields as typed. */
export interface ClaimDraftFields {
  reason: string;
  details: string;
  reference: string;
}

export type ClaimFormField = 'reason' | 'details' | 'reference';

/**
 * What is wrong with each field of a claim, said beside it before the confirmation is asked
 * (issue 26): the same rules and the same sentences as the core's refusal (claims/rules.ts
 * claimBody, errorText.ts), so nothing the form lets through is refused after "Confirm".
 * The reason list is the core's to judge; an empty choice is what the form can see.
 */
export function claimFormProblems(fields: ClaimDraftFields): Partial<Record<ClaimFormField, TextKey>> {
  const problems: Partial<Record<ClaimFormField, TextKey>> = {};
  if (fields.reason === '') problems.reason = 'error.problem.claim_reason_missing';
  const details = claimDetailsProblem(fields.details);
  if (details !== null) problems.details = `error.problem.${details}`;
  if (fields.reference.trim().length > CLAIM_REFERENCE_MAX) problems.reference = 'error.problem.claim_reference_long';
  return problems;
}

/** The count under Details: characters as the service will keep them. */
export function claimDetailsCount(details: string): number {
  return claimDetailsKept(details).length;
}
