import { useEffect, useState } from 'react';
import { createPortal } from 'react-dom';
import type { SaleSummary } from '../../electron/core/contract.ts';
import { getBridge, toUiError } from '../lib/bridge.ts';
import { formatMoney } from '../lib/format.ts';
import { useRunner } from '../lib/useRunner.ts';
import { useLang, useText } from '../lib/useText.ts';
import { screenTimeZone } from '../stores/shift.ts';
import { ResultLine } from './FormError.tsx';

/** Statuses of a sale that received a payment: the core prints a receipt of it (and refuses any other). */
const RECEIPTED = new Set<SaleSummary['status']>(['paid', 'paid_late', 'amount_mismatch', 'partly_refunded', 'refunded']);


/**
 * The receipt drawn by the core, alone on the page while the print dialog is open (an
 * ordinary printer): a body class hides everything else for print, and is removed after.
 */
function ReceiptSheet({ svg, onDone }: { svg: string; onDone: () => void }) {
  const t = useText();
  useEffect(() => {
    document.body.classList.add('printing-receipt');
    const done = () => {
      document.body.classList.remove('printing-receipt');
      onDone();
    };
    window.addEventListener('afterprint', done, { once: true });
    // Let the sheet render before the dialog takes the page.
    const timer = setTimeout(() => window.print(), 0);
    return () => {
      clearTimeout(timer);
      window.removeEventListener('afterprint', done);
      document.body.classList.remove('printing-receipt');
    };
  }, []);
  return createPortal(
    <div className="receipt-sheet">
      <img src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`} alt={t('receipt.print')} />
    </div>,
    document.body,
  );
}

/**
 * **Print receipt** after Paid, and a refund's own receipt for each refund the service made,
 * on this till's printer; a till without one prints the same receipt through the print
 * dialog. Printing never changes the sale: a printer that does not answer is a sentence here,
 * and the sale stays as it was.
 */
export function PrintReceipt({ sale }: { sale: SaleSummary }) {
  const t = useText();
  const lang = useLang();
  const { busy, result, run } = useRunner();
  const [sheet, setSheet] = useState<string | null>(null);
  if (!RECEIPTED.has(sale.status)) return null;
  const timeZone = screenTimeZone();
  const made = sale.refunds.filter((r) => r.state === 'made');
  const print = (refundId?: string) =>
    void run(
      async () => {
        try {
          await (refundId === undefined
            ? getBridge().call('receipt.print', { saleId: sale.sale_id, timeZone })
            : getBridge().call('receipt.printRefund', { saleId: sale.sale_id, refundId, timeZone }));
          return 'printer' as const;
        } catch (err) {
          if (toUiError(err).params?.['problem'] !== 'printer_not_set') throw err;
          const drawn = await getBridge().call('receipt.sheet', { saleId: sale.sale_id, timeZone, ...(refundId === undefined ? {} : { refundId }) });
          setSheet(drawn.svg);
          return 'dialog' as const;
        }
      },
      (where) => t(where === 'printer' ? 'receipt.printed' : 'receipt.dialog'),
    );
  return (
    <div className="print-receipt">
      <div className="actions">
        <button
          type="button"
          className="secondary"
          disabled={busy}
          data-testid="print-receipt"
          onClick={() => print()}
        >
          {t('receipt.print')}
        </button>
        {made.map((r) => (
          <button
            key={r.refund_id}
            type="button"
            className="secondary"
            disabled={busy}
            onClick={() => print(r.refund_id)}
          >
            {t('receipt.printRefund', { amount: formatMoney(lang, r.refunded_cents ?? r.amount_cents) })}
          </button>
        ))}
      </div>
      <ResultLine result={result} />
      {sheet !== null && <ReceiptSheet svg={sheet} onDone={() => setSheet(null)} />}
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
