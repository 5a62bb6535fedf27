import { isLang, type Lang } from '../../electron/core/contract.ts';

/**
 * This device's own language (issue 25): kept in the device's own storage (the browser's, or
 * the Electron profile's, which the store computer's till and customer-display windows share),
 * never in the core. Choosing it needs no bridge call, so a signed-out till changes its own
 * screen's language and nothing of the merchant's. With none chosen, the device speaks the
 * store's default, which a manager sets (`settings.setLang`).
 */
export const LANG_KEY = 'pos.lang';

/** The device's storage, or null where the page may not have one (a locked-down browser). */
function deviceStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

/** The language this device chose, or null (none, or a value that is not one of ours). */
export function savedLang(storage: Storage | null = deviceStorage()): Lang | null {
  try {
    const value = storage?.getItem(LANG_KEY) ?? null;
    return isLang(value) ? value : null;
  } catch {
    return null;
  }
}

/** Keeps the choice on this device; where it cannot be kept, it lasts as long as the page. */
export function saveLang(lang: Lang, storage: Storage | null = deviceStorage()): void {
  try {
    storage?.setItem(LANG_KEY, lang);
  } catch {
    // Storage full or refused: the page still speaks it until it is reloaded.
  }
}

/** The language to speak: the device's own choice, else the store's default. */
export function spokenLang(own: Lang | null, storeDefault: Lang): Lang {
  return own ?? storeDefault;
}

/**
 * Told when another page of this device changes its language (the store computer's till
 * windows share one choice; its customer display speaks the store's customers' language
 * instead). Returns the unsubscribe function.
 */
export function onLangSaved(listener: (lang: Lang) => void, target: Pick<Window, 'addEventListener' | 'removeEventListener'> | null = typeof window === 'undefined' ? null : window): () => void {
  if (!target?.addEventListener) return () => undefined;
  const handler = (e: StorageEvent) => {
    if (e.key === LANG_KEY && isLang(e.newValue)) listener(e.newValue);
  };
  target.addEventListener('storage', handler as EventListener);
  return () => target.removeEventListener('storage', handler as EventListener);
}
