import { useText } from '../lib/useText.ts';
import { useStatus } from '../stores/status.ts';

/**
 * Always-visible health line. Each state has its own word and icon, never colour alone.
 */
export function StatusBar() {
  const t = useText();
  const connection = useStatus((s) => s.connection);
  const service = useStatus((s) => s.status?.service);

  if (connection !== 'open') {
    return (
      <p className="status-bar status-bad" role="status" aria-live="polite">
        <span aria-hidden="true">⚠</span> {t(`connection.${connection}`)}
      </p>
    );
  }
  const reachable = service?.reachable;
  const text = reachable === true ? t('status.reachable') : reachable === false ? t('status.unreachable') : t('status.unchecked');
  return (
    <p className={`status-bar ${reachable === false ? 'status-bad' : reachable ? 'status-good' : ''}`} role="status" aria-live="polite">
      <span aria-hidden="true">{reachable === false ? '✕' : reachable ? '✓' : '…'}</span> {text}
    </p>
  );
}
