import { useState } from 'react';
import type { AttentionMessage, SaleSummary } from '../../electron/core/contract.ts';
import { ErrorAlert } from './FormError.tsx';
import { getBridge } from '../lib/bridge.ts';
import { errorText } from '../lib/errorText.ts';
import { formatMoney } from '../lib/format.ts';
import { useAttempt } from '../lib/useAttempt.ts';
import { useLang, useText } from '../lib/useText.ts';
import { selectRole, useAuth } from '../stores/auth.ts';

/**
 * A supervisor's answer to a refund not confirmed (its outcome unknown, and asking again
 * could refund the customer twice): **It was refunded**, or **Send again** behind a
 * confirmation that names the amount. The core journals either in the name of whoever is
 * signed in here, and refuses a cashier whatever this screen shows.
 */
export function RefundAnswer({ sale, item }: { sale: SaleSummary; item: AttentionMessage }) {
  const t = useText();
  const lang = useLang();
  const role = useAuth(selectRole);
  const [confirming, setConfirming] = useState(false);
  const { busy, error, attempt } = useAttempt();
  const amountCents = typeof item.params['amount_cents'] === 'number' ? item.params['amount_cents'] : null;
  if (role === 'cashier' || role === null) return <p className="muted">{t('refund.askSupervisor')}</p>;

  const act = (call: () => Promise<unknown>) =>
    attempt(async () => {
      await call();
      setConfirming(false);
    });
  const refundId = item.subject;
  const amount = amountCents === null ? '' : formatMoney(lang, amountCents);
  return (
    <div className="refund-answer">
      {!confirming ? (
        <div className="refund-actions">
          <button type="button" disabled={busy} onClick={() => void act(() => getBridge().call('sale.refundWasMade', { saleId: sale.sale_id, refundId }))}>
            {t('refund.wasMade')}
          </button>
          <button type="button" className="secondary" disabled={busy || amountCents === null} onClick={() => setConfirming(true)}>
            {t('refund.sendAgain')}
          </button>
        </div>
      ) : (
        <div className="refund-confirm" role="group" aria-label={t('refund.sendAgain')}>
          <p>{t('refund.sendAgainConfirm', { amount })}</p>
          <div className="refund-actions">
            <button
              type="button"
              className="danger"
              disabled={busy}
              onClick={() => void act(() => getBridge().call('sale.refundSendAgain', { saleId: sale.sale_id, refundId, amountCents: amountCents ?? 0 }))}
            >
              {t('refund.sendAgainYes', { amount })}
            </button>
            <button type="button" className="secondary" disabled={busy} onClick={() => setConfirming(false)}>
              {t('refund.cancel')}
            </button>
          </div>
        </div>
      )}
      {error && <ErrorAlert>{errorText(lang, error)}</ErrorAlert>}
    </div>
  );
}
