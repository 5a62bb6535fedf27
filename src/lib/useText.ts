import { useCallback } from 'react';
import { useStatus } from '../stores/status.ts';
import { translate, type TextKey } from './i18n.ts';

/** The translate function for the terminal's current language. */
export function useText() {
  const lang = useStatus((s) => s.lang);
  return useCallback((key: TextKey, params?: Record<string, string | number>) => translate(lang, key, params), [lang]);
}
