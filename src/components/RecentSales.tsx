import type { SaleSummary } from '../../electron/core/contract.ts';
import { isExpiringAt } from '../lib/checkoutView.ts';
import { formatMoney } from '../lib/format.ts';
import { formatTime } from '../lib/i18n.ts';
import { useLang, useText } from '../lib/useText.ts';
import { Card } from './Card.tsx';
import { StatusWord } from './StatusWord.tsx';

/**
 * The checkout's last sales, newest first: a displaced sale shows Displaced at once, and one
 * past its expiry Expiring until its last read (`coreNow`: the view's clock).
 */
export function RecentSales({ sales, limit = 8, coreNow = null }: { sales: readonly SaleSummary[]; limit?: number; coreNow?: number | null }) {
  const t = useText();
  const lang = useLang();
  return (
    <Card id="recent" heading={t('cashier.recent')} className="recent">
      {sales.length === 0 ? (
        <p className="muted">{t('cashier.noRecent')}</p>
      ) : (
        <ol className="recent-list">
          {sales.slice(0, limit).map((sale) => (
            <li key={sale.sale_id} className="recent-item" data-sale-id={sale.sale_id} data-status={sale.status}>
              <span className="recent-time">{formatTime(lang, sale.requested_at)}</span>
              <span className="recent-amount">{formatMoney(lang, sale.amount_cents)}</span>
              <StatusWord status={sale.status} expiring={coreNow !== null && isExpiringAt(sale, coreNow)} />
              {sale.external_id && <span className="recent-ref">{sale.external_id}</span>}
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}
