import { LANGS, type Lang } from '../../electron/core/contract.ts';
import { formatDateTime } from '../lib/i18n.ts';
import { useText } from '../lib/useText.ts';
import { useStatus } from '../stores/status.ts';

const LANGUAGE_NAMES: Record<Lang, string> = { 'pt-BR': 'Português (Brasil)', en: 'English', es: 'Español' };

export function StatusScreen() {
  const t = useText();
  const status = useStatus((s) => s.status);
  const error = useStatus((s) => s.error);
  const lang = useStatus((s) => s.lang);
  const checkService = useStatus((s) => s.checkService);
  const setLang = useStatus((s) => s.setLang);

  return (
    <section className="card" aria-labelledby="status-heading">
      <h2 id="status-heading">{t('status.heading')}</h2>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {status && (
        <dl className="facts">
          <dt>{t('status.core')}</dt>
          <dd data-testid="core-state">{t(`state.${status.state}`)}</dd>
          <dt>{t('status.service')}</dt>
          <dd data-testid="service-mode">
            {t(`status.serviceMode.${status.service.mode}`)}
            {status.service.baseUrl ? ` (${status.service.baseUrl})` : ''}
          </dd>
          <dt>{t('status.terminal')}</dt>
          <dd>{t('status.terminalValue', { store: status.terminal.storeId, checkout: status.terminal.checkoutId })}</dd>
          {status.service.problem && (
            <>
              <dt>⚠</dt>
              <dd role="alert">{status.service.problem.message}</dd>
            </>
          )}
          <dt>{t('status.version')}</dt>
          <dd>{status.version}</dd>
          {status.startedAt && (
            <>
              <dt>{t('status.startedAt')}</dt>
              <dd>{formatDateTime(lang, status.startedAt)}</dd>
            </>
          )}
        </dl>
      )}
      <div className="actions">
        <button type="button" onClick={() => void checkService()}>
          {t('status.checkNow')}
        </button>
        <label>
          {t('settings.language')}{' '}
          <select value={lang} onChange={(e) => void setLang(e.target.value as Lang)}>
            {LANGS.map((l) => (
              <option key={l} value={l}>
                {LANGUAGE_NAMES[l]}
              </option>
            ))}
          </select>
        </label>
      </div>
    </section>
  );
}
