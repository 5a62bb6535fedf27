import { Icon } from '../components/Icon.tsx';
import { useEffect } from 'react';
import { Countdown } from '../components/Countdown.tsx';
import { QrImage } from '../components/QrImage.tsx';
import { screenAmount } from '../lib/displayView.ts';
import { formatMoney } from '../lib/format.ts';
import { useLang, useText } from '../lib/useText.ts';
import { connectDisplay, useDisplay } from '../stores/display.ts';
import { usePick } from '../stores/pick.ts';

/**
 * The customer display: the amount, the QR and the paid state in large type, for the
 * person paying. It reads the core's display view of its checkout only (`display.view` and
 * the `display.changed` push): nothing that is the cashier's business (alerts, other sales,
 * controls) ever reaches it.
 */
export function DisplayScreen() {
  const t = useText();
  const lang = useLang();
  const { connection, view, receivedAt, amounts, load } = usePick(useDisplay, 'connection', 'view', 'receivedAt', 'amounts', 'load');
  useEffect(() => connectDisplay(), []);
  useEffect(() => {
    document.documentElement.lang = lang;
    document.title = t('display.title');
  }, [lang, t]);

  const screen = view?.screen ?? { kind: 'idle' as const };
  const amount = screenAmount(view, amounts);
  let body;
  if (connection === 'unauthorized') {
    body = <p className="display-message">{t('connection.unauthorized')}</p>;
  } else if (view?.hold || screen.kind === 'held' || screen.kind === 'expiring' || (connection !== 'open' && view !== null && (screen.kind === 'qr' || screen.kind === 'creating'))) {
    // The core's view says no QR may be shown (a payment waits for a person, or the sale's
    // time is up and its payment is being checked), or this window cannot hear the core: the
    // customer is asked to wait, never invited to pay again.
    body = (
      <>
        <p className="display-welcome" data-testid="display-please-wait">
          {t('display.pleaseWait')}
        </p>
        <p className="display-message">{t('display.pleaseWaitDetail')}</p>
      </>
    );
  } else if (screen.kind === 'qr') {
    body = (
      <>
        <p className="display-label">{t('display.total')}</p>
        <p className="display-amount" data-testid="display-amount">
          {formatMoney(lang, screen.amount_cents)}
        </p>
        <QrImage key={screen.sale_id} emv={screen.emv} alt={t('screen.qrAlt')} size={360} />
        <p className="display-message">{t('display.scan')}</p>
        {view && <Countdown expiresAt={screen.expires_at} coreNow={view.now} receivedAt={receivedAt} onOver={load} />}
      </>
    );
  } else if (screen.kind === 'settled' && screen.status === 'paid') {
    body = (
      <>
        {amount !== null && <p className="display-amount">{formatMoney(lang, amount)}</p>}
        <p className="display-paid" data-testid="display-paid">
          <Icon name="check" /> {t('display.paid')}
        </p>
        <p className="display-message">{t('display.thanks')}</p>
      </>
    );
  } else if (screen.kind === 'settled' && screen.status === 'expired') {
    body = (
      <p className="display-message">
        <Icon name="hourglass" /> {t('display.expired')}
      </p>
    );
  } else if (screen.kind === 'idle' || (screen.kind === 'settled' && (screen.status === 'displaced' || screen.status === 'withdrawn'))) {
    body = (
      <>
        <p className="display-welcome">{t('display.welcome')}</p>
        <p className="display-message">{t('display.idle')}</p>
      </>
    );
  } else {
    body = (
      <>
        {amount !== null && <p className="display-amount">{formatMoney(lang, amount)}</p>}
        <p className="display-message">{t('display.wait')}</p>
      </>
    );
  }
  return (
    <main className={`display display-state-${screen.kind === 'settled' ? screen.status : screen.kind}`} aria-live="polite">
      {body}
    </main>
  );
}
