import { Card } from '../components/Card.tsx';
import { Icon } from '../components/Icon.tsx';
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { AttentionList, ClaimNotices, SettlementNotices } from '../components/AttentionList.tsx';
import { Keypad } from '../components/Keypad.tsx';
import { RecentSales } from '../components/RecentSales.tsx';
import { SalePanel } from '../components/SalePanel.tsx';
import { WithdrawSale } from '../components/WithdrawSale.tsx';
import {
  AMOUNT_PROBLEM_TEXT,
  amountProblem,
  decimalSeparator,
  needsLargeAmountConfirmation,
  pressKey,
  previewCents,
  referenceLength,
  sanitizeTyped,
  type KeypadKey,
} from '../lib/amountInput.ts';
import { displayAddress } from '../lib/bridge.ts';
import { saleToReplace, withdrawableSale } from '../lib/checkoutView.ts';
import { chargeErrorText } from '../lib/errorText.ts';
import { formatMoney } from '../lib/format.ts';
import { useLang, useText } from '../lib/useText.ts';
import { useAttention } from '../stores/attention.ts';
import { useCheckout } from '../stores/checkout.ts';
import { usePick } from '../stores/pick.ts';
import { selectReady, selectShift, useStatus } from '../stores/status.ts';

/**
 * Whether Escape, pressed with focus on `target`, clears the charge form. It does wherever
 * focus is on the cashier screen (the form, the keypad, the buttons and links, the page
 * itself), except where Escape already means something else: an IME composition, a select
 * (it closes the list), and a text field outside the charge form (the name typed in an
 * attention item's form: Escape there leaves that field, it must not wipe the amount the
 * cashier is about to charge).
 */
export function escapeClearsChargeForm(target: EventTarget | null, chargeForm: HTMLFormElement | null): boolean {
  if (!(target instanceof Element)) return true;
  if (target.closest('select')) return false;
  const field = target.closest('input, textarea, [contenteditable="true"]');
  return field === null || (chargeForm !== null && chargeForm.contains(field));
}

/**
 * The counter: type an amount (keyboard or keypad), Charge, show the newest sale's QR and
 * how it ends. Enter charges, Escape clears. Everything about the sale comes from the core.
 */
export function CashierScreen() {
  const t = useText();
  const lang = useLang();
  const { view, receivedAt, charging, chargeError, charge, landed, clearError, load } = usePick(useCheckout, 'view', 'receivedAt', 'charging', 'chargeError', 'charge', 'landed', 'clearError', 'load');
  const ready = useStatus(selectReady);
  const shift = useStatus(selectShift);
  const hasStatus = useStatus((s) => s.status !== null);
  const connection = useStatus((s) => s.connection);
  // Once the core was heard, losing it is a dead link: nothing on screen can be trusted.
  const offline = connection !== 'open' && view !== null;
  const withdrawable = withdrawableSale(view);
  const { items: merchantAttention, claims: claimNotices, settlements: settlementNotices } = usePick(useAttention, 'items', 'claims', 'settlements');

  const [amount, setAmount] = useState('');
  const [reference, setReference] = useState('');
  /** The amount text the cashier confirmed once (R$ 10.000,00 or more). */
  const [confirmedLarge, setConfirmedLarge] = useState<string | null>(null);
  const [askLarge, setAskLarge] = useState(false);
  /** Charge was pressed with no amount: said under the field until something is typed (issue 26). */
  const [askedEmpty, setAskedEmpty] = useState(false);
  /** The field was emptied by a charge that went through: an Enter now is the same press again. */
  const emptiedByCharge = useRef(false);
  const referenceCheck = referenceLength(reference);
  const amountRef = useRef<HTMLInputElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const separator = decimalSeparator(lang);
  const cents = previewCents(amount);
  const problem = amountProblem(amount) ?? (askedEmpty && amount.trim() === '' ? 'empty' : null);
  // Said before it happens: as soon as an amount is typed while a sale is still open.
  const replacing = amount.trim() === '' ? null : saleToReplace(view);
  const errorText = chargeError ? chargeErrorText(lang, chargeError) : null;
  const display = displayAddress();

  useEffect(() => {
    amountRef.current?.focus();
  }, []);

  const clear = useCallback(() => {
    setAmount('');
    setAskedEmpty(false);
    emptiedByCharge.current = false;
    setReference('');
    clearError();
    amountRef.current?.focus();
  }, [clearError]);

  // Escape clears from anywhere on the screen, not only inside the form (see escapeClearsChargeForm).
  useEffect(() => {
    const onEscape = (e: globalThis.KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || e.isComposing) return;
      if (!escapeClearsChargeForm(e.target, formRef.current)) return;
      e.preventDefault();
      clear();
    };
    window.addEventListener('keydown', onEscape);
    return () => window.removeEventListener('keydown', onEscape);
  }, [clear]);

  // A charge went through (its answer, or a newer view after a lost answer): the fields are
  // emptied for the next sale, unless the cashier has typed something else meanwhile.
  useEffect(() => {
    if (!landed) return;
    setAmount((text) => {
      if (text !== landed.amount) return text;
      emptiedByCharge.current = true;
      return '';
    });
    setReference((text) => (text === landed.reference ? '' : text));
  }, [landed]);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (charging || !ready) return;
    // Nothing to send. A second Enter or a double click right after a charge is the same press
    // again and stays quiet; otherwise it is said under the field, never silently ignored.
    if (amount.trim() === '') {
      if (!emptiedByCharge.current) setAskedEmpty(true);
      amountRef.current?.focus();
      return;
    }
    if (referenceCheck.tooLong) return;
    if (needsLargeAmountConfirmation(amount, confirmedLarge)) {
      // Asked once: the next Charge on this very text charges it.
      setConfirmedLarge(amount);
      setAskLarge(true);
      return;
    }
    setAskLarge(false);
    await charge({ amount, reference });
    amountRef.current?.focus();
  };

  const onKey = (key: KeypadKey) => {
    setAmount((text) => pressKey(text, key, separator));
    setAskedEmpty(false);
    emptiedByCharge.current = false;
    if (chargeError) clearError();
  };

  return (
    <div className="cashier">
      <Card id="charge" heading={t('cashier.heading')} className="charge-card">
        <form className="charge-form" ref={formRef} onSubmit={(e) => void onSubmit(e)} noValidate>
          <label className="field-label" htmlFor="amount">
            {t('cashier.amount')}
          </label>
          <input
            id="amount"
            ref={amountRef}
            className="amount-input"
            inputMode="decimal"
            autoComplete="off"
            spellCheck={false}
            value={amount}
            placeholder={`0${separator}00`}
            aria-describedby="amount-help amount-preview replace-notice"
            aria-invalid={chargeError?.code === 'invalid_argument' || problem !== null || undefined}
            onChange={(e) => {
              setAmount(sanitizeTyped(e.target.value));
              setAskedEmpty(false);
              emptiedByCharge.current = false;
              setAskLarge(false);
              setConfirmedLarge(null);
              if (chargeError) clearError();
            }}
          />
          <p id="amount-help" className="help">
            {t('cashier.amountHelp')}
          </p>
          <p id="amount-preview" className={problem !== null ? 'preview preview-refused' : 'preview'} aria-live="polite">
            {problem !== null ? (
              <>
                <Icon name="alert" /> {t(AMOUNT_PROBLEM_TEXT[problem])}
              </>
            ) : cents !== null ? (
              t('cashier.preview', { amount: formatMoney(lang, cents) })
            ) : (
              '\u00a0'
            )}
          </p>
          {askLarge && cents !== null && (
            <p className="notice large-confirm" role="alert" data-testid="large-confirm">
              <Icon name="alert" /> {t('cashier.confirmLarge', { amount: formatMoney(lang, cents) })}
            </p>
          )}
          <Keypad separator={separator} onKey={onKey} />
          <label className="field-label" htmlFor="reference">
            {t('cashier.reference')}
          </label>
          <input
            id="reference"
            value={reference}
            autoComplete="off"
            aria-describedby="reference-help"
            aria-invalid={referenceCheck.tooLong || undefined}
            onChange={(e) => setReference(e.target.value)}
          />
          {/* Never cut (a maxLength would silently drop the end of a pasted reference): refused in words. */}
          <p id="reference-help" className={referenceCheck.tooLong ? 'help preview-refused' : 'help'} aria-live="polite">
            {referenceCheck.tooLong ? (
              <>
                <Icon name="alert" /> {t('cashier.referenceTooLong', { count: referenceCheck.count })}
              </>
            ) : (
              t('cashier.referenceHelp')
            )}
          </p>
          {/* Always in the page, so the notice is announced when it appears. Not role=status:
              the status bar is the page's one status. */}
          <div id="replace-notice" aria-live="polite" aria-atomic="true">
            {replacing && (
              <p className="notice" data-testid="replace-notice">
                <Icon name="replace" /> {t('cashier.replaceNotice', { amount: formatMoney(lang, replacing.amount_cents) })}
              </p>
            )}
          </div>
          {errorText && (
            <p className="error" role="alert">
              <Icon name="cross" /> {errorText}
            </p>
          )}
          {charging && (
            <p className="muted" aria-live="polite">
              <span className="spinner" aria-hidden="true" /> {t('cashier.charging')}
            </p>
          )}
          <div className="charge-actions">
            <button type="submit" className="primary charge-button" aria-disabled={charging || !ready || referenceCheck.tooLong} aria-describedby="replace-notice">
              {t('cashier.charge')}
            </button>
            <button type="button" className="secondary" onClick={clear}>
              {t('cashier.clear')}
            </button>
          </div>
        </form>
        {hasStatus && !shift && <p className="hint">{t('cashier.noShift')}</p>}
      </Card>

      <div className="cashier-side">
        <section className="card sale-card" aria-labelledby="sale-heading">
          <div className="card-head">
            <h2 id="sale-heading">{t('sale.heading')}</h2>
            {display && (
              <a className="button-link secondary" href={display} target="_blank" rel="noopener">
                {t('cashier.customerDisplay')}
                <span className="visually-hidden"> ({t('cashier.customerDisplayHelp')})</span>
              </a>
            )}
          </div>
          {/* Outcomes are announced when they change; the countdown inside is a timer, not read out. */}
          {offline && (
            <p className="offline-banner" role="alert" data-testid="offline">
              <Icon name="cross" /> <strong>{t('offline.title')}</strong> {t('offline.detail')}
            </p>
          )}
          <div aria-live="polite" aria-atomic="false">
            <SalePanel view={view} receivedAt={receivedAt} onStale={load} offline={offline} />
          </div>
          {withdrawable && <WithdrawSale sale={withdrawable} newer={view?.screen.kind === 'held'} disabled={offline} />}
        </section>
        {/* What needs a person sits beside the sale, as a counted list: never pushes the QR off screen. */}
        {/* A supervisor's or a manager's list is the merchant's (every checkout); a cashier's, this checkout's. */}
        <AttentionList sales={merchantAttention ?? view?.attention ?? []} />
        <ClaimNotices notices={claimNotices} />
        <SettlementNotices notices={settlementNotices} />
      </div>
      <RecentSales sales={view?.recent ?? []} coreNow={view?.now ?? null} />
    </div>
  );
}
