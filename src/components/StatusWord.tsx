import { Icon } from './Icon.tsx';
import type { SaleStatus } from '../../electron/core/contract.ts';
import { STATUS_ICON, statusWordKey } from '../lib/messages.ts';
import { useText } from '../lib/useText.ts';

/** A sale's state as icon + word + colour class: the three always go together. */
export function StatusWord({ status, large = false }: { status: SaleStatus; large?: boolean }) {
  const t = useText();
  return (
    <span className={`status-word st-${status}${large ? ' status-word-large' : ''}`}>
      <Icon name={STATUS_ICON[status]} />
      {t(statusWordKey(status))}
    </span>
  );
}
