import { Card } from './Card.tsx';
import { Icon } from './Icon.tsx';
import { RefundAnswer } from './RefundAnswer.tsx';
import { RefundSale } from './RefundSale.tsx';
import { mayUse, type AttentionMessage, type ClaimNotice, type SaleSummary, type SettlementNotice } from '../../electron/core/contract.ts';
import { CLAIM_STATUS_TEXT } from '../lib/claims.ts';
import { errorText } from '../lib/errorText.ts';
import { formatCount, formatMoney } from '../lib/format.ts';
import { formatTime } from '../lib/i18n.ts';
import { STATUS_ICON, attentionSentence, attentionWordKey } from '../lib/messages.ts';
import { settleUp } from '../lib/settleUp.ts';
import { useLang, useText } from '../lib/useText.ts';
import { selectRole, useAuth } from '../stores/auth.ts';
import { useCheckout } from '../stores/checkout.ts';
import { selectTerminal, useStatus } from '../stores/status.ts';

function AttentionItem({ sale, item }: { sale: SaleSummary; item: AttentionMessage }) {
  const t = useText();
  const lang = useLang();
  const acknowledge = useCheckout((s) => s.acknowledge);
  const busy = useCheckout((s) => s.acknowledging[sale.sale_id] === true);
  const error = useCheckout((s) => (s.ackError?.saleId === sale.sale_id ? s.ackError.error : null));
  const id = `ack-${sale.sale_id}-${item.reason}-${item.subject}`.replace(/[^\w-]/g, '_');
  const icon = item.reason === 'amount_mismatch' ? STATUS_ICON.amount_mismatch : STATUS_ICON.paid_late;
  const terminal = useStatus(selectTerminal);
  // On the merchant-wide list, a sale of another checkout says whose it is.
  const elsewhere = terminal !== null && (sale.store_id !== terminal.storeId || sale.checkout_id !== terminal.checkoutId);
  return (
    <article className={`attention-item attention-${item.reason}`} role="alert" aria-labelledby={`${id}-title`} data-sale-id={sale.sale_id}>
      <h3 id={`${id}-title`} className="attention-title">
        <Icon name={icon} /> {t(attentionWordKey(item))}
        {elsewhere && (
          <span className="attention-checkout" data-testid="attention-checkout">
            {' · '}
            {sale.store_id === terminal.storeId ? t('attention.otherCheckout', { checkout: sale.checkout_id }) : t('status.terminalValue', { store: sale.store_id, checkout: sale.checkout_id })}
          </span>
        )}
      </h3>
      <p className="attention-sentence">{attentionSentence(lang, item)}</p>
      <SettleUpLine sale={sale} item={item} />
      <p className="muted">
        {formatMoney(lang, sale.amount_cents)} · {formatTime(lang, sale.requested_at)}
        {sale.external_id ? ` · ${t('cashier.reference')}: ${sale.external_id}` : ''}
      </p>
      {item.reason === 'refund_not_confirmed' ? (
        <RefundAnswer sale={sale} item={item} />
      ) : (
        <form
          className="ack-form"
          onSubmit={(e) => {
            e.preventDefault();
            // In the name of the operator signed in on this window: the core knows who.
            void acknowledge(sale, item);
          }}
        >
          <button type="submit" disabled={busy}>
            {t('ack.button')}
          </button>
          {error && <p className="error">{errorText(lang, error)}</p>}
        </form>
      )}
    </article>
  );
}

/**
 * How much to give back or collect, and the way (issue 26): a supervisor gets **Refund R$ X**
 * right here (the journal's refund flow; the core checks the role again); a cashier, who
 * cannot refund, is told to call a supervisor.
 */
function SettleUpLine({ sale, item }: { sale: SaleSummary; item: AttentionMessage }) {
  const t = useText();
  const lang = useLang();
  const role = useAuth(selectRole);
  const owed = settleUp(sale, item);
  if (owed === null) return null;
  const amount = formatMoney(lang, owed.cents);
  if (owed.kind === 'collect') {
    return (
      <p className="attention-settle" data-testid="attention-settle">
        <strong>{t('attention.collect', { amount })}</strong>
      </p>
    );
  }
  if (owed.kind === 'refunded') {
    return (
      <p className="attention-settle" data-testid="attention-settle">
        {t('attention.refunded', { amount })}
      </p>
    );
  }
  const supervisor = mayUse(role, 'supervisor');
  return (
    <div className="attention-settle" data-testid="attention-settle">
      <p>
        <strong>{t(owed.kind === 'give_back' ? 'attention.giveBack' : 'attention.ifPaidTwice', { amount })}</strong>
        {!supervisor && <> {t('attention.callSupervisor', { amount })}</>}
        {supervisor && !owed.refundable && <> {t('attention.refundNotLeft', { left: formatMoney(lang, sale.refundable_cents) })}</>}
      </p>
      {supervisor && owed.refundable && <RefundSale sale={sale} offer={owed.cents} />}
    </div>
  );
}

/** Everything that still needs a person on this checkout, each with what to do and who saw it. */
export function AttentionList({ sales }: { sales: readonly SaleSummary[] }) {
  const t = useText();
  const lang = useLang();
  const items = sales.flatMap((sale) => sale.description.attention.map((item) => ({ sale, item })));
  if (items.length === 0) return null;
  return (
    <section className="card attention" aria-labelledby="attention-heading">
      <h2 id="attention-heading">
        <Icon name="alert" /> {items.length > 1 ? t('attention.count', { count: formatCount(lang, items.length) }) : t('attention.heading')}
      </h2>
      {/* A counted list of bounded height: however many wait, the current sale stays in view. */}
      <div className="attention-items" data-count={items.length}>
        {items.map(({ sale, item }) => (
          <AttentionItem key={`${sale.sale_id}:${item.reason}:${item.subject}`} sale={sale} item={item} />
        ))}
      </div>
    </section>
  );
}

/**
 * Settlements that need a person (issue 11), on every supervisor's list until each of their
 * differences is acknowledged on the Settlements screen.
 */
export function SettlementNotices({ notices }: { notices: readonly SettlementNotice[] }) {
  const t = useText();
  const lang = useLang();
  if (notices.length === 0) return null;
  return (
    <Card id="settlement-notices" heading={t('settlements.noticesHeading')} className="attention claim-notices">
      <ul>
        {notices.map((n) => (
          <li key={n.settlement_id} data-settlement={n.settlement_id}>
            {t('settlements.notice', { id: n.settlement_id, count: formatCount(lang, n.open) })} <a href="#/settlements">{t('settlements.follow')}</a>
          </li>
        ))}
      </ul>
    </Card>
  );
}

/**
 * MED claims whose status moved in the last day (issue 12), on every supervisor's list:
 * claims have no webhook, so this is how a person hears that one moved.
 */
export function ClaimNotices({ notices }: { notices: readonly ClaimNotice[] }) {
  const t = useText();
  const lang = useLang();
  if (notices.length === 0) return null;
  return (
    <Card id="claim-notices" heading={t('claims.noticesHeading')} className="attention claim-notices">
      <ul>
        {notices.map((n) => (
          <li key={`${n.med_case_id}:${n.status}`} data-claim={n.med_case_id}>
            {t('claims.notice', { id: n.med_case_id, payout: n.service_id, status: t(CLAIM_STATUS_TEXT[n.status]) })}
            {n.status === 'closed' && ` ${n.money_refunded && n.refunded_cents !== null ? t('claims.moneyReturned', { amount: formatMoney(lang, n.refunded_cents) }) : t('claims.noMoneyReturned')}`}{' '}
            <a href="#/claims">{t('claims.follow')}</a>
          </li>
        ))}
      </ul>
    </Card>
  );
}
