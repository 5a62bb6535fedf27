import type { SaleSummary } from '../../electron/core/contract.ts';
import { getBridge } from '../lib/bridge.ts';
import { formatMoney } from '../lib/format.ts';
import { useRunner } from '../lib/useRunner.ts';
import { useLang, useText } from '../lib/useText.ts';
import { screenTimeZone } from '../stores/shift.ts';
import { ResultLine } from './FormError.tsx';

/** Statuses of a sale that received a payment: the core prints a receipt of it (and refuses any other). */
const RECEIPTED = new Set<SaleSummary['status']>(['paid', 'paid_late', 'amount_mismatch', 'partly_refunded', 'refunded']);


/**
 * **Print receipt** after Paid, and a refund's own receipt for each refund the service made,
 * on this till's printer. Printing never changes the sale: a printer that does not answer is
 * a sentence here, and the sale stays as it was.
 */
export function PrintReceipt({ sale }: { sale: SaleSummary }) {
  const t = useText();
  const lang = useLang();
  const { busy, result, run } = useRunner();
  if (!RECEIPTED.has(sale.status)) return null;
  const timeZone = screenTimeZone();
  const made = sale.refunds.filter((r) => r.state === 'made');
  return (
    <div className="print-receipt">
      <div className="actions">
        <button
          type="button"
          className="secondary"
          disabled={busy}
          data-testid="print-receipt"
          onClick={() => void run(() => getBridge().call('receipt.print', { saleId: sale.sale_id, timeZone }), () => t('receipt.printed'))}
        >
          {t('receipt.print')}
        </button>
        {made.map((r) => (
          <button
            key={r.refund_id}
            type="button"
            className="secondary"
            disabled={busy}
            onClick={() => void run(() => getBridge().call('receipt.printRefund', { saleId: sale.sale_id, refundId: r.refund_id, timeZone }), () => t('receipt.printed'))}
          >
            {t('receipt.printRefund', { amount: formatMoney(lang, r.refunded_cents ?? r.amount_cents) })}
          </button>
        ))}
      </div>
      <ResultLine result={result} />
    </div>
  );
}

/**
 * The end-of-shift report on this till's receipt printer, the same way as a receipt: its
 * totals as the Shift journal shows them. The core prints the shift named, else the open one.
 */
export function PrintShiftReceipt({ shiftId }: { shiftId: string }) {
  const t = useText();
  const { busy, result, run } = useRunner();
  return (
    <>
      <button
        type="button"
        className="secondary"
        disabled={busy}
        onClick={() => void run(() => getBridge().call('receipt.printShift', { shiftId, timeZone: screenTimeZone() }), () => t('receipt.printed'))}
      >
        {t('receipt.printShift')}
      </button>
      <ResultLine result={result} />
    </>
  );
}
