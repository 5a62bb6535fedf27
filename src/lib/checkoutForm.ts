import { checkoutDescProblem } from '../../electron/shared/form-rules.ts';
import type { TextKey } from './i18n.ts';

/** The Add checkout form as typed and picked: no wallet is null. */
export interface CheckoutFormFields {
  description: string;
  walletId: number | null;
}

export type CheckoutFormField = 'description' | 'wallet';

/**
 * What is wrong with each field of Add checkout, said beside it before anything is sent
 * (issue 26), by the rule the core refuses with (electron/shared/form-rules.ts,
 * backoffice/rules.ts checkoutDesc). Which wallets may be picked is the service's to judge;
 * the form can see that none was.
 */
export function checkoutFormProblems(fields: CheckoutFormFields): Partial<Record<CheckoutFormField, TextKey>> {
  const problems: Partial<Record<CheckoutFormField, TextKey>> = {};
  const desc = checkoutDescProblem(fields.description);
  if (desc !== null) problems.description = `error.problem.${desc}`;
  if (fields.walletId === null) problems.wallet = 'error.problem.checkout_wallet_missing';
  return problems;
}
