import { LANGS, type Lang } from '../../electron/core/contract.ts';
import { useText } from '../lib/useText.ts';
import { useStatus } from '../stores/status.ts';

/** Each language named in itself, so anyone can find theirs. */
export const LANGUAGE_NAMES: Record<Lang, string> = { 'pt-BR': 'Português (Brasil)', en: 'English', es: 'Español' };

/**
 * This device's language, for anyone at its screen (the sign-in screen too): kept on the
 * device (lib/langPreference.ts), never the merchant's. The store's default is a manager's
 * setting (SettingsScreen).
 */
export function LanguageSelect() {
  const t = useText();
  const lang = useStatus((s) => s.lang);
  const setLang = useStatus((s) => s.setLang);
  return (
    <label className="inline-field language-select">
      <span className="language-label">{t('settings.language')}</span>
      <select value={lang} onChange={(e) => setLang(e.target.value as Lang)}>
        {LANGS.map((l) => (
          <option key={l} value={l} lang={l}>
            {LANGUAGE_NAMES[l]}
          </option>
        ))}
      </select>
    </label>
  );
}
