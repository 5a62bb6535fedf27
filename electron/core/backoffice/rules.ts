/**
 * The back office's rules (issue 10), pure: what a manager's form becomes at the service,
 * which answers mean what, and what is refused before anything is sent. backoffice.ts calls
 * these and nothing else decides them.
 */
import { validateBrCode } from '../../shared/emv.ts';
import { CHECKOUT_DESC_MAX, checkoutDescProblem, isEmail, isPhone } from '../../shared/form-rules.ts';
import { ServiceError } from '../api/errors.ts';
import type { Store, StorePatch } from '../api/routes/stores.ts';
import type { Wallet } from '../api/routes/wallets.ts';
import { CoreError } from '../errors.ts';

/** What the Store form sends: every field as typed (an empty one is ''). */
export interface StoreForm {
  store_name: string;
  address: string;
  phone_number: string;
  email: string;
  /** On an edit, the optional fields the person chose to clear (issue 26); their typed text is ''. */
  clear?: readonly OptionalStoreField[];
}

export const STORE_FIELDS = ['store_name', 'address', 'phone_number', 'email'] as const;
export type StoreField = (typeof STORE_FIELDS)[number];
export const OPTIONAL_STORE_FIELDS = ['address', 'phone_number', 'email'] as const;
export type OptionalStoreField = (typeof OPTIONAL_STORE_FIELDS)[number];

/**
 * A typed phone or email is one a person can reach (issue 26: "not-an-email" was accepted);
 * the form checks the same rule first (electron/shared/form-rules.ts). Empty is not checked:
 * it means no value, or keep the one there is.
 */
function checkContact(field: 'phone_number' | 'email', value: string): void {
  if (value === '') return;
  if (field === 'email' && !isEmail(value)) {
    throw refuse('store_email_invalid', 'Email: type an address like loja@example.com, or leave it empty.', 'email');
  }
  if (field === 'phone_number' && !isPhone(value)) {
    throw refuse('store_phone_invalid', 'Phone: type 8 to 15 digits, like +55 11 3456-7890, or leave it empty.', 'phone_number');
  }
}

/** Reference 8 (printed QR checkout_desc 1 to 140): the rule the Add checkout form checks too. */
export const MAX_CHECKOUT_DESC = CHECKOUT_DESC_MAX;

function refuse(problem: string, message: string, field: string): CoreError {
  return new CoreError('invalid_argument', message, { problem, field });
}

/** A new store: a name is required (reference 4.1); empty optional fields are left out. */
export function newStoreBody(form: StoreForm): { store_name: string; address?: string; phone_number?: string; email?: string } {
  const name = form.store_name.trim();
  if (name === '') throw refuse('store_name_empty', 'A store needs a name.', 'store_name');
  const body: { store_name: string; address?: string; phone_number?: string; email?: string } = { store_name: name };
  for (const f of OPTIONAL_STORE_FIELDS) {
    const value = form[f].trim();
    if (f !== 'address') checkContact(f, value);
    if (value !== '') body[f] = value;
  }
  return body;
}

/**
 * An edit (reference 4.1: a field left out keeps its value): an empty field is left out and
 * named in `kept`, so the form can say it keeps its value; an unchanged field is not sent;
 * the name cannot be emptied (refused, nothing sent). An optional field the person chose to
 * clear (issue 26) is sent as '': 4.1 keeps a field left out or sent as null, and asks at
 * least one character of the name only, so '' is the one way to ask for none. `cleared`
 * names the fields so asked; changeStore then checks the service's answer holds none of them
 * (clearedStore). Asking to clear the name, or a field that is not a store's, is refused.
 */
export function storePatch(current: Store, form: StoreForm): { patch: StorePatch; kept: StoreField[]; cleared: OptionalStoreField[] } {
  if (form.store_name.trim() === '') throw refuse('store_name_empty', 'A store’s name cannot be emptied; type a name.', 'store_name');
  for (const f of form.clear ?? []) {
    if (!(OPTIONAL_STORE_FIELDS as readonly string[]).includes(f)) {
      throw refuse('store_clear_name', `Only a store's address, phone and email can be cleared, not ${String(f)}: a store always has a name.`, String(f));
    }
  }
  const clear = new Set<StoreField>(form.clear ?? []);
  const patch: StorePatch = {};
  const kept: StoreField[] = [];
  const cleared: OptionalStoreField[] = [];
  for (const f of STORE_FIELDS) {
    const value = form[f].trim();
    const had = current[f] !== null && current[f] !== '';
    if (f !== 'store_name' && clear.has(f)) {
      if (value !== '') throw refuse('store_clear_with_value', `A field is either cleared or given a new value, not both: untick Clear, or empty the field (${f}).`, f);
      if (had) {
        patch[f] = '';
        cleared.push(f);
      }
    } else if (value === '') {
      if (had) kept.push(f);
    } else if (value !== current[f]) {
      if (f === 'phone_number' || f === 'email') checkContact(f, value);
      patch[f] = value;
    }
  }
  return { patch, kept, cleared };
}

/**
 * The store as the service answered an edit that cleared `cleared`: those fields absent
 * (null, as the service writes a field never given). The service may not clear a field
 * (reference 4.1 says a field "cannot be cleared" by null or by leaving it out): if its
 * answer still holds a value for one, that is said, and the form does not claim it was
 * cleared. The other fields of the edit were saved by then.
 */
export function clearedStore(answer: Store, cleared: readonly OptionalStoreField[]): Store {
  const still = cleared.filter((f) => answer[f] !== null && answer[f] !== '');
  if (still.length > 0) {
    throw new CoreError(
      'service_rejected',
      `The payment service kept ${still.join(', ')} of store ${answer.store_id} although the edit cleared ${still.length === 1 ? 'it' : 'them'}; the rest of the edit was saved. Ask the payment service's support to remove ${still.length === 1 ? 'it' : 'them'}.`,
      { problem: 'store_clear_kept', field: still.join(',') },
    );
  }
  const store: Store = { ...answer };
  for (const f of cleared) store[f] = null;
  return store;
}

/** A checkout's description: 1 to 140 characters (counted as a person counts them). */
export function checkoutDesc(typed: string): string {
  const problem = checkoutDescProblem(typed);
  if (problem === 'checkout_desc_empty') throw refuse(problem, 'A checkout needs a description.', 'checkout_desc');
  if (problem === 'checkout_desc_too_long') throw refuse(problem, `A checkout's description can have at most ${MAX_CHECKOUT_DESC} characters.`, 'checkout_desc');
  return typed.trim();
}

/** Change wallet asks first (reference 4.2: every later payment, older QRs included, settles to the new wallet). */
export function requireWalletConfirmation(confirmed: boolean): void {
  if (!confirmed) {
    throw new CoreError(
      'invalid_argument',
      'Confirm first that every payment processed on this checkout from now on, including QRs created before, settles to the new wallet.',
      { problem: 'wallet_change_unconfirmed', field: 'confirm' },
    );
  }
}

/** Reference 2.2: only `printed_dynamic_qr` is printed mode; null or `dynamic` is dynamic. */
export function modeOf(defaultQr: string | null): 'printed' | 'dynamic' {
  return defaultQr === 'printed_dynamic_qr' ? 'printed' : 'dynamic';
}

/** Reference 4.3: the config value of each mode. */
export const MODE_CONFIG = { printed: 'printed_dynamic_qr', dynamic: 'dynamic' } as const;

/**
 * Reference 4.3: printed mode on a checkout with no printed QR breaks its later charges, so
 * the app never writes it: the person is sent to Print QR poster instead.
 */
export function modeConfig(mode: 'printed' | 'dynamic', hasPrintedQr: boolean): { config_type: 'default_qr'; config_value: string } {
  if (mode === 'printed' && !hasPrintedQr) {
    throw new CoreError('conflict', 'This checkout has no printed QR yet, so it cannot use one: print its QR poster first (that also switches it to the printed QR).', {
      reason: 'no_printed_qr',
      problem: 'mode_needs_printed_qr',
    });
  }
  return { config_type: 'default_qr', config_value: MODE_CONFIG[mode] };
}

/** A wallet address as the screens show it: enough to recognise, not the whole of it. */
export function maskAddress(address: string): string {
  const chars = [...address];
  if (chars.length <= 12) return address;
  return `${chars.slice(0, 6).join('')}…${chars.slice(-4).join('')}`;
}

export interface WalletChoice {
  wallet_id: number;
  address: string;
  network: string;
  currency: string;
  /** Contract 5: a deprecated network answers `Wallet network deprecated`: shown, not choosable. */
  deprecated: boolean;
}

export function walletChoices(wallets: readonly Wallet[]): WalletChoice[] {
  return wallets.map((w) => ({ wallet_id: w.wallet_id, address: maskAddress(w.address), network: w.network, currency: w.currency, deprecated: w.deprecated }));
}

/**
 * The QR of a poster is shown and printed only once its CRC and structure check out: a
 * corrupted `qr_emvcode` on a wall would take payments nowhere.
 */
export function checkedPosterEmv(emv: string): string {
  const check = validateBrCode(emv);
  if (!check.ok) {
    throw new CoreError('service_rejected', `The payment service sent a printed QR that does not check out (${check.message}); it is not shown: try again, and tell support if it happens again.`, {
      problem: 'printed_qr_invalid',
    });
  }
  return emv;
}

/** Reference 4.4 rule 6: the detail of a gateway without printed QRs (status not shown: read by detail). */
const DETAIL_PRINTED_UNSUPPORTED = "Printed dynamic QRs aren't available for this merchant";

/**
 * The sentences of the back office for the service's answers (reference 7): the generic
 * ones of the client speak of a till's charge; these speak of stores and checkouts. The
 * problem names a text key of the renderer (error.problem.*); code and outcome are kept.
 */
const OFFICE_PROBLEM: Readonly<Record<string, { problem: string; message: string }>> = {
  scope: {
    problem: 'office_scope',
    message: "The app's payment service token lacks the pay-in scope, which managing stores, checkouts and printed QRs needs; ask for a token with the pay-in scope.",
  },
  role: {
    problem: 'office_role',
    message: "The payment service user of the app's token does not have the manager role, which managing stores, checkouts and printed QRs needs; ask for a manager's token.",
  },
  not_found: { problem: 'office_not_found', message: 'The payment service does not have that store or checkout for this merchant; reload the list.' },
  validation: { problem: 'office_validation', message: 'The payment service did not accept what was typed; check the fields and try again.' },
  bad_request: { problem: 'office_bad_request', message: 'The payment service refused the request as it was sent; check the fields and try again.' },
  conflict: { problem: 'office_conflict', message: 'The payment service has something that conflicts with this change; reload the list and try again.' },
};

/** A service error as the back office words it; anything else passes unchanged. */
export function officeError(err: unknown): unknown {
  if (!(err instanceof ServiceError)) return err;
  if (err.detail === DETAIL_PRINTED_UNSUPPORTED) {
    return new CoreError(
      err.code,
      "The payment gateway of this merchant does not offer printed QRs (reference 4.4 rule 6): nothing was created and the checkout stays on dynamic QRs.",
      { ...err.params, problem: 'printed_qr_unsupported' },
      { cause: err },
    );
  }
  const office = OFFICE_PROBLEM[err.problem];
  if (office === undefined) return err;
  const message = err.problem === 'validation' ? err.message : office.message;
  return new CoreError(err.code, message, { ...err.params, problem: office.problem }, { cause: err });
}
