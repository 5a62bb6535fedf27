import { useEffect, useState, type FormEvent } from 'react';
import type { BookStatus, ChargeCheck, InvariantLine, PaidSale, PendingRow, RefundCheck, SettlementDifference, SettlementListRow, SettlementView } from '../../electron/core/contract.ts';
import { Card } from '../components/Card.tsx';
import { DataTable, type Column } from '../components/DataTable.tsx';
import { Ids } from '../components/Ids.tsx';
import { FormError } from '../components/FormError.tsx';
import { getBridge, toUiError } from '../lib/bridge.ts';
import { saveBlob } from '../lib/download.ts';
import { errorText } from '../lib/errorText.ts';
import { formatCount, formatDecimalsIn, formatFigure, formatMoney } from '../lib/format.ts';
import { defaultSettlementRange, rangeQuery, settlementCsv } from '../lib/settlements.ts';
import type { TextKey } from '../lib/texts/en.ts';
import { useLang, useText } from '../lib/useText.ts';

const STATUS_TEXT: Record<string, TextKey> = {
  CREATED: 'settlements.status.CREATED',
  PROCESSING: 'settlements.status.PROCESSING',
  DONE: 'settlements.status.DONE',
  CANCELED: 'settlements.status.CANCELED',
  FAILED: 'settlements.status.FAILED',
};
const CHECK_TEXT: Record<Exclude<ChargeCheck['kind'], 'ids_differ'>, TextKey> = {
  matched: 'settlements.matched',
  not_in_journal: 'settlements.notInJournal',
  amount_differs: 'settlements.amountDiffers',
  settled_twice: 'settlements.settledTwice',
};
const REFUND_TEXT: Record<Exclude<RefundCheck['kind'], 'ids_differ' | 'deducted_twice'>, TextKey> = {
  matched: 'settlements.matched',
  matched_by_amount: 'settlements.refund.matched_by_amount',
  amount_differs: 'settlements.refund.amount_differs',
  unknown_refund: 'settlements.refund.unknown_refund',
  unconfirmed_refund: 'settlements.refund.unconfirmed_refund',
  not_in_journal: 'settlements.notInJournal',
};
const RULE_TEXT: Record<InvariantLine['rule'], TextKey> = {
  currency: 'settlements.rule.currency',
  net: 'settlements.rule.net',
  source_net: 'settlements.rule.source_net',
  net_price: 'settlements.rule.net_price',
  no_refunds_equal: 'settlements.rule.no_refunds_equal',
};

const BOOK_TEXT: Record<BookStatus, TextKey> = {
  reconciled: 'settlements.reconciled',
  needs_attention: 'settlements.needsAttention',
  acknowledged: 'settlements.acknowledged',
};

/** A charge the next settlement should pay, or a refund it should deduct, in one table. */
type PendingLine = { id: string; charge: PendingRow['pending']['items'][number] } | { id: string; refund: PendingRow['pending']['pending_refunds'][number] };

/**
 * Settlements (issue 11), for supervisors and managers: every settlement of a date range of
 * any length with its status and whether it reconciles with this journal, and a settlement's
 * every charge and refund against its sale, the invariant lines with their figures, and CSV.
 */
export function SettlementsScreen() {
  const t = useText();
  const lang = useLang();
  /** A line's check in words; a line whose ids are another sale's names them (issue 24 point 3). */
  const checkText = (check: ChargeCheck | RefundCheck, line: 'charge' | 'refund'): string => {
    if (check.kind === 'ids_differ') return t('settlements.idsDiffer', { fields: check.fields.join(', ') });
    if (check.kind === 'deducted_twice') return t('settlements.refund.deducted_twice', { id: check.earlier });
    const words: Record<string, TextKey> = line === 'charge' ? CHECK_TEXT : REFUND_TEXT;
    return t(words[check.kind] ?? 'settlements.notInJournal');
  };
  // Filled in once the core says its today (its clock is the authority, not the page's).
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [rows, setRows] = useState<SettlementListRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<SettlementView | null>(null);
  const [pending, setPending] = useState<PendingRow[] | null>(null);
  const [unsettled, setUnsettled] = useState<PaidSale[] | null>(null);
  const showPending = async () => {
    try {
      const bridge = getBridge();
      const [rows, late] = await Promise.all([bridge.call('settlements.pending'), bridge.call('settlements.unsettled')]);
      setPending(rows);
      setUnsettled(late);
      setError(null);
    } catch (err) {
      setError(errorText(lang, toUiError(err)));
    }
  };
  const load = async (range = { from, to }) => {
    try {
      // The end day is included: up to the start of the next.
      setRows(await getBridge().call('settlements.list', rangeQuery(range.from, range.to)));
      setError(null);
    } catch (err) {
      setError(errorText(lang, toUiError(err)));
    }
  };
  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const { now } = await getBridge().call('core.status');
        if (!live) return;
        const range = defaultSettlementRange(now);
        setFrom(range.from);
        setTo(range.to);
        await load(range);
      } catch (err) {
        if (live) setError(errorText(lang, toUiError(err)));
      }
    })();
    return () => {
      live = false;
    };
  }, []);
  const show = async (settlementId: number) => {
    try {
      setOpen(await getBridge().call('settlements.detail', { settlementId }));
      setError(null);
    } catch (err) {
      setError(errorText(lang, toUiError(err)));
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void load();
  };

  const listColumns: readonly Column<SettlementListRow>[] = [
    {
      header: t('settlements.col.id'),
      cell: ({ settlement: s }) => (
        <button type="button" onClick={() => void show(s.settlement_id)} aria-label={t('settlements.open', { id: s.settlement_id })}>
          {s.settlement_id}
        </button>
      ),
    },
    { header: t('settlements.col.status'), cell: ({ settlement: s }) => (s.status === null ? '—' : t(STATUS_TEXT[s.status] ?? 'settlements.status.unknown')) },
    { header: t('settlements.col.amount'), className: 'num', cell: ({ settlement: s }) => (s.amount === null ? '—' : formatFigure(lang, s.amount)) },
    { header: t('settlements.col.settledAt'), cell: ({ settlement: s }) => (s.settled_at === null ? t('settlements.inFlight') : new Date(s.settled_at).toLocaleString(lang)) },
    {
      header: t('settlements.col.reconciled'),
      cell: ({ reconciled, missing_from }) => (
        <>
          {reconciled === null ? t('settlements.notYet') : t(BOOK_TEXT[reconciled])}
          {missing_from === 'list' && ` · ${t('settlements.notInList')}`}
        </>
      ),
    },
  ];

  return (
    <Card id="settlements" heading={t('settlements.heading')} className="settlements">
      <form className="row" onSubmit={submit}>
        <label>
          {t('settlements.from')} <input type="date" value={from} onChange={(e) => setFrom(e.target.value)} required />
        </label>
        <label>
          {t('settlements.to')} <input type="date" value={to} onChange={(e) => setTo(e.target.value)} required />
        </label>
        <button type="submit">{t('settlements.show')}</button>
        <button type="button" onClick={() => void showPending()}>
          {t('settlements.pending')}
        </button>
      </form>
      <FormError text={error} />
      {rows !== null && rows.length === 0 && <p>{t('settlements.none')}</p>}
      {rows !== null && rows.length > 0 && (
        <DataTable
          wrap
          className="report-table"
          label={t('settlements.heading')}
          columns={listColumns}
          rows={rows}
          rowKey={(r) => r.settlement.settlement_id}
          rowAttributes={({ settlement: s, reconciled, missing_from }) => ({ 'data-settlement': s.settlement_id, 'data-reconciled': reconciled ?? 'none', 'data-missing': missing_from ?? 'none' })}
        />
      )}
      {pending && <Pending rows={pending} />}
      {unsettled && <Unsettled sales={unsettled} />}
      {open && (
        <Detail
          view={open}
          onChange={(next) => {
            setOpen({ ...open, ...next });
            // The list says the same as the detail at once.
            setRows((list) => list?.map((r) => (r.settlement.settlement_id === open.settlement.settlement_id ? { ...r, reconciled: next.status } : r)) ?? null);
          }}
        />
      )}
    </Card>
  );

  function Pending({ rows: checkouts }: { rows: PendingRow[] }) {
    const pendingColumns: readonly Column<PendingLine>[] = [
      {
        header: t('settlements.col.charge'),
        cell: (l) => (
          <>
            {/* The charge by when it was paid and its reference, as people name a sale. */}
            {'charge' in l ? [new Date(l.charge.charged_timestamp).toLocaleString(lang), l.charge.external_id].filter(Boolean).join(' · ') : (l.refund.external_id ?? '—')}
            <Ids ids={[[t('settlements.col.charge'), l.id]]} />
          </>
        ),
      },
      { header: t('settlements.col.charged'), className: 'num', cell: (l) => formatFigure(lang, 'charge' in l ? l.charge.charged_amount : l.refund.refunded_amount) },
      { header: t('settlements.col.quoted'), className: 'num', cell: (l) => ('charge' in l ? formatFigure(lang, l.charge.settlement_amount) : `−${formatFigure(lang, l.refund.deduction_amount)}`) },
    ];
    return (
      <section className="card" aria-labelledby="pending-heading" data-testid="pending">
        <h3 id="pending-heading">{t('settlements.pendingHeading')}</h3>
        {checkouts.length === 0 && <p>{t('settlements.nothingPending')}</p>}
        {checkouts.map(({ store_id, checkout_id, pending: p, net_negative }) => (
          <div key={`${store_id}/${checkout_id}`} data-store={store_id} data-checkout={checkout_id}>
            <h4>{t('settlements.pendingCheckout', { store: store_id, checkout: checkout_id })}</h4>
            <DataTable
              wrap
              className="report-table"
              label={t('settlements.pendingCheckout', { store: store_id, checkout: checkout_id })}
              columns={pendingColumns}
              rows={[...p.items.map((c) => ({ id: c.service_id, charge: c })), ...p.pending_refunds.map((r) => ({ id: r.service_refund_id, refund: r }))]}
              rowKey={(line) => line.id}
            />
            <p data-testid="pending-totals">
              {t('settlements.pendingTotals', {
                count: formatCount(lang, p.totals.count),
                gross: formatFigure(lang, p.totals.settlement_amount),
                refunds: formatCount(lang, p.totals.refund_count),
                deduction: formatFigure(lang, p.totals.refund_deduction),
                net: formatFigure(lang, p.totals.net_settlement_amount),
              })}
            </p>
            {net_negative && <p className="error">{t('settlements.netNegative')}</p>}
          </div>
        ))}
      </section>
    );
  }

  /** Paid sales no settlement took two windows after payment, and not pending at the service. */
  function Unsettled({ sales }: { sales: PaidSale[] }) {
    return (
      <section className="card" aria-labelledby="unsettled-heading" data-testid="unsettled">
        <h3 id="unsettled-heading">{t('settlements.unsettledHeading')}</h3>
        <p className="muted">{t('settlements.unsettledHelp')}</p>
        {sales.length === 0 ? (
          <p>{t('settlements.noneUnsettled')}</p>
        ) : (
          <DataTable
            wrap
            className="report-table"
            label={t('settlements.unsettledHeading')}
            columns={[
              { header: t('settlements.col.paidAt'), cell: (sale) => new Date(sale.paid_at).toLocaleString(lang) },
              { header: t('settlements.col.checkout'), cell: (sale) => t('settlements.pendingCheckout', { store: sale.store_id, checkout: sale.checkout_id }) },
              { header: t('settlements.col.received'), className: 'num', cell: (sale) => formatMoney(lang, sale.received_cents) },
              {
                header: t('settlements.col.reference'),
                cell: (sale) => (
                  <>
                    {sale.external_id ?? '—'}
                    <Ids
                      ids={[
                        [t('report.col.pixId'), sale.pix_id],
                        [t('report.col.saleId'), sale.sale_id],
                      ]}
                    />
                  </>
                ),
              },
            ]}
            rows={sales}
            rowKey={(sale) => sale.sale_id}
            rowAttributes={(sale) => ({ 'data-sale-id': sale.sale_id })}
          />
        )}
      </section>
    );
  }

  function differenceText(view: SettlementView, d: SettlementDifference): string {
    switch (d.kind) {
      case 'charge': {
        // Named as the charges table names it: the merchant's reference when there is one.
        const charge = view.settlement.charges.find((c) => c.service_id === d.subject);
        const check = view.result.charges.find((c) => c.service_id === d.subject)?.check ?? { kind: 'not_in_journal' as const };
        return t('settlements.diff.charge', { id: charge?.external_id ?? d.subject, what: checkText(check, 'charge') });
      }
      case 'refund': {
        const check = view.result.refunds.find((r) => r.service_refund_id === d.subject)?.check ?? { kind: 'not_in_journal' as const };
        return t('settlements.diff.refund', { id: d.subject, what: checkText(check, 'refund') });
      }
      case 'missing':
        return t('settlements.diff.missing');
      case 'invariant':
        return t('settlements.diff.invariant', { rule: t(RULE_TEXT[d.subject as InvariantLine['rule']] ?? 'settlements.invariants') });
      case 'field':
        return t('settlements.diff.field', { field: d.subject });
      case 'decode':
        return t('settlements.diff.decode', { why: d.subject });
    }
  }

  /** Each difference with who acknowledged it, or a note field and Acknowledge. */
  function Differences({ view, onChange }: { view: SettlementView; onChange: (next: Pick<SettlementView, 'status' | 'differences'>) => void }) {
    const [notes, setNotes] = useState<Record<string, string>>({});
    const [failure, setFailure] = useState<string | null>(null);
    const acknowledge = async (key: string) => {
      try {
        const note = notes[key]?.trim();
        onChange(await getBridge().call('settlements.acknowledge', { settlementId: view.settlement.settlement_id, difference: key, ...(note ? { note } : {}) }));
        setFailure(null);
      } catch (err) {
        setFailure(errorText(lang, toUiError(err)));
      }
    };
    if (view.differences.length === 0) return null;
    return (
      <section aria-labelledby="differences-heading" data-testid="differences">
        <h4 id="differences-heading">{t('settlements.differencesHeading')}</h4>
        <ul className="differences">
          {view.differences.map((d) => (
            <li key={d.key} data-difference={d.key} data-acknowledged={d.acknowledged !== null}>
              <span>{differenceText(view, d)}</span>
              {d.acknowledged ? (
                <span className="acknowledged-line">
                  {' '}
                  {t('ack.done', { by: d.acknowledged.by, at: new Date(d.acknowledged.at).toLocaleString(lang) })}
                  {d.acknowledged.note ? ` · ${d.acknowledged.note}` : ''}
                </span>
              ) : (
                <span className="row">
                  <label>
                    {t('settlements.ackNote')}{' '}
                    <input type="text" maxLength={500} value={notes[d.key] ?? ''} onChange={(e) => setNotes({ ...notes, [d.key]: e.target.value })} />
                  </label>
                  <button type="button" onClick={() => void acknowledge(d.key)}>
                    {t('settlements.acknowledge')}
                  </button>
                </span>
              )}
            </li>
          ))}
        </ul>
        <FormError text={failure} />
      </section>
    );
  }

  function Detail({ view, onChange }: { view: SettlementView; onChange: (next: Pick<SettlementView, 'status' | 'differences'>) => void }) {
    const { settlement: s, result, sales } = view;
    const totalsHold = result.invariants.every((l) => l.holds);
    // Only the fields the webhook and the detail disagree on; a refused figure or a settlement
    // the service does not have are said under What differs.
    /** A line of the settlement with the journal's check of it and the sale it names, if any. */
    const withSale = <L, C extends ChargeCheck | RefundCheck>(charge: L, found: C | undefined) => {
      const check: C | { kind: 'not_in_journal' } = found ?? { kind: 'not_in_journal' as const };
      return { charge, check, sale: 'sale_id' in check ? sales[check.sale_id] : undefined };
    };
    const fields = result.differs.filter((d) => !d.startsWith('decode:') && !d.startsWith('missing:'));
    return (
      <section className="card" aria-labelledby="settlement-detail-heading" data-testid="settlement-detail">
        <h3 id="settlement-detail-heading">
          {t('settlements.detailHeading', { id: s.settlement_id })} · <span data-testid="settlement-status">{t(BOOK_TEXT[view.status])}</span>
        </h3>
        <p>{formatFigure(lang, s.amount)}</p>
        {/* The provider's and the bank's ids: for the service's support, behind Details (issue 26). */}
        <Ids
          ids={[
            [t('settlements.provider'), view.from === 'service' ? s.settlement_provider_name : null],
            [t('settlements.externalId'), s.external_settlement_id ?? null],
          ]}
        />
        {view.from === 'webhook' && (
          <p className="error" data-testid="only-webhook">
            {t('settlements.onlyWebhook')}
          </p>
        )}
        <DataTable
          wrap
          className="report-table"
          label={t('settlements.charges')}
          columns={[
            {
              header: t('settlements.col.charge'),
              cell: ({ charge: c }) => (
                <>
                  {c.external_id ?? '—'}
                  <Ids ids={[[t('report.col.serviceId'), c.service_id]]} />
                </>
              ),
            },
            { header: t('settlements.col.charged'), className: 'num', cell: ({ charge: c }) => formatFigure(lang, c.charged_amount) },
            { header: t('settlements.col.quoted'), className: 'num', cell: ({ charge: c }) => (c.settlement_amount === null ? '—' : formatFigure(lang, c.settlement_amount)) },
            {
              header: t('settlements.col.match'),
              cell: ({ check, sale }) => (
                <>
                  {checkText(check, 'charge')}
                  {sale && ` · ${new Date(sale.requested_at).toLocaleString(lang)} · ${formatMoney(lang, sale.received_cents ?? sale.amount_cents)}${sale.external_id ? ` · ${sale.external_id}` : ''}`}
                </>
              ),
            },
          ]}
          rows={s.charges.map((charge, i) => withSale(charge, result.charges[i]?.check))}
          rowKey={({ charge: c }) => c.service_id}
          rowAttributes={({ check }) => ({ 'data-check': check.kind })}
        />
        {s.refunds.length > 0 && (
          <DataTable
            wrap
            className="report-table"
            label={t('settlements.refunds')}
            columns={[
              { header: t('settlements.col.refund'), cell: ({ charge: r }) => <Ids ids={[[t('settlements.col.refund'), r.service_refund_id]]} /> },
              { header: t('settlements.col.deduction'), className: 'num', cell: ({ charge: r }) => formatFigure(lang, r.deduction_amount) },
              {
                header: t('settlements.col.original'),
                cell: ({ check, sale }) => (
                  <>
                    {check.kind === 'matched' ? null : `${checkText(check, 'refund')}${sale ? ' · ' : ''}`}
                    {sale ? `${new Date(sale.requested_at).toLocaleString(lang)} · ${formatMoney(lang, sale.amount_cents)}` : null}
                  </>
                ),
              },
            ]}
            rows={s.refunds.map((refund, i) => withSale(refund, result.refunds[i]?.check))}
            rowKey={({ charge: r }) => r.service_refund_id}
            rowAttributes={({ check }) => ({ 'data-check': check.kind })}
          />
        )}
        <ul aria-label={t('settlements.invariants')}>
          {result.invariants.map((l) => (
            <li key={l.rule} data-holds={l.holds}>
              {/* One currency that holds names it once ("ARS"), never "ARS = ARS". */}
              {t(RULE_TEXT[l.rule])}: {l.rule === 'currency' && l.holds && !l.missing ? l.left : l.missing ? `${formatDecimalsIn(lang, l.left)} · ${t('settlements.notComputable', { figures: l.missing.join(', ') })}` : `${formatDecimalsIn(lang, l.left)} ${l.holds ? '=' : '≠'} ${formatDecimalsIn(lang, l.right)}`}
            </li>
          ))}
        </ul>
        {fields.length > 0 && <p className="error">{t('settlements.differs', { fields: fields.join(', ') })}</p>}
        <p className={totalsHold ? 'good' : 'error'} data-testid="totals-check">
          {t(totalsHold ? 'settlements.totalsOk' : 'settlements.totalsBad')}
        </p>
        <Differences view={view} onChange={onChange} />
        <button type="button" onClick={() => saveBlob(`settlement-${s.settlement_id}.csv`, new Blob([settlementCsv(view)], { type: 'text/csv' }))}>
          {t('settlements.csv')}
        </button>
      </section>
    );
  }
}
