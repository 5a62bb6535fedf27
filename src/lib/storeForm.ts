import { isEmail, isPhone } from '../../electron/shared/form-rules.ts';
import type { TextKey } from './i18n.ts';

/** The Store form's fields as typed, by the bridge's names. */
export type StoreFormFields = Record<'name' | 'address' | 'phone' | 'email', string>;
export type StoreFormField = keyof StoreFormFields;
/** The optional fields an edit may clear (reference 4.1: the name never). */
export type ClearableStoreField = 'address' | 'phone' | 'email';

/**
 * What is wrong with each field of the Store form, said beside it before anything is sent
 * (issue 26), by the rules the core refuses with (backoffice/rules.ts, shared/form-rules.ts).
 * `current`: on an edit, the store's values; one left as it is is not judged (the core does
 * not send it). A cleared field is empty and has nothing to judge.
 */
export function storeFormProblems(form: StoreFormFields, current: StoreFormFields | null = null): Partial<Record<StoreFormField, TextKey>> {
  const problems: Partial<Record<StoreFormField, TextKey>> = {};
  const changed = (f: StoreFormField) => current === null || form[f].trim() !== current[f];
  if (form.name.trim() === '') problems.name = 'error.problem.store_name_empty';
  const phone = form.phone.trim();
  if (phone !== '' && changed('phone') && !isPhone(phone)) problems.phone = 'error.problem.store_phone_invalid';
  const email = form.email.trim();
  if (email !== '' && changed('email') && !isEmail(email)) problems.email = 'error.problem.store_email_invalid';
  return problems;
}
