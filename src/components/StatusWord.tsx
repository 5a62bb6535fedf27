import { Icon } from './Icon.tsx';
import type { SaleStatus } from '../../electron/core/contract.ts';
import { STATUS_ICON, statusWordKey } from '../lib/messages.ts';
import { useText } from '../lib/useText.ts';

/**
 * A sale's state as icon + word + colour class: the three always go together. `expiring`: a
 * pending sale past its expiry, waiting for its last read (checkoutView.isExpiringAt).
 */
export function StatusWord({ status, large = false, expiring = false }: { status: SaleStatus; large?: boolean; expiring?: boolean }) {
  const t = useText();
  if (expiring) {
    return (
      <span className={`status-word st-expiring${large ? ' status-word-large' : ''}`}>
        <Icon name="hourglass" />
        {t('outcome.expiring')}
      </span>
    );
  }
  return (
    <span className={`status-word st-${status}${large ? ' status-word-large' : ''}`}>
      <Icon name={STATUS_ICON[status]} />
      {t(statusWordKey(status))}
    </span>
  );
}
