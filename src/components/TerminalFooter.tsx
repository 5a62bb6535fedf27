import { formatTime } from '../lib/i18n.ts';
import { useLang, useText } from '../lib/useText.ts';
import { useStatus } from '../stores/status.ts';

/** Which terminal this is, where its payments go, and whose shift it is: on every screen. */
export function TerminalFooter() {
  const t = useText();
  const lang = useLang();
  const status = useStatus((s) => s.status);
  if (!status) return null;
  return (
    <footer className="terminal-line" aria-label={t('footer.label')}>
      <span>
        {t('status.core')}: <strong data-testid="core-state">{t(`state.${status.state}`)}</strong>
      </span>
      <span data-testid="service-mode" data-service-url={status.service.baseUrl ?? ''}>
        {t(`status.serviceMode.${status.service.mode}`)}
        {status.service.baseUrl ? ` (${status.service.baseUrl})` : ''}
      </span>
      {/* A paired till says which device it is, so a cashier knows which checkout they ring up on. */}
      <span data-testid="terminal">
        {status.device
          ? t('footer.device', { name: status.device.name, store: status.terminal.storeId, checkout: status.terminal.checkoutId })
          : t('status.terminalValue', { store: status.terminal.storeId, checkout: status.terminal.checkoutId })}
      </span>
      <span data-testid="shift-line">
        {status.shift ? t('footer.shiftOpen', { at: formatTime(lang, status.shift.opened_at), by: status.shift.opened_by }) : t('footer.noShift')}
      </span>
      <span>
        {t('status.version')} {status.version}
      </span>
    </footer>
  );
}
