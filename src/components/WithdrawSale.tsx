import { ErrorAlert } from './FormError.tsx';
import { Icon } from './Icon.tsx';
import { useEffect, useRef, useState } from 'react';
import type { SaleSummary } from '../../electron/core/contract.ts';
import { errorText } from '../lib/errorText.ts';
import { formatMoney } from '../lib/format.ts';
import { useLang, useText } from '../lib/useText.ts';
import { useCheckout } from '../stores/checkout.ts';

/**
 * Withdraw sale, behind a confirmation that names exactly that. The service has no cancel:
 * the confirmation says the sale stays payable until it expires, and that a payment then
 * needs a person. `newer`: offered as the way out of a hold (withdraw the newer sale).
 */
export function WithdrawSale({ sale, newer, disabled }: { sale: SaleSummary; newer: boolean; disabled: boolean }) {
  const t = useText();
  const lang = useLang();
  const withdraw = useCheckout((s) => s.withdraw);
  const busy = useCheckout((s) => s.withdrawing === sale.sale_id);
  const error = useCheckout((s) => s.withdrawError);
  const [asking, setAsking] = useState(false);
  const keepRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    // The safe answer has the focus: Enter on a confirmation must not withdraw by accident.
    if (asking) keepRef.current?.focus();
  }, [asking]);
  useEffect(() => setAsking(false), [sale.sale_id]);

  if (!asking) {
    return (
      <div className="withdraw">
        <button type="button" className="secondary withdraw-button" aria-disabled={disabled || undefined} onClick={() => !disabled && setAsking(true)}>
          <Icon name="cross" /> {t(newer ? 'withdraw.newer' : 'withdraw.button')}
        </button>
        {error && <ErrorAlert>{errorText(lang, error)}</ErrorAlert>}
      </div>
    );
  }
  const questionId = `withdraw-question-${sale.sale_id}`;
  return (
    <div className="withdraw withdraw-confirm" role="alertdialog" aria-modal="false" aria-labelledby={questionId}>
      <p id={questionId} className="withdraw-question">
        {t('withdraw.question', { amount: formatMoney(lang, sale.amount_cents) })}
      </p>
      <div className="withdraw-actions">
        <button
          type="button"
          className="danger"
          disabled={busy}
          onClick={() => {
            void withdraw(sale.sale_id).then((ok) => ok && setAsking(false));
          }}
        >
          {t('withdraw.confirm')}
        </button>
        <button type="button" className="secondary" ref={keepRef} onClick={() => setAsking(false)}>
          {t('withdraw.keep')}
        </button>
      </div>
    </div>
  );
}
