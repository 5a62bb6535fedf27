import { LANGS, type Lang } from '../../electron/core/contract.ts';
import { useText } from '../lib/useText.ts';
import { useStatus } from '../stores/status.ts';

/** Each language named in itself, so anyone can find theirs. */
export const LANGUAGE_NAMES: Record<Lang, string> = { 'pt-BR': 'Português (Brasil)', en: 'English', es: 'Español' };

/** The terminal's language; the core keeps the choice in its settings. */
export function LanguageSelect() {
  const t = useText();
  const lang = useStatus((s) => s.lang);
  const setLang = useStatus((s) => s.setLang);
  return (
    <label className="inline-field language-select">
      <span className="language-label">{t('settings.language')}</span>
      <select value={lang} onChange={(e) => void setLang(e.target.value as Lang)}>
        {LANGS.map((l) => (
          <option key={l} value={l} lang={l}>
            {LANGUAGE_NAMES[l]}
          </option>
        ))}
      </select>
    </label>
  );
}
