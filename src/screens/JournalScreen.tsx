import { Card } from '../components/Card.tsx';
import { Icon } from '../components/Icon.tsx';
import { Ids } from '../components/Ids.tsx';
import { useEffect, useState } from 'react';
import type { CarriedPayment, DaySummary, JournalEventView, Lang, SaleStatus, SaleSummary, ShiftReport, ShiftSummary, ShiftTotals, UnmatchedPayment } from '../../electron/core/contract.ts';
import { DataTable, type Column } from '../components/DataTable.tsx';
import { Field } from '../components/Field.tsx';
import { ErrorAlert } from '../components/FormError.tsx';
import { JournalRepair } from '../components/JournalRepair.tsx';
import { PrintShiftReceipt } from '../components/PrintReceipt.tsx';
import { RefundSale } from '../components/RefundSale.tsx';
import { SalePicker } from '../components/SalePicker.tsx';
import { ShiftPanel } from '../components/ShiftPanel.tsx';
import { StatusWord } from '../components/StatusWord.tsx';
import { getBridge } from '../lib/bridge.ts';
import { errorText } from '../lib/errorText.ts';
import { formatCount, formatMoney } from '../lib/format.ts';
import { formatDateTime, formatTime, type TextKey } from '../lib/i18n.ts';
import { brokenReasonText, eventDetailsText, eventTypeText, statusWordKey, unmatchedReasonText } from '../lib/messages.ts';
import { useLang, useText } from '../lib/useText.ts';
import { coreNow } from '../stores/checkout.ts';
import { screenTimeZone, useShift, type OutcomeFilter } from '../stores/shift.ts';
import { usePick } from '../stores/pick.ts';
import { useStatus } from '../stores/status.ts';

const OUTCOME_FILTERS: readonly SaleStatus[] = ['paid', 'amount_mismatch', 'paid_late', 'refunded', 'expired', 'displaced', 'withdrawn', 'pending', 'uncertain', 'failed', 'partly_refunded'];

const TOTALS: readonly { key: keyof ShiftTotals; label: TextKey; money?: boolean }[] = [
  { key: 'count', label: 'report.count' },
  // Issue 24 point 8: what came in, what went back, what was kept; never one figure netting another.
  { key: 'received_cents', label: 'report.received', money: true },
  { key: 'refunded_cents', label: 'report.refundedAmount', money: true },
  { key: 'net_cents', label: 'report.net', money: true },
  { key: 'paid', label: 'report.paid' },
  { key: 'mismatches', label: 'report.mismatches' },
  { key: 'late_payments', label: 'report.late' },
  { key: 'displaced', label: 'report.displaced' },
  { key: 'withdrawn', label: 'report.withdrawn' },
  { key: 'expired', label: 'report.expired' },
  { key: 'pending', label: 'report.pending' },
  { key: 'unmatched_count', label: 'report.unmatched' },
  { key: 'unmatched_cents', label: 'report.unmatchedAmount', money: true },
  { key: 'refunded', label: 'report.refunded' },
  { key: 'partly_refunded', label: 'report.partlyRefunded' },
];

/** A card of figures, each a label and its value (the totals, where the money went). */
function FiguresCard({ id, heading, help, figures }: { id: string; heading: string; help?: string; figures: readonly { testId: string; label: TextKey; value: string }[] }) {
  const t = useText();
  return (
    <Card id={id} heading={heading} className="totals-card">
      {help && <p className="muted">{help}</p>}
      <dl className="totals">
        {figures.map(({ testId, label, value }) => (
          <div key={testId} className="total">
            <dt>{t(label)}</dt>
            <dd data-testid={testId}>{value}</dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}

function Totals({ totals, frozen }: { totals: ShiftTotals; frozen: boolean }) {
  const t = useText();
  const lang = useLang();
  const figures = TOTALS.map(({ key, label, money }) => ({ testId: `total-${key}`, label, value: money ? formatMoney(lang, totals[key]) : formatCount(lang, totals[key]) }));
  return <FiguresCard id="totals" heading={t(frozen ? 'report.totalsFrozen' : 'report.totals')} figures={figures} />;
}

/**
 * Where the money of these sales went: received, settled, refunded, still waiting (as known
 * now); and the money fraud claims returned to the store in the shift or day.
 */
function MoneyTrail({ trail, claims }: { trail: ShiftReport['settlement']; claims: ShiftReport['claims'] }) {
  const t = useText();
  const lang = useLang();
  const sales = (count: number, cents: number) => t('report.trail.sales', { count: formatCount(lang, count), money: formatMoney(lang, cents) });
  const claimed = { count: formatCount(lang, claims.count), money: formatMoney(lang, claims.cents), unknown: formatCount(lang, claims.amount_unknown) };
  const figures = [
    { testId: 'trail-received', label: 'report.trail.received', value: formatMoney(lang, trail.received_cents) },
    { testId: 'trail-settled', label: 'report.trail.settled', value: sales(trail.settled, trail.settled_cents) },
    { testId: 'trail-refunded', label: 'report.trail.refunded', value: formatMoney(lang, trail.refunded_cents) },
    { testId: 'trail-awaiting', label: 'report.trail.awaiting', value: sales(trail.awaiting, trail.awaiting_cents) },
    { testId: 'trail-claims', label: 'report.trail.claims', value: t(claims.amount_unknown > 0 ? 'report.trail.claimsUnknown' : 'report.trail.claimsValue', claimed) },
  ] as const;
  return <FiguresCard id="trail" heading={t('report.trail.heading')} help={t('report.trail.help')} figures={figures} />;
}

function SalesTable({ sales }: { sales: readonly SaleSummary[] }) {
  const t = useText();
  const lang = useLang();
  const columns: readonly Column<SaleSummary>[] = [
    { header: t('report.col.time'), className: 'nowrap', cell: (s) => formatTime(lang, s.requested_at) },
    { header: t('report.col.amount'), className: 'num', cell: (s) => formatMoney(lang, s.amount_cents) },
    {
      header: t('report.col.outcome'),
      cell: (s) => (
        <>
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
          {s.settlement && (
            <span className="settled-line" data-testid="settled">
              {t('report.settled', {
                id: s.settlement.settlement_id,
                at: s.settlement.settled_at === null ? t('settlements.inFlight') : formatDateTime(lang, s.settlement.settled_at),
              })}
            </span>
          )}
          <RefundSale sale={s} />
        </>
      ),
    },
    { header: t('report.col.received'), className: 'num', cell: (s) => (s.received_cents === null ? '—' : formatMoney(lang, s.received_cents)) },
    { header: t('report.col.reference'), cell: (s) => s.external_id ?? '—' },
    // Who charged: an acknowledgement or attribution by someone else never takes its place.
    { header: t('report.col.chargedBy'), attributes: () => ({ 'data-testid': 'charged-by' }), cell: (s) => s.requested_by },
    // The ids, for the service's support (issue 26: behind Details, never a column of their own).
    {
      header: t('report.col.details'),
      cell: (s) => (
        <Ids
          ids={[
            [t('report.col.pixId'), s.pix_id],
            [t('report.col.serviceId'), s.service_id],
            [t('report.col.saleId'), s.sale_id],
          ]}
        />
      ),
    },
  ];
  return (
    <DataTable
      wrap
      className="report-table"
      labelledBy="sales-heading"
      columns={columns}
      rows={sales}
      rowKey={(s) => s.sale_id}
      rowAttributes={(s) => ({ 'data-sale-id': s.sale_id, 'data-status': s.status })}
      empty={t('report.noSales')}
    />
  );
}

function EventsTable({ events }: { events: readonly JournalEventView[] }) {
  const t = useText();
  const lang = useLang();
  const columns: readonly Column<JournalEventView>[] = [
    { header: t('report.col.time'), className: 'nowrap', cell: (e) => formatTime(lang, e.at) },
    { header: t('report.col.event'), attributes: (e) => ({ 'data-type': e.type, title: e.type }), cell: (e) => eventTypeText(lang, e.type) },
    {
      header: t('report.col.details'),
      cell: (e) => (
        <>
          {eventDetailsText(lang, { ...e.details, pix_id: null })}
          <Ids ids={[[t('report.col.pixId'), e.details.pix_id]]} />
        </>
      ),
    },
    { header: t('report.col.by'), cell: (e) => e.by ?? '—' },
  ];
  return <DataTable wrap className="report-table events-table" labelledBy="events-heading" columns={columns} rows={events} rowKey={(e) => e.seq} empty={t('report.noEvents')} />;
}

function UnmatchedRow({ payment }: { payment: UnmatchedPayment }) {
  const t = useText();
  const lang = useLang();
  const attribute = useShift((s) => s.attribute);
  const error = useShift((s) => (s.attributeError?.seq === payment.seq ? s.attributeError.error : null));
  const [saleId, setSaleId] = useState('');
  const [busy, setBusy] = useState(false);
  const [missing, setMissing] = useState(false);
  const id = `unmatched-${payment.seq}`;
  return (
    <tr data-seq={payment.seq}>
      <td className="nowrap">{formatTime(lang, payment.at)}</td>
      <td>{t(payment.kind === 'payment' ? 'unmatched.kind.payment' : 'unmatched.kind.done')}</td>
      <td className="num">{payment.amount_cents === null ? '—' : formatMoney(lang, payment.amount_cents)}</td>
      <td>
        {payment.external_id ?? '—'}
        <Ids
          ids={[
            [t('report.col.pixId'), payment.pix_id],
            [t('report.col.serviceId'), payment.service_id],
          ]}
        />
      </td>
      <td>{unmatchedReasonText(lang, payment.reason)}</td>
      <td>
        <form
          className="ack-form no-print"
          aria-label={t('unmatched.attributeForm', { seq: payment.seq })}
          onSubmit={(e) => {
            e.preventDefault();
            if (saleId.trim() === '') {
              setMissing(true);
              return;
            }
            setMissing(false);
            setBusy(true);
            // In the name of the supervisor signed in on this window: the core knows who.
            void attribute(payment.seq, saleId).finally(() => setBusy(false));
          }}
        >
          <SalePicker id={`${id}-sale`} value={saleId} onChange={setSaleId} />
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
    <Card id="unmatched" heading={t('unmatched.heading')} className="report-card">
      <p className="help no-print">{t('unmatched.helpPick')}</p>
      <DataTable
        wrap
        className="report-table"
        labelledBy="unmatched-heading"
        headers={[
          t('report.col.time'),
          t('unmatched.col.kind'),
          t('report.col.amount'),
          t('report.col.reference'),
          t('unmatched.col.reason'),
          { header: t('unmatched.attribute'), headerClassName: 'no-print' },
        ]}
        rows={unmatched}
        row={(p) => <UnmatchedRow key={p.seq} payment={p} />}
        empty={t('unmatched.none')}
      />
    </Card>
  );
}

/** A local day (YYYY-MM-DD) in words: it is a calendar date, so formatted as such, in no zone. */
function formatDay(lang: Lang, day: string): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Intl.DateTimeFormat(lang, { dateStyle: 'full', timeZone: 'UTC' }).format(Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1));
}

/**
 * Payments that arrived in this report's period for a sale of another (after the close of
 * this shift, or in it for an earlier shift's sale): each points back to its sale and shift.
 */
function CarriedPayments({ id, heading, help, total, items, cents, refundsCents = 0 }: { id: string; heading: TextKey; help: TextKey; total: TextKey; items: readonly CarriedPayment[]; cents: number; refundsCents?: number }) {
  const t = useText();
  const lang = useLang();
  const select = useShift((s) => s.select);
  const shown = useShift((s) => s.report?.shift?.shift_id ?? null);
  const columns: readonly Column<CarriedPayment>[] = [
    { header: t('report.col.time'), className: 'nowrap', cell: (p) => formatDateTime(lang, p.at) },
    { header: t('report.col.event'), attributes: (p) => ({ 'data-type': p.type, title: p.type }), cell: (p) => eventTypeText(lang, p.type) },
    { header: t('report.col.amount'), className: 'num', cell: (p) => (p.amount_cents === null ? '—' : formatMoney(lang, p.amount_cents)) },
    {
      header: t('report.col.sale'),
      cell: (p) => (
        <>
          <Ids ids={[[t('report.col.saleId'), p.sale_id]]} />{' '}
          {p.sale_requested_at !== null && <span className="muted">{t('report.saleRungUp', { at: formatDateTime(lang, p.sale_requested_at), by: p.sale_requested_by ?? '—' })}</span>}{' '}
          {p.sale_shift_id === null ? (
            <span className="muted">{t('report.saleNoShift')}</span>
          ) : (
            p.sale_shift_id !== shown && (
              <button type="button" className="secondary no-print" onClick={() => select({ kind: 'shift', shiftId: p.sale_shift_id as string })}>
                {t('report.showSaleShift')}
              </button>
            )
          )}
        </>
      ),
    },
    { header: t('report.col.by'), cell: (p) => p.by ?? '—' },
  ];
  return (
    <Card id={id} heading={t(heading)} className="report-card">
      <p className="help">{t(help)}</p>
      <p data-testid={`${id}-total`}>{t(total, { amount: formatMoney(lang, cents) })}</p>
      {refundsCents > 0 && <p data-testid={`${id}-refunds`}>{t('report.carriedRefunds', { amount: formatMoney(lang, refundsCents) })}</p>}
      <DataTable
        wrap
        className="report-table"
        labelledBy={`${id}-heading`}
        columns={columns}
        rows={items}
        rowKey={(p) => `${p.seq}:${p.sale_id}`}
        rowAttributes={(p) => ({ 'data-seq': p.seq, 'data-sale-id': p.sale_id })}
        empty={t('report.noneCarried')}
      />
    </Card>
  );
}

function Pager({ newer, older, onNewer, onOlder }: { newer: boolean; older: boolean; onNewer: () => void; onOlder: () => void }) {
  const t = useText();
  return (
    <div className="report-actions">
      <button type="button" className="secondary" disabled={!newer} onClick={onNewer}>
        {t('history.newer')}
      </button>
      <button type="button" className="secondary" disabled={!older} onClick={onOlder}>
        {t('history.older')}
      </button>
    </div>
  );
}

function ShiftList() {
  const t = useText();
  const lang = useLang();
  const { shiftPage: page, shiftCursors: cursors, select, olderShifts, newerShifts } = usePick(useShift, 'shiftPage', 'shiftCursors', 'select', 'olderShifts', 'newerShifts');
  const selected = useShift((s) => (s.selection.kind === 'shift' ? s.selection.shiftId : null));
  const shifts = page?.shifts ?? [];
  const columns: readonly Column<ShiftSummary>[] = [
    { header: t('history.col.opened'), className: 'nowrap', cell: (s) => formatDateTime(lang, s.opened_at) },
    { header: t('history.col.openedBy'), cell: (s) => s.opened_by },
    { header: t('history.col.closed'), className: 'nowrap', cell: (s) => (s.closed_at === null ? <span className="muted">{t('history.stillOpen')}</span> : formatDateTime(lang, s.closed_at)) },
    { header: t('history.col.closedBy'), cell: (s) => s.closed_by ?? '—' },
    { header: t('history.col.note'), cell: (s) => [s.note, s.close_note].filter((n) => n !== null).join(' / ') || '—' },
    { header: t('report.count'), className: 'num', cell: (s) => formatCount(lang, s.totals.count) },
    { header: t('report.received'), className: 'num', cell: (s) => formatMoney(lang, s.totals.received_cents) },
    { header: t('report.net'), className: 'num', cell: (s) => formatMoney(lang, s.totals.net_cents) },
    {
      header: t('report.col.details'),
      cell: (s) => (
        <button
          type="button"
          className="secondary"
          aria-label={t('history.showShift', { by: s.opened_by, at: formatDateTime(lang, s.opened_at) })}
          onClick={() => select(s.closed_at === null ? { kind: 'current' } : { kind: 'shift', shiftId: s.shift_id })}
        >
          {t('history.show')}
        </button>
      ),
    },
  ];
  return (
    <>
      <p className="help">{t('history.page', { page: cursors.length + 1 })}</p>
      <DataTable
        wrap
        className="report-table"
        label={t('history.shifts')}
        columns={columns}
        rows={shifts}
        rowKey={(s) => s.shift_id}
        rowAttributes={(s) => ({ 'data-shift-id': s.shift_id, 'aria-current': s.shift_id === selected ? 'true' : undefined })}
        empty={t('history.noShifts')}
      />
      <Pager newer={cursors.length > 0} older={page?.older != null} onNewer={newerShifts} onOlder={olderShifts} />
    </>
  );
}

function DayList() {
  const t = useText();
  const lang = useLang();
  const { dayPage: page, select, olderDays, newerDays } = usePick(useShift, 'dayPage', 'select', 'olderDays', 'newerDays');
  const selected = useShift((s) => (s.selection.kind === 'day' ? s.selection.day : null));
  const columns: readonly Column<DaySummary>[] = [
    { header: t('history.col.day'), className: 'nowrap', cell: (d) => formatDay(lang, d.day) },
    { header: t('report.count'), className: 'num', cell: (d) => (d.totals.count === 0 ? <span className="muted">{t('history.noSales')}</span> : formatCount(lang, d.totals.count)) },
    { header: t('report.paid'), className: 'num', cell: (d) => formatCount(lang, d.totals.paid) },
    { header: t('report.received'), className: 'num', cell: (d) => formatMoney(lang, d.totals.received_cents) },
    { header: t('report.net'), className: 'num', cell: (d) => formatMoney(lang, d.totals.net_cents) },
    {
      header: t('report.col.details'),
      cell: (d) => (
        <button type="button" className="secondary" aria-label={t('history.showDay', { day: formatDay(lang, d.day) })} onClick={() => select({ kind: 'day', day: d.day })}>
          {t('history.show')}
        </button>
      ),
    },
  ];
  return (
    <>
      <p className="help">{t('history.daysHelp', { zone: screenTimeZone() })}</p>
      <DataTable
        wrap
        className="report-table"
        label={t('history.days')}
        columns={columns}
        rows={page?.days ?? []}
        rowKey={(d) => d.day}
        rowAttributes={(d) => ({ 'data-day': d.day, 'data-count': d.totals.count, 'aria-current': d.day === selected ? 'true' : undefined })}
      />
      <Pager newer={page?.newer != null} older={page?.older != null} onNewer={newerDays} onOlder={olderDays} />
    </>
  );
}

/** Every past shift and day, a page at a time; choosing one shows it below like the current shift. */
function History() {
  const t = useText();
  const view = useShift((s) => s.historyView);
  const setHistoryView = useShift((s) => s.setHistoryView);
  return (
    <Card id="history" heading={t('history.heading')} className="report-card no-print">
      <div className="report-actions" role="group" aria-label={t('history.heading')}>
        {(['shifts', 'days'] as const).map((v) => (
          <button key={v} type="button" className={view === v ? undefined : 'secondary'} aria-pressed={view === v} onClick={() => setHistoryView(v)}>
            {t(v === 'shifts' ? 'history.shifts' : 'history.days')}
          </button>
        ))}
      </div>
      {view === 'shifts' ? <ShiftList /> : <DayList />}
    </Card>
  );
}

/** Says what the report below is, when it is not the current shift, and the way back. */
function Showing({ report }: { report: ShiftReport }) {
  const t = useText();
  const lang = useLang();
  const selection = useShift((s) => s.selection);
  const select = useShift((s) => s.select);
  if (selection.kind === 'current') return null;
  const { shift, day } = report;
  return (
    <div className="card" role="status" data-testid="report-showing">
      {day && <p>{t('history.viewingDay', { day: formatDay(lang, day.day), zone: day.time_zone })}</p>}
      {shift && <p>{t('history.viewingShift', { by: shift.opened_by, at: formatDateTime(lang, shift.opened_at) })}</p>}
      {shift?.closed_by && shift.closed_at !== null && <p>{t('history.viewingFrozen', { by: shift.closed_by, at: formatDateTime(lang, shift.closed_at) })}</p>}
      <button type="button" className="secondary no-print" onClick={() => select({ kind: 'current' })}>
        {t('history.backToCurrent')}
      </button>
    </div>
  );
}

function Integrity() {
  const t = useText();
  const lang = useLang();
  const { verify, verifyJournal } = usePick(useShift, 'verify', 'verifyJournal');
  return (
    <Card id="integrity" heading={t('report.integrity')} className="integrity no-print">
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
      {verify?.acknowledgedBreaks?.map((b) => (
        <p key={b.restart.hash} className="warn" data-testid="integrity-acknowledged">
          <Icon name="alert" />{' '}
          {t('report.verifyAcknowledged', { seq: b.broken.seq, segment: b.broken.segment, line: b.broken.line, by: b.restart.by, restart: b.restart.seq })}
        </p>
      ))}
    </Card>
  );
}

/**
 * Keeps the report current while the screen is open: sales change, shifts open and close,
 * payments without a sale come and go (the status carries their count).
 */
function useLiveReport() {
  const loadReport = useShift((s) => s.loadReport);
  const loadUnmatched = useShift((s) => s.loadUnmatched);
  const loadHistory = useShift((s) => s.loadHistory);
  const shiftId = useStatus((s) => s.status?.shift?.shift_id ?? null);
  const unmatchedCount = useStatus((s) => s.status?.unmatchedPayments ?? 0);
  useEffect(() => {
    void loadReport();
    void loadHistory();
  }, [loadReport, loadHistory, shiftId]);
  useEffect(() => {
    void loadUnmatched();
    void loadReport();
  }, [loadUnmatched, loadReport, unmatchedCount]);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = getBridge().listen('checkout.changed', () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        void loadReport();
        void loadHistory();
      }, 200);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [loadReport, loadHistory]);
}

/**
 * The supervisor's shift journal: open and close the shift, the shift's sales and events
 * with filters, totals, the integrity check, CSV export and a printable end-of-shift report.
 */
export function JournalScreen() {
  const t = useText();
  const lang = useLang();
  const { report, error, outcome, search, setOutcome, setSearch, loadReport, exportCsv } = usePick(useShift, 'report', 'error', 'outcome', 'search', 'setOutcome', 'setSearch', 'loadReport', 'exportCsv');
  const [printedAt, setPrintedAt] = useState(coreNow);
  useLiveReport();

  useEffect(() => {
    const timer = setTimeout(() => void loadReport(), 250);
    return () => clearTimeout(timer);
  }, [search, loadReport]);

  const shift = report?.shift ?? null;
  const day = report?.day ?? null;
  const journalHealth = useStatus((s) => s.status?.journal ?? null);
  return (
    <div className="journal">
      <header className="print-only print-header">
        <h1>{day ? t('report.dayPrintTitle', { day: formatDay(lang, day.day) }) : t('report.printTitle')}</h1>
        <p>{t('report.printedAt', { at: formatDateTime(lang, printedAt) })}</p>
        {shift && <p>{t('shift.openedBy', { by: shift.opened_by, at: formatDateTime(lang, shift.opened_at) })}</p>}
        {shift?.note && <p>{t('shift.noteValue', { note: shift.note })}</p>}
        {shift?.closed_by && shift.closed_at !== null && <p>{t('shift.closedBy', { by: shift.closed_by, at: formatDateTime(lang, shift.closed_at) })}</p>}
        {shift?.close_note && <p>{t('shift.noteValue', { note: shift.close_note })}</p>}
      </header>
      <h2 className="visually-hidden">{t('journal.heading')}</h2>
      {journalHealth && <JournalRepair journal={journalHealth} />}
      <div className="no-print">
        <ShiftPanel />
      </div>
      {error && (
        <ErrorAlert>
          <Icon name="cross" /> {errorText(lang, error)}
        </ErrorAlert>
      )}
      <History />
      {report && <Showing report={report} />}
      {report && <Totals totals={report.totals} frozen={report.frozen_at_seq !== null} />}
      {report && <MoneyTrail trail={report.settlement} claims={report.claims} />}
      {report && !shift && !day && <p className="hint">{t('report.noShift')}</p>}

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
          {t(day ? 'report.printDay' : 'report.print')}
        </button>
        {shift && <PrintShiftReceipt key={shift.shift_id} shiftId={shift.shift_id} />}
        <button type="button" className="secondary" onClick={() => void loadReport()}>
          {t('report.refresh')}
        </button>
      </div>

      <Card id="sales" heading={t(day ? 'report.salesOfDay' : 'report.sales')} className="report-card">
        <form className="filters no-print" role="search" aria-label={t('report.filters')} onSubmit={(e) => e.preventDefault()}>
          <Field id="filter-outcome" label={t('report.outcome')}>
            <select id="filter-outcome" value={outcome} onChange={(e) => setOutcome(e.target.value as OutcomeFilter)}>
              <option value="">{t('report.outcomeAll')}</option>
              {OUTCOME_FILTERS.map((s) => (
                <option key={s} value={s}>
                  {t(statusWordKey(s))}
                </option>
              ))}
            </select>
          </Field>
          <Field id="filter-search" label={t('report.search')}>
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
          </Field>
        </form>
        <SalesTable sales={report?.sales ?? []} />
      </Card>

      {report && shift?.closed_at != null && (
        <CarriedPayments id="after-close" heading="report.afterClose" help="report.afterCloseHelp" total="report.afterCloseTotal" items={report.after_close} cents={report.after_close_cents} refundsCents={report.after_close_refunds_cents} />
      )}
      {report && (shift || day) && (
        <CarriedPayments id="carried" heading="report.carried" help="report.carriedHelp" total="report.carriedTotal" items={report.carried} cents={report.carried_cents} refundsCents={report.carried_refunds_cents} />
      )}

      <UnmatchedPayments />

      <Card id="events" heading={t('report.events')} className="report-card">
        <EventsTable events={report?.events ?? []} />
      </Card>

      <Integrity />
    </div>
  );
}
