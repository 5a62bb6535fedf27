import { deviceNameProblem } from '../../electron/shared/form-rules.ts';
import { storeCheckoutProblems } from './storeCheckoutForm.ts';
import type { TextKey } from './i18n.ts';

/** The Pair a till form as picked and typed (the kind is picked from two). */
export interface PairingFormFields {
  /** The store picked, or its number typed where the lists could not be read. */
  store: string;
  /** The checkout picked (OTHER_CHECKOUT: typed in otherCheckout), or its number typed. */
  checkout: string;
  otherCheckout: string;
  name: string;
  /** Whether the lists could not be read, so store and checkout are typed as numbers. */
  typing: boolean;
}

/** Each field's name is the end of its control's id (`pair-…`), for focusFirstProblem. */
export type PairingFormField = 'store' | 'checkout' | 'other-checkout' | 'name';

/** The order the fields stand in, the first wrong one taking the cursor. */
export const PAIRING_FORM_ORDER: readonly PairingFormField[] = ['store', 'checkout', 'other-checkout', 'name'];

/**
 * What is wrong with each field of Pair a till, said beside it before anything is sent
 * (issue 26), by the rules the core refuses with (electron/shared/form-rules.ts; core
 * devices.ts startPairing): a store and a checkout that are numbers the service can have, a
 * name the core keeps (trimmed, 1 to 60 characters). Whether that checkout exists is the
 * service's to judge (a new one is made by its first charge).
 */
export function pairingFormProblems(fields: PairingFormFields): Partial<Record<PairingFormField, TextKey>> {
  const problems: Partial<Record<PairingFormField, TextKey>> = storeCheckoutProblems(fields);
  const name = deviceNameProblem(fields.name);
  if (name !== null) problems.name = `error.problem.${name}`;
  return problems;
}
