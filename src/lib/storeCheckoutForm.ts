import { OTHER_CHECKOUT, pickedId, type StoreCheckoutChoice } from './devices.ts';
import type { TextKey } from './i18n.ts';

/** Each field's name is the end of its control's id (`pair-…`, `settings-…`), for focusFirstProblem. */
export type StoreCheckoutField = 'store' | 'checkout' | 'other-checkout';

/** The order the fields stand in, the first wrong one taking the cursor. */
export const STORE_CHECKOUT_ORDER: readonly StoreCheckoutField[] = ['store', 'checkout', 'other-checkout'];

/**
 * What is wrong with a store and checkout picked from the service's lists (issue 26), said
 * beside each field before anything is sent, by the rule the core refuses with
 * (electron/shared/form-rules.ts isRecordId): numbers the service can have. `typing`: the lists
 * could not be read, so both were typed as numbers.
 */
export function storeCheckoutProblems(fields: StoreCheckoutChoice & { typing: boolean }): Partial<Record<StoreCheckoutField, TextKey>> {
  const problems: Partial<Record<StoreCheckoutField, TextKey>> = {};
  if (pickedId(fields.store, '') === null) problems.store = fields.typing ? 'devices.problem.storeNumber' : 'devices.problem.storeMissing';
  if (pickedId(fields.checkout, fields.otherCheckout) === null) {
    if (fields.typing) problems.checkout = 'devices.problem.checkoutNumber';
    else if (fields.checkout === OTHER_CHECKOUT) problems['other-checkout'] = 'devices.problem.checkoutNumber';
    else problems.checkout = 'devices.problem.checkoutMissing';
  }
  return problems;
}
