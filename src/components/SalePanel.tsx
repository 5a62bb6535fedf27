import { Icon } from './Icon.tsx';
import type { CheckoutView } from '../../electron/core/contract.ts';
import { screenSale } from '../lib/checkoutView.ts';
import { formatMoney } from '../lib/format.ts';
import { formatTime } from '../lib/i18n.ts';
import { screenSentence } from '../lib/messages.ts';
import { useLang, useText } from '../lib/useText.ts';
import { Countdown } from './Countdown.tsx';
import { PrintReceipt } from './PrintReceipt.tsx';
import { QrImage } from './QrImage.tsx';
import { StatusWord } from './StatusWord.tsx';

/**
 * The current sale, exactly as the core's screen view says: the only QR that may be shown
 * (reference 4.5 rule 6: the newest sale's), or why there is none, or how the sale ended.
 */
export function SalePanel({ view, receivedAt, onStale, offline = false }: { view: CheckoutView | null; receivedAt: number; onStale: () => void; offline?: boolean }) {
  const t = useText();
  const lang = useLang();
  if (!view) {
    // Not "ready for a sale" before the core has said so: after a reload a sale may be pending.
    return (
      <div className="sale-panel sale-idle" data-screen="loading" aria-busy="true">
        <p className="sale-title">
          <span className="spinner" aria-hidden="true" /> {t('connection.connecting')}
        </p>
      </div>
    );
  }
  const screen = view.screen;
  const sale = screenSale(view);

  switch (screen.kind) {
    case 'idle':
      return (
        <div className="sale-panel sale-idle" data-screen="idle">
          <p className="sale-title">{t('screen.idle.title')}</p>
          <p>{t('screen.idle.detail')}</p>
        </div>
      );
    case 'creating':
      return (
        <div className="sale-panel" data-screen="creating" data-sale-id={screen.sale_id}>
          {sale && <p className="sale-amount">{formatMoney(lang, sale.amount_cents)}</p>}
          <p className="sale-title">
            <span className="spinner" aria-hidden="true" /> {t('screen.creating.title')}
          </p>
          <p>{t('screen.creating.detail')}</p>
        </div>
      );
    case 'qr':
      return (
        // Offline, the QR and countdown are greyed: nobody can tell whether a payment arrived.
        <div className={`sale-panel sale-qr${offline ? ' sale-offline' : ''}`} data-screen="qr" data-sale-id={screen.sale_id} aria-disabled={offline || undefined}>
          <p className="sale-amount" data-testid="sale-amount">
            {formatMoney(lang, screen.amount_cents)}
          </p>
          {/* Keyed by sale: a new sale never shows the previous image, even for one frame. */}
          <QrImage key={screen.sale_id} emv={screen.emv} alt={t('screen.qrAlt')} size={240} />
          <p className="sale-title">
            <StatusWord status="pending" />
          </p>
          {screen.printed && <p className="printed-hint">{t('screen.scanPrinted')}</p>}
          <Countdown expiresAt={screen.expires_at} coreNow={view.now} receivedAt={receivedAt} onOver={onStale} />
          {sale?.external_id && (
            <p className="muted">
              {t('cashier.reference')}: {sale.external_id}
            </p>
          )}
        </div>
      );
    case 'held':
      // A payment on this checkout waits for a person: no QR here or on the customer display.
      return (
        <div className={`sale-panel sale-warning sale-held${offline ? ' sale-offline' : ''}`} data-screen="held" data-sale-id={screen.sale_id}>
          <p className="sale-amount" data-testid="sale-amount">
            {formatMoney(lang, screen.amount_cents)}
          </p>
          <p className="sale-title">
            <Icon name="alert" /> {t('screen.held.title')}
          </p>
          <p className="held-detail">{t('screen.held.detail')}</p>
          <Countdown expiresAt={screen.expires_at} coreNow={view.now} receivedAt={receivedAt} onOver={onStale} />
        </div>
      );
    case 'expiring':
      // Issue 24: past its expiry the sale is checked, not closed; no QR invites a payment now.
      return (
        <div className="sale-panel sale-warning" data-screen="expiring" data-sale-id={screen.sale_id}>
          <p className="sale-amount" data-testid="sale-amount">
            {formatMoney(lang, screen.amount_cents)}
          </p>
          <p className="sale-title">
            <span className="spinner" aria-hidden="true" /> {t('screen.expiring.title')}
          </p>
          <p>{t('screen.expiring.detail')}</p>
        </div>
      );
    case 'uncertain':
    case 'qr_invalid': {
      const prefix = screen.kind === 'uncertain' ? 'screen.uncertain' : 'screen.qrInvalid';
      return (
        <div className="sale-panel sale-warning" data-screen={screen.kind} data-sale-id={screen.sale_id}>
          {sale && <p className="sale-amount">{formatMoney(lang, sale.amount_cents)}</p>}
          <p className="sale-title">
            <Icon name="alert" /> {t(`${prefix}.title`)}
          </p>
          <p>{t(`${prefix}.detail`)}</p>
        </div>
      );
    }
    case 'settled':
      return (
        <div className={`sale-panel sale-outcome outcome-${screen.status}`} data-screen="settled" data-status={screen.status} data-sale-id={screen.sale_id}>
          {sale && <p className="sale-amount">{formatMoney(lang, sale.amount_cents)}</p>}
          <p className="sale-title">
            <StatusWord status={screen.status} large />
          </p>
          {sale && <p className="sale-sentence">{screenSentence(lang, sale, screen.status)}</p>}
          {sale?.description.acknowledged.map((a) => (
            <p key={`${a.reason}:${a.subject}:${a.at}`} className="acknowledged">
              <Icon name="check" /> {t('ack.done', { by: a.by, at: formatTime(lang, a.at) })}
            </p>
          ))}
          {sale && <PrintReceipt key={sale.sale_id} sale={sale} />}
        </div>
      );
  }
}
