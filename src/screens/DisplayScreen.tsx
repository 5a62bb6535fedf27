import { Icon } from '../components/Icon.tsx';
import { useEffect, useState } from 'react';
import { Countdown } from '../components/Countdown.tsx';
import { QrImage } from '../components/QrImage.tsx';
import { copyPixCode, screenAmount, type CopyOutcome } from '../lib/displayView.ts';
import { formatMoney } from '../lib/format.ts';
import { useLang, useText } from '../lib/useText.ts';
import { connectDisplay, useDisplay } from '../stores/display.ts';
import { usePick } from '../stores/pick.ts';

/**
 * The customer display: the amount, the QR and the paid state in large type, for the
 * person paying. It reads the core's display view of its checkout only (`display.view` and
 * the `display.changed` push): nothing that is the cashier's business (alerts, other sales,
 * controls) ever reaches it. It speaks the language of the store's customers, which the view
 * carries, whatever the till's.
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
        <PixCopyPaste key={`copy-${screen.sale_id}`} code={screen.emv} />
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

/**
 * The Pix copia e cola code of the QR on screen (the same EMV text the QR encodes), for a
 * customer paying on the phone in their hand: shown whole and selectable, with Copy. What Copy
 * did is said in words; where the page cannot copy, the person is asked to select the code.
 */
function PixCopyPaste({ code }: { code: string }) {
  const t = useText();
  const [outcome, setOutcome] = useState<CopyOutcome | null>(null);
  const copy = async () => setOutcome(await copyPixCode(code, typeof navigator === 'undefined' ? undefined : navigator.clipboard));
  return (
    <section className="display-pix-code" aria-labelledby="pix-code-heading">
      <p id="pix-code-heading" className="display-label">
        {t('display.pixCode')}
      </p>
      <p className="muted">{t('display.pixCodeHelp')}</p>
      <output className="pix-code" data-testid="pix-code" aria-labelledby="pix-code-heading">
        {code}
      </output>
      <button type="button" className="secondary" onClick={() => void copy()}>
        {t('display.copy')}
      </button>
      <p aria-live="polite" className={outcome === 'failed' ? 'error' : 'good'} data-testid="pix-copy-outcome">
        {outcome === 'copied' && (
          <>
            <Icon name="check" /> {t('display.copied')}
          </>
        )}
        {outcome === 'failed' && (
          <span role="alert">
            <Icon name="cross" /> {t('display.copyFailed')}
          </span>
        )}
      </p>
    </section>
  );
}
