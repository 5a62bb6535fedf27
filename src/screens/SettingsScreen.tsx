import { Card } from '../components/Card.tsx';
import { Icon } from '../components/Icon.tsx';
import { Field, focusFirstProblem, Submit } from '../components/Field.tsx';
import { ErrorAlert, ResultLine } from '../components/FormError.tsx';
import { LANGUAGE_NAMES } from '../components/LanguageSelect.tsx';
import { StoreCheckoutPicker, useStoreCheckoutPick } from '../components/StoreCheckoutPicker.tsx';
import { useEffect, useState, type FormEvent } from 'react';
import { LANGS, type Lang } from '../../electron/core/contract.ts';
import { getBridge } from '../lib/bridge.ts';
import { pickedId } from '../lib/devices.ts';
import { errorText } from '../lib/errorText.ts';
import { formatCount } from '../lib/format.ts';
import { formatDateTime } from '../lib/i18n.ts';
import { journalProblemText } from '../lib/messages.ts';
import { STORE_CHECKOUT_ORDER, storeCheckoutProblems, type StoreCheckoutField } from '../lib/storeCheckoutForm.ts';
import { useRunner } from '../lib/useRunner.ts';
import { useLang, useText } from '../lib/useText.ts';
import { usePick } from '../stores/pick.ts';
import { screenTimeZone } from '../stores/shift.ts';
import { useStatus } from '../stores/status.ts';

/**
 * This terminal's store and checkout, kept by the core, picked from the payment service's lists
 * as Pair a till picks them (issue 26), typed as numbers where the lists cannot be read. The
 * ones saved are chosen when the screen opens; each wrong field is named beside it and nothing
 * is sent; the core still refuses what its rules refuse.
 */
function TerminalSettings() {
  const t = useText();
  const status = useStatus((s) => s.status);
  const updateSettings = useStatus((s) => s.updateSettings);
  const [ready, setReady] = useState(false);
  const pick = useStoreCheckoutPick(ready, true);
  const { reset } = pick;
  /** Whether Save was pressed: from then on each field says what is wrong with it as it is picked or typed. */
  const [checked, setChecked] = useState(false);
  const { result, setResult, run } = useRunner();
  const loaded = status !== null;
  useEffect(() => {
    if (!status) return;
    reset(status.terminal.storeId, status.terminal.checkoutId);
    setReady(true);
    // Only when the form first has something to show; later pushes must not undo a choice.
  }, [loaded]);

  const fields = { store: pick.store, checkout: pick.checkout, otherCheckout: pick.otherCheckout, typing: pick.typing };
  const problems = checked ? storeCheckoutProblems(fields) : {};
  const fieldProblem = (field: StoreCheckoutField) => {
    const key = problems[field];
    return key ? t(key) : null;
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setChecked(true);
    setResult(null);
    if (focusFirstProblem('settings', STORE_CHECKOUT_ORDER, storeCheckoutProblems(fields))) return;
    const storeId = pickedId(pick.store, '');
    const checkoutId = pickedId(pick.checkout, pick.otherCheckout);
    if (storeId === null || checkoutId === null) return;
    await run(() => updateSettings({ storeId, checkoutId }), () => t('settings.saved'));
  };

  return (
    <form className="settings-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="settings-terminal-heading">
      <h3 id="settings-terminal-heading">{t('settings.checkout')}</h3>
      <StoreCheckoutPicker idPrefix="settings" pick={pick} problem={fieldProblem} />
      <Submit>{t('settings.save')}</Submit>
      <ResultLine result={result} />
    </form>
  );
}

/**
 * This till's receipt printer (issue 29): an 80 mm ESC/POS printer on the network, as
 * host:port; empty for none. **Print test page** proves the address and the paper. The core
 * reads the address, refuses a wrong one in words, and journals the change in the manager's name.
 */
function ReceiptPrinter() {
  const t = useText();
  const [printer, setPrinter] = useState('');
  const [everyPaidSale, setEveryPaidSale] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const saving = useRunner();
  const testing = useRunner();
  useEffect(() => {
    let live = true;
    void getBridge()
      .call('receipt.printer', {})
      .then((till) => {
        if (!live) return;
        setPrinter(till.printer ?? '');
        setEveryPaidSale(till.every_paid_sale);
        setLoaded(true);
      })
      .catch(() => live && setLoaded(true));
    return () => {
      live = false;
    };
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const till = await saving.run(
      () => getBridge().call('receipt.setPrinter', { printer, everyPaidSale }),
      (saved) => (saved.printer === null ? t('receipt.printerRemoved') : t('settings.saved')),
    );
    if (till) {
      setPrinter(till.printer ?? '');
      setEveryPaidSale(till.every_paid_sale);
    }
  };

  return (
    <form className="settings-form" onSubmit={(e) => void submit(e)} noValidate aria-busy={!loaded || undefined} aria-labelledby="settings-printer-heading">
      <h3 id="settings-printer-heading">{t('receipt.printerHeading')}</h3>
      <Field id="settings-printer" label={t('receipt.printerLabel')}>
        <input
          id="settings-printer"
          value={printer}
          placeholder="192.168.0.50:9100"
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => setPrinter(e.target.value)}
          aria-describedby="settings-printer-hint"
        />
        <p id="settings-printer-hint" className="hint">
          {t('receipt.printerHint')}
        </p>
      </Field>
      <label className="check">
        <input type="checkbox" checked={everyPaidSale} onChange={(e) => setEveryPaidSale(e.target.checked)} /> {t('receipt.everyPaidSale')}
      </label>
      <Submit>{t('settings.save')}</Submit>
      <ResultLine result={saving.result} />
      <div className="actions">
        <button type="button" className="secondary" disabled={testing.busy} onClick={() => void testing.run(() => getBridge().call('receipt.testPage', { timeZone: screenTimeZone() }), () => t('receipt.testPrinted'))}>
          {t('receipt.testPage')}
        </button>
      </div>
      <ResultLine result={testing.result} />
    </form>
  );
}

/**
 * The store's default language (a manager's): what customer displays speak, and tills whose
 * device has not chosen one. The header's language menu is the device's own (issue 25).
 */
function DefaultLanguage() {
  const t = useText();
  const storeDefault = useStatus((s) => s.status?.lang ?? null);
  const setDefaultLang = useStatus((s) => s.setDefaultLang);
  const { result, run } = useRunner();
  if (storeDefault === null) return null;
  const change = (next: Lang) => run(() => setDefaultLang(next), () => t('settings.saved'));
  return (
    <div className="settings-form">
      <h3>{t('settings.defaultLanguage')}</h3>
      <Field id="settings-default-lang" label={t('settings.defaultLanguage')}>
        <select id="settings-default-lang" value={storeDefault} onChange={(e) => void change(e.target.value as Lang)} aria-describedby="settings-default-lang-hint">
          {LANGS.map((l) => (
            <option key={l} value={l} lang={l}>
              {LANGUAGE_NAMES[l]}
            </option>
          ))}
        </select>
        <p id="settings-default-lang-hint" className="hint">
          {t('settings.defaultLanguageHint')}
        </p>
      </Field>
      <ResultLine result={result} />
    </div>
  );
}

export function SettingsScreen() {
  const t = useText();
  const lang = useLang();
  const { status, error, checkService } = usePick(useStatus, 'status', 'error', 'checkService');

  return (
    <div className="settings">
      <Card id="settings" heading={t('settings.heading')}>
        <TerminalSettings />
        <DefaultLanguage />
        <ReceiptPrinter />
      </Card>
      <Card id="status" heading={t('status.heading')}>
        {error && <ErrorAlert>{errorText(lang, error)}</ErrorAlert>}
        {status && (
          <dl className="facts">
            <dt>{t('status.service')}</dt>
            <dd>
              {t(`status.serviceMode.${status.service.mode}`)}
              {status.service.baseUrl ? ` (${status.service.baseUrl})` : ''}
            </dd>
            {status.service.problem && (
              <>
                <dt>
                  <Icon name="alert" /> {t('status.unreachable')}
                </dt>
                <dd>{errorText(lang, status.service.problem)}</dd>
              </>
            )}
            <dt>{t('status.webhookUrl')}</dt>
            <dd>
              {status.webhooks.url ?? t('status.webhooks.off')}
              {status.webhooks.refused > 0 ? ` · ${t('status.webhooks.refused', { count: formatCount(lang, status.webhooks.refused) })}` : ''}
            </dd>
            <dt>{t('status.journalEntries')}</dt>
            <dd>
              {status.journal.entries}
              {status.journal.problem ? ` · ${journalProblemText(lang, status.journal) ?? ''}` : ''}
            </dd>
            <dt>{t('status.version')}</dt>
            <dd>{status.version}</dd>
            {status.startedAt && (
              <>
                <dt>{t('status.startedAt')}</dt>
                <dd>{formatDateTime(lang, status.startedAt)}</dd>
              </>
            )}
          </dl>
        )}
        <div className="actions">
          <button type="button" className="secondary" onClick={() => void checkService()}>
            {t('status.checkNow')}
          </button>
        </div>
      </Card>
    </div>
  );
}
