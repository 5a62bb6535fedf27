import { isLang, type Lang } from '../../shared/lang.ts';
import type { JournalEntry, JournalPort } from '../journal/port.ts';

/**
 * The language a store's customers read (issue 26 point 6): its printed QR poster and its
 * customer displays speak it, whatever language the operator at a till chose for their own
 * screen. The service's store (reference 2.1) has no language, so the core keeps it: a
 * manager's choice, journaled in their name, and the journal is where it is read back from.
 * A store nobody chose for speaks the merchant's default language (`settings.setLang`,
 * pt-BR unless a manager or the start-up configuration said otherwise).
 */
export const OFFICE_CUSTOMER_LANG_SET = 'office.customer_lang_set';

/** The newest choice per store, from the journal's entries in order; an entry that does not read is no choice. */
export function customerLangsOf(entries: readonly Pick<JournalEntry, 'type' | 'data'>[]): Map<number, Lang> {
  const langs = new Map<number, Lang>();
  for (const { type, data } of entries) {
    if (type !== OFFICE_CUSTOMER_LANG_SET) continue;
    const storeId = data['store_id'];
    const lang = data['lang'];
    if (typeof storeId === 'number' && Number.isSafeInteger(storeId) && storeId >= 1 && isLang(lang)) langs.set(storeId, lang);
  }
  return langs;
}

export interface CustomerLangView {
  store_id: number;
  lang: Lang;
  /** Whether a manager chose it; false: the merchant's default, followed until someone does. */
  chosen: boolean;
}

export class CustomerLangs {
  #langs = new Map<number, Lang>();

  /** Reads every choice back from the journal (at start). */
  async load(journal: Pick<JournalPort<object>, 'eventsOfType'>): Promise<void> {
    this.#langs = customerLangsOf(await journal.eventsOfType(OFFICE_CUSTOMER_LANG_SET));
  }

  /** The store's customer language, or `fallback` (the merchant's default) when nobody chose one. */
  view(storeId: number, fallback: Lang): CustomerLangView {
    const chosen = this.#langs.get(storeId);
    return { store_id: storeId, lang: chosen ?? fallback, chosen: chosen !== undefined };
  }

  /** Journals the manager's choice, then holds it; choosing the language already chosen journals nothing. */
  async set(journal: Pick<JournalPort<object>, 'append'>, by: string, storeId: number, lang: Lang): Promise<boolean> {
    if (this.#langs.get(storeId) === lang) return false;
    await journal.append([{ type: OFFICE_CUSTOMER_LANG_SET, data: { by, store_id: storeId, lang } }]);
    this.#langs.set(storeId, lang);
    return true;
  }
}
