import { useId, useState } from 'react';
import type { SaleSummary } from '../../electron/core/contract.ts';
import { decimalSeparator, readRefundAmount } from '../lib/amountInput.ts';
import { toUiError, getBridge } from '../lib/bridge.ts';
import { errorText, type UiError } from '../lib/errorText.ts';
import { formatMoney } from '../lib/format.ts';
import { formatTime, type TextKey } from '../lib/i18n.ts';
import { useLang, useText } from '../lib/useText.ts';
import { useShift } from '../stores/shift.ts';

/** Cents as the amount field shows them in the reader's language ("6,00" / "6.00"). */
function typedCents(cents: number, separator: ',' | '.'): string {
  return `${Math.floor(cents / 100)}${separator}${String(cents % 100).padStart(2, '0')}`;
}

const STATE_TEXT: Record<SaleSummary['refunds'][number]['state'], TextKey> = {
  requested: 'refund.state.requested',
  uncertain: 'refund.state.uncertain',
  unconfirmed: 'refund.state.unconfirmed',
  made: 'refund.state.made',
  refused: 'refund.state.refused',
};

/**
 * A paid sale's refunds (contract 5), for a supervisor: what was given back, and **Refund**
 * with **Amount** (prefilled with what is left), **Reason** and **Confirm refund**. The core
 * decides what is left and journals the refund in the name of whoever is signed in here.
 *
 * `offer`: an attention item's amount to give back (issue 26): the button is **Refund R$ X**,
 * the amount is prefilled with X, and the sale's refund lines are left to the journal.
 */
export function RefundSale({ sale, offer }: { sale: SaleSummary; offer?: number }) {
  const t = useText();
  const lang = useLang();
  const loadReport = useShift((s) => s.loadReport);
  const [open, setOpen] = useState(false);
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<UiError | TextKey | null>(null);
  const id = useId();

  const refunds = offer === undefined ? sale.refunds : [];
  const lines = refunds.map((r) => (
    <p key={r.refund_id} className={`refund-line refund-${r.state}`} data-refund-state={r.state}>
      {t(STATE_TEXT[r.state], {
        amount_cents: formatMoney(lang, r.amount_cents),
        refunded_cents: formatMoney(lang, r.refunded_cents ?? r.amount_cents),
        requested_by: r.requested_by,
      })}{' '}
      <span className="muted">{formatTime(lang, r.requested_at)}</span>
      {r.reason && <span className="muted"> · {r.reason}</span>}
      {r.resent_by && <span className="muted"> · {t('refund.resentBy', { by: r.resent_by })}</span>}
      {r.confirmed_by && <span className="muted"> · {t('refund.confirmedBy', { by: r.confirmed_by })}</span>}
    </p>
  ));
  if (sale.refundable_cents <= 0 && !open) return lines.length > 0 ? <div className="refunds">{lines}</div> : null;

  const submit = async () => {
    // Said in a refund's words, and never more than is left (issue 26).
    const typed = readRefundAmount(amount, sale.refundable_cents);
    if (!typed.ok) {
      setError(typed.key);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await getBridge().call('sale.refund', { saleId: sale.sale_id, amountCents: typed.cents, ...(reason.trim() === '' ? {} : { reason: reason.trim() }) });
      setOpen(false);
      await loadReport();
    } catch (err) {
      setError(toUiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="refunds">
      {lines}
      {!open ? (
        <button
          type="button"
          className="secondary refund-button no-print"
          onClick={() => {
            setAmount(typedCents(offer ?? sale.refundable_cents, decimalSeparator(lang)));
            setReason('');
            setError(null);
            setOpen(true);
          }}
        >
          {offer === undefined ? t('refund.open') : t('attention.refundButton', { amount: formatMoney(lang, offer) })}
        </button>
      ) : (
        <form
          className="refund-form no-print"
          aria-label={t('refund.heading')}
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <p className="muted">{t('refund.left', { left_cents: formatMoney(lang, sale.refundable_cents) })}</p>
          <div className="field">
            <label htmlFor={`${id}-amount`}>{t('refund.amount')}</label>
            <input id={`${id}-amount`} inputMode="decimal" autoComplete="off" value={amount} onChange={(e) => setAmount(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor={`${id}-reason`}>{t('refund.reason')}</label>
            <input id={`${id}-reason`} autoComplete="off" value={reason} onChange={(e) => setReason(e.target.value)} />
          </div>
          <div className="refund-actions">
            <button type="submit" className="danger" disabled={busy}>
              {t('refund.confirm')}
            </button>
            <button type="button" className="secondary" onClick={() => setOpen(false)}>
              {t('refund.cancel')}
            </button>
          </div>
          {error && (
            <p className="error" role="alert">
              {typeof error === 'string' ? t(error) : errorText(lang, error)}
            </p>
          )}
        </form>
      )}
    </div>
  );
}
