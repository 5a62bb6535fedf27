import { Icon } from '../components/Icon.tsx';
import { useEffect, useState } from 'react';
import type { JournalEventView, SaleStatus, SaleSummary, ShiftTotals, UnmatchedPayment } from '../../electron/core/contract.ts';
import { ShiftPanel } from '../components/ShiftPanel.tsx';
import { StatusWord } from '../components/StatusWord.tsx';
import { getBridge } from '../lib/bridge.ts';
import { errorText } from '../lib/errorText.ts';
import { formatCount, formatDateTime, formatMoney, formatTime, type TextKey } from '../lib/i18n.ts';
import { brokenReasonText, eventDetailsText, eventTypeText, statusWordKey } from '../lib/messages.ts';
import { useLang, useText } from '../lib/useText.ts';
import { coreNow } from '../stores/checkout.ts';
import { useShift, type OutcomeFilter } from '../stores/shift.ts';
import { selectOperator, useStatus } from '../stores/status.ts';

const OUTCOME_FILTERS: readonly SaleStatus[] = ['paid', 'amount_mismatch', 'paid_late', 'refunded', 'expired', 'displaced', 'pending', 'uncertain', 'failed'];

const TOTALS: readonly { key: keyof ShiftTotals; label: TextKey; money?: boolean }[] = [
  { key: 'count', label: 'report.count' },
  { key: 'collected_cents', label: 'report.collected', money: true },
  { key: 'paid', label: 'report.paid' },
  { key: 'mismatches', label: 'report.mismatches' },
  { key: 'late_payments', label: 'report.late' },
  { key: 'displaced', label: 'report.displaced' },
  { key: 'expired', label: 'report.expired' },
  { key: 'pending', label: 'report.pending' },
  { key: 'unmatched_count', label: 'report.unmatched' },
  { key: 'unmatched_cents', label: 'report.unmatchedAmount', money: true },
  { key: 'refunded', label: 'report.refunded' },
  { key: 'refunded_cents', label: 'report.refundedAmount', money: true },
];

const UNMATCHED_REASONS: Readonly<Record<string, TextKey>> = {
  no_ids: 'unmatched.reason.no_ids',
  unknown_ids: 'unmatched.reason.unknown_ids',
  ids_conflict: 'unmatched.reason.ids_conflict',
};

function Totals({ totals }: { totals: ShiftTotals }) {
  const t = useText();
  const lang = useLang();
  return (
    <section className="card totals-card" aria-labelledby="totals-heading">
      <h2 id="totals-heading">{t('report.totals')}</h2>
      <dl className="totals">
        {TOTALS.map(({ key, label, money }) => (
          <div key={key} className="total">
            <dt>{t(label)}</dt>
            <dd data-testid={`total-${key}`}>{money ? formatMoney(lang, totals[key]) : formatCount(lang, totals[key])}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function SalesTable({ sales }: { sales: readonly SaleSummary[] }) {
  const t = useText();
  const lang = useLang();
  return (
    <div className="table-wrap">
      <table className="report-table" aria-labelledby="sales-heading">
        <thead>
          <tr>
            <th scope="col">{t('report.col.time')}</th>
            <th scope="col">{t('report.col.amount')}</th>
            <th scope="col">{t('report.col.outcome')}</th>
            <th scope="col">{t('report.col.received')}</th>
            <th scope="col">{t('report.col.reference')}</th>
            <th scope="col">{t('report.col.pixId')}</th>
            <th scope="col">{t('report.col.serviceId')}</th>
            <th scope="col">{t('report.col.by')}</th>
            <th scope="col">{t('report.col.saleId')}</th>
          </tr>
        </thead>
        <tbody>
          {sales.length === 0 ? (
            <tr>
              <td colSpan={9} className="muted">
                {t('report.noSales')}
              </td>
            </tr>
          ) : (
            sales.map((s) => (
              <tr key={s.sale_id} data-sale-id={s.sale_id} data-status={s.status}>
                <td className="nowrap">{formatTime(lang, s.requested_at)}</td>
                <td className="num">{formatMoney(lang, s.amount_cents)}</td>
                <td>
                  <StatusWord status={s.status} />
                  {s.description.needs_person && (
                    <span className="needs-person">
                      {' '}
                      <Icon name="alert" /> {t('report.needsPerson')}
                    </span>
                  )}
                  {s.description.acknowledged.map((a) => (
                    <span key={`${a.reason}:${a.at}`} className="acknowledged-line">
                      {t('ack.done', { by: a.by, at: formatTime(lang, a.at) })}
                    </span>
                  ))}
                </td>
                <td className="num">{s.received_cents === null ? '—' : formatMoney(lang, s.received_cents)}</td>
                <td>{s.external_id ?? '—'}</td>
                <td>
                  <code>{s.pix_id ?? '—'}</code>
                </td>
                <td>
                  <code>{s.service_id ?? '—'}</code>
                </td>
                <td>{s.requested_by}</td>
                <td>
                  {/* What a person types to tie a payment without a sale to this one. */}
                  <code>{s.sale_id}</code>
                </td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

function EventsTable({ events }: { events: readonly JournalEventView[] }) {
  const t = useText();
  const lang = useLang();
  return (
    <div className="table-wrap">
      <table className="report-table events-table" aria-labelledby="events-heading">
        <thead>
          <tr>
            <th scope="col">{t('report.col.time')}</th>
            <th scope="col">{t('report.col.event')}</th>
            <th scope="col">{t('report.col.details')}</th>
            <th scope="col">{t('report.col.by')}</th>
          </tr>
        </thead>
        <tbody>
          {events.length === 0 ? (
            <tr>
              <td colSpan={4} className="muted">
                {t('report.noEvents')}
              </td>
            </tr>
          ) : (
            events.map((e) => (
              <tr key={e.seq}>
                <td className="nowrap">{formatTime(lang, e.at)}</td>
                <td data-type={e.type} title={e.type}>
                  {eventTypeText(lang, e.type)}
                </td>
                <td>{eventDetailsText(lang, e.details)}</td>
                <td>{e.by ?? '—'}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

function UnmatchedRow({ payment }: { payment: UnmatchedPayment }) {
  const t = useText();
  const lang = useLang();
  const attribute = useShift((s) => s.attribute);
  const error = useShift((s) => (s.attributeError?.seq === payment.seq ? s.attributeError.error : null));
  const operator = useStatus(selectOperator);
  const [saleId, setSaleId] = useState('');
  const [by, setBy] = useState(operator ?? '');
  const [busy, setBusy] = useState(false);
  const [missing, setMissing] = useState(false);
  const id = `unmatched-${payment.seq}`;
  const reason = UNMATCHED_REASONS[payment.reason];
  return (
    <tr data-seq={payment.seq}>
      <td className="nowrap">{formatTime(lang, payment.at)}</td>
      <td>{t(payment.kind === 'payment' ? 'unmatched.kind.payment' : 'unmatched.kind.done')}</td>
      <td className="num">{payment.amount_cents === null ? '—' : formatMoney(lang, payment.amount_cents)}</td>
      <td>
        <code>{payment.pix_id ?? '—'}</code>
      </td>
      <td>
        <code>{payment.service_id ?? '—'}</code>
      </td>
      <td>{payment.external_id ?? '—'}</td>
      <td>{reason ? t(reason) : payment.reason}</td>
      <td>
        <form
          className="ack-form no-print"
          aria-label={t('unmatched.attributeForm', { seq: payment.seq })}
          onSubmit={(e) => {
            e.preventDefault();
            if (saleId.trim() === '' || by.trim() === '') {
              setMissing(true);
              return;
            }
            setMissing(false);
            setBusy(true);
            void attribute(payment.seq, saleId, by).finally(() => setBusy(false));
          }}
        >
          <label htmlFor={`${id}-sale`}>{t('unmatched.saleId')}</label>
          <input id={`${id}-sale`} value={saleId} maxLength={200} autoComplete="off" spellCheck={false} onChange={(e) => setSaleId(e.target.value)} />
          <label htmlFor={`${id}-by`}>{t('unmatched.by')}</label>
          <input id={`${id}-by`} value={by} maxLength={80} autoComplete="name" onChange={(e) => setBy(e.target.value)} />
          <button type="submit" disabled={busy}>
            {t('unmatched.attribute')}
          </button>
          {missing && <p className="error">{t('unmatched.needFields')}</p>}
          {error && <p className="error">{errorText(lang, error)}</p>}
        </form>
      </td>
    </tr>
  );
}

/** Payments no sale could be matched to (reference 4.5 rule 6): a person may tie each to a sale. */
function UnmatchedPayments() {
  const t = useText();
  const unmatched = useShift((s) => s.unmatched);
  return (
    <section className="card report-card" aria-labelledby="unmatched-heading">
      <h2 id="unmatched-heading">{t('unmatched.heading')}</h2>
      <p className="help no-print">{t('unmatched.help')}</p>
      <div className="table-wrap">
        <table className="report-table" aria-labelledby="unmatched-heading">
          <thead>
            <tr>
              <th scope="col">{t('report.col.time')}</th>
              <th scope="col">{t('unmatched.col.kind')}</th>
              <th scope="col">{t('report.col.amount')}</th>
              <th scope="col">{t('report.col.pixId')}</th>
              <th scope="col">{t('report.col.serviceId')}</th>
              <th scope="col">{t('report.col.reference')}</th>
              <th scope="col">{t('unmatched.col.reason')}</th>
              <th scope="col" className="no-print">
                {t('unmatched.attribute')}
              </th>
            </tr>
          </thead>
          <tbody>
            {unmatched.length === 0 ? (
              <tr>
                <td colSpan={8} className="muted">
                  {t('unmatched.none')}
                </td>
              </tr>
            ) : (
              unmatched.map((p) => <UnmatchedRow key={p.seq} payment={p} />)
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Integrity() {
  const t = useText();
  const lang = useLang();
  const verify = useShift((s) => s.verify);
  const verifyJournal = useShift((s) => s.verifyJournal);
  return (
    <section className="card integrity no-print" aria-labelledby="integrity-heading">
      <h2 id="integrity-heading">{t('report.integrity')}</h2>
      <button type="button" className="secondary" onClick={() => void verifyJournal()}>
        {t('report.verify')}
      </button>
      <p aria-live="polite" data-testid="integrity-result" className={verify ? (verify.ok ? 'good' : 'bad') : ''}>
        {verify &&
          (verify.ok ? (
            <>
              <Icon name="check" /> {t('report.verifyOk', { entries: verify.entries })}
            </>
          ) : (
            <>
              <Icon name="cross" />{' '}
              {t('report.verifyBroken', {
                segment: verify.firstBroken.segment,
                line: verify.firstBroken.line,
                seq: verify.firstBroken.seq,
                reason: brokenReasonText(lang, verify.firstBroken.reason),
              })}
            </>
          ))}
      </p>
    </section>
  );
}

/**
 * Keeps the report current while the screen is open: sales change, shifts open and close,
 * payments without a sale come and go (the status carries their count).
 */
function useLiveReport() {
  const loadReport = useShift((s) => s.loadReport);
  const loadUnmatched = useShift((s) => s.loadUnmatched);
  const shiftId = useStatus((s) => s.status?.shift?.shift_id ?? null);
  const unmatchedCount = useStatus((s) => s.status?.unmatchedPayments ?? 0);
  useEffect(() => {
    void loadReport();
  }, [loadReport, shiftId]);
  useEffect(() => {
    void loadUnmatched();
    void loadReport();
  }, [loadUnmatched, loadReport, unmatchedCount]);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = getBridge().listen('checkout.changed', () => {
      clearTimeout(timer);
      timer = setTimeout(() => void loadReport(), 200);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [loadReport]);
}

/**
 * The supervisor's shift journal: open and close the shift, the shift's sales and events
 * with filters, totals, the integrity check, CSV export and a printable end-of-shift report.
 */
export function JournalScreen() {
  const t = useText();
  const lang = useLang();
  const report = useShift((s) => s.report);
  const error = useShift((s) => s.error);
  const outcome = useShift((s) => s.outcome);
  const search = useShift((s) => s.search);
  const setOutcome = useShift((s) => s.setOutcome);
  const setSearch = useShift((s) => s.setSearch);
  const loadReport = useShift((s) => s.loadReport);
  const exportCsv = useShift((s) => s.exportCsv);
  const [printedAt, setPrintedAt] = useState(coreNow);
  useLiveReport();

  useEffect(() => {
    const timer = setTimeout(() => void loadReport(), 250);
    return () => clearTimeout(timer);
  }, [search, loadReport]);

  const shift = report?.shift ?? null;
  return (
    <div className="journal">
      <header className="print-only print-header">
        <h1>{t('report.printTitle')}</h1>
        <p>{t('report.printedAt', { at: formatDateTime(lang, printedAt) })}</p>
        {shift && <p>{t('shift.openedBy', { by: shift.opened_by, at: formatDateTime(lang, shift.opened_at) })}</p>}
        {shift?.note && <p>{t('shift.noteValue', { note: shift.note })}</p>}
        {shift?.closed_by && shift.closed_at !== null && <p>{t('shift.closedBy', { by: shift.closed_by, at: formatDateTime(lang, shift.closed_at) })}</p>}
        {shift?.close_note && <p>{t('shift.noteValue', { note: shift.close_note })}</p>}
      </header>
      <h2 className="visually-hidden">{t('journal.heading')}</h2>
      <div className="no-print">
        <ShiftPanel />
      </div>
      {error && (
        <p className="error" role="alert">
          <Icon name="cross" /> {errorText(lang, error)}
        </p>
      )}
      {report && <Totals totals={report.totals} />}
      {report && !shift && <p className="hint">{t('report.noShift')}</p>}

      <div className="report-actions no-print">
        <button type="button" className="secondary" onClick={() => void exportCsv()}>
          {t('report.exportCsv')}
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setPrintedAt(coreNow());
            // Let the "printed at" line render before the print dialog takes the page.
            setTimeout(() => window.print(), 0);
          }}
        >
          {t('report.print')}
        </button>
        <button type="button" className="secondary" onClick={() => void loadReport()}>
          {t('report.refresh')}
        </button>
      </div>

      <section className="card report-card" aria-labelledby="sales-heading">
        <h2 id="sales-heading">{t('report.sales')}</h2>
        <form className="filters no-print" role="search" aria-label={t('report.filters')} onSubmit={(e) => e.preventDefault()}>
          <div className="field">
            <label htmlFor="filter-outcome">{t('report.outcome')}</label>
            <select id="filter-outcome" value={outcome} onChange={(e) => setOutcome(e.target.value as OutcomeFilter)}>
              <option value="">{t('report.outcomeAll')}</option>
              {OUTCOME_FILTERS.map((s) => (
                <option key={s} value={s}>
                  {t(statusWordKey(s))}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="filter-search">{t('report.search')}</label>
            <input
              id="filter-search"
              type="search"
              value={search}
              aria-describedby="filter-search-help"
              onChange={(e) => setSearch(e.target.value)}
            />
            <span id="filter-search-help" className="help">
              {t('report.searchHelp')}
            </span>
          </div>
        </form>
        <SalesTable sales={report?.sales ?? []} />
      </section>

      <UnmatchedPayments />

      <section className="card report-card" aria-labelledby="events-heading">
        <h2 id="events-heading">{t('report.events')}</h2>
        <EventsTable events={report?.events ?? []} />
      </section>

      <Integrity />
    </div>
  );
}
