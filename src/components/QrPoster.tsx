import { useEffect, useState } from 'react';
import { LANGS, type CustomerLangView, type Lang, type Poster } from '../../electron/core/contract.ts';
import { getBridge, toUiError } from '../lib/bridge.ts';
import { saveBlob, safeFilename } from '../lib/download.ts';
import { errorText } from '../lib/errorText.ts';
import { translate } from '../lib/i18n.ts';
import type { PosterText } from '../lib/poster.ts';
import { useRunner } from '../lib/useRunner.ts';
import { useLang, useText } from '../lib/useText.ts';
import { ErrorAlert } from './FormError.tsx';
import { Icon } from './Icon.tsx';
import { LANGUAGE_NAMES } from './LanguageSelect.tsx';
import { QrImage } from './QrImage.tsx';

/** What the poster prints, in the language of the store's customers (the core's `poster.lang`). */
export function posterText(poster: Poster): PosterText {
  return {
    storeName: poster.store_name,
    address: poster.address,
    checkoutDesc: poster.checkout_desc,
    pixMark: translate(poster.lang, 'poster.pixMark'),
    payLine: translate(poster.lang, 'poster.payLine'),
  };
}

/**
 * The language a store's customers read on its poster and customer displays (issue 26 point 6),
 * a manager's choice kept by the core; the manager's own screen keeps its language. Shown on
 * the store's checkouts, beside their Print QR poster actions.
 */
export function CustomerLangField({ storeId, storeName, onChanged }: { storeId: number; storeName: string; onChanged?: (view: CustomerLangView) => void }) {
  const t = useText();
  const lang = useLang();
  const [current, setCurrent] = useState<CustomerLangView | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const { busy, result, run } = useRunner();
  useEffect(() => {
    let live = true;
    getBridge()
      .call('office.customerLang', { storeId })
      .then(
        (view) => {
          if (live) setCurrent(view);
        },
        (err: unknown) => {
          if (live) setLoadError(errorText(lang, toUiError(err)));
        },
      );
    return () => {
      live = false;
    };
  }, [storeId]);
  const choose = async (chosen: Lang) => {
    const view = await run(
      () => getBridge().call('office.setCustomerLang', { storeId, lang: chosen }),
      (v) => t('poster.customerLangSaved', { name: storeName, lang: LANGUAGE_NAMES[v.lang] }),
    );
    if (view) {
      setCurrent(view);
      onChanged?.(view);
    }
  };
  const id = `customer-lang-${storeId}`;
  return (
    <div className="field customer-lang">
      <label htmlFor={id}>{t('poster.customerLang')}</label>
      {current && (
        <select id={id} value={current.lang} disabled={busy} aria-describedby={`${id}-help`} onChange={(e) => void choose(e.target.value as Lang)}>
          {LANGS.map((l) => (
            <option key={l} value={l} lang={l}>
              {LANGUAGE_NAMES[l]}
            </option>
          ))}
        </select>
      )}
      <span id={`${id}-help`} className="muted">
        {t('poster.customerLangHelp', { name: storeName })}
      </span>
      {loadError && <ErrorAlert>{loadError}</ErrorAlert>}
      <div aria-live="polite" className={result ? (result.ok ? 'good' : 'error') : ''}>
        {result && (
          <p role={result.ok ? undefined : 'alert'}>
            <Icon name={result.ok ? 'check' : 'cross'} /> {result.text}
          </p>
        )}
      </div>
    </div>
  );
}

/**
 * The poster as it prints: the store's name and address, the checkout, the QR (CRC-checked by
 * the core), the Pix mark and the pay line, all in the language of the store's customers;
 * the buttons around it speak the manager's. When a manager changes the customers' language
 * (`customerLangVersion` moves), the poster is read again, so what prints is what the core says.
 */
export function QrPoster({ poster, customerLangVersion, onClose, onPoster }: { poster: Poster; customerLangVersion: number; onClose: () => void; onPoster: (p: Poster) => void }) {
  const t = useText();
  const lang = useLang();
  const [error, setError] = useState<string | null>(null);
  const text = posterText(poster);
  const download = async () => {
    try {
      // pdf-lib is loaded when a poster is downloaded, not with every till's screen.
      const { posterPdf } = await import('../lib/poster.ts');
      const bytes = await posterPdf(poster.qr_emvcode, text);
      saveBlob(safeFilename(`qr-${poster.store_name}-${poster.checkout_desc}`, '.pdf'), new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/pdf' }));
      setError(null);
    } catch (err) {
      setError(errorText(lang, toUiError(err)));
    }
  };
  const reread = async () => {
    try {
      onPoster(await getBridge().call('office.poster', { storeId: poster.store_id, checkoutId: poster.checkout_id }));
      setError(null);
    } catch (err) {
      setError(errorText(lang, toUiError(err)));
    }
  };
  const [seenVersion, setSeenVersion] = useState(customerLangVersion);
  useEffect(() => {
    if (customerLangVersion === seenVersion) return;
    setSeenVersion(customerLangVersion);
    void reread();
  }, [customerLangVersion]);
  return (
    <section className="card poster" aria-labelledby="poster-heading">
      <h2 id="poster-heading" className="no-print">
        {t('poster.heading', { name: poster.checkout_desc })}
      </h2>
      <div className="poster-sheet" lang={poster.lang} data-testid="poster-sheet">
        <p className="poster-store">{text.storeName}</p>
        {text.address && <p className="poster-address">{text.address}</p>}
        <p className="poster-checkout">{text.checkoutDesc}</p>
        <QrImage emv={poster.qr_emvcode} alt={t('poster.qrAlt')} size={320} />
        <p className="poster-pix">{text.pixMark}</p>
        <p className="poster-pay">{text.payLine}</p>
      </div>
      <p className="muted no-print" data-testid="poster-lang">
        {t('poster.inLang', { lang: LANGUAGE_NAMES[poster.lang], name: poster.store_name })}
      </p>
      <div className="actions no-print">
        <button type="button" className="primary" onClick={() => window.print()}>
          {t('poster.print')}
        </button>
        <button type="button" className="secondary" onClick={() => void download()}>
          {t('poster.download')}
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          {t('poster.close')}
        </button>
      </div>
      {error && <ErrorAlert>{error}</ErrorAlert>}
    </section>
  );
}
