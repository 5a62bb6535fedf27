import { isRecordId } from '../../electron/shared/form-rules.ts';

/** A pairing code as a person reads it aloud: two groups of four digits ("1234 5678"). */
export function formatPairingCode(code: string): string {
  return /^\d{8}$/.test(code) ? `${code.slice(0, 4)} ${code.slice(4)}` : code;
}

/** The checkout picker's choice for a number typed by hand (one the service does not list yet). */
export const OTHER_CHECKOUT = 'other';

/**
 * The store or checkout a pairing is for, from the picker (issue 26: picked from the service's
 * lists, not typed as raw numbers): the chosen id, or, for OTHER_CHECKOUT or where the lists
 * could not be read, the number typed. Null when it is not a whole number from 1.
 */
export function pickedId(choice: string, typed: string): number | null {
  const text = (choice === OTHER_CHECKOUT ? typed : choice).trim();
  if (!/^\d{1,10}$/.test(text)) return null;
  const id = Number(text);
  return isRecordId(id) ? id : null;
}

/** A store and checkout as picked (or typed where the lists could not be read). */
export interface StoreCheckoutChoice {
  /** The store picked, or its number typed. */
  store: string;
  /** The checkout picked (OTHER_CHECKOUT: typed in otherCheckout), or its number typed. */
  checkout: string;
  otherCheckout: string;
}

/**
 * The checkout chosen once the store's checkouts are listed: the one chosen before stays if the
 * store lists it (or Another checkout was chosen). A form that opens on a checkout of its own
 * (Settings: this terminal's, `keepUnlisted`) keeps it as Another checkout with its number, so
 * what is saved is never changed behind the manager's back; otherwise the first listed one, or
 * Another checkout when none is listed.
 */
export function checkoutAfterListing(now: StoreCheckoutChoice, listed: readonly number[], keepUnlisted: boolean): StoreCheckoutChoice {
  if (now.checkout === OTHER_CHECKOUT || listed.some((id) => String(id) === now.checkout)) return now;
  if (keepUnlisted && pickedId(now.checkout, '') !== null) return { ...now, checkout: OTHER_CHECKOUT, otherCheckout: now.checkout };
  return { ...now, checkout: listed[0] !== undefined ? String(listed[0]) : OTHER_CHECKOUT };
}
