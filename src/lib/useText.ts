import { useCallback } from 'react';
import type { Lang } from '../../electron/core/contract.ts';
import { useStatus } from '../stores/status.ts';
import { translate, type TextKey, type TextParams } from './i18n.ts';

/** The terminal's current language. */
export function useLang(): Lang {
  return useStatus((s) => s.lang);
}

/** The translate function for the terminal's current language. */
export function useText() {
  const lang = useLang();
  return useCallback((key: TextKey, params?: TextParams) => translate(lang, key, params), [lang]);
}
