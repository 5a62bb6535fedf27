import { Icon } from '../components/Icon.tsx';
import { useEffect, useState } from 'react';
import type { CarriedPayment, JournalEventView, Lang, SaleStatus, SaleSummary, ShiftReport, ShiftTotals, UnmatchedPayment } from '../../electron/core/contract.ts';
import { JournalRepair } from '../components/JournalRepair.tsx';
import { RefundSale } from '../components/RefundSale.tsx';
import { SalePicker } from '../components/SalePicker.tsx';
import { ShiftPanel } from '../components/ShiftPanel.tsx';
import { StatusWord } from '../components/StatusWord.tsx';
import { getBridge } from '../lib/bridge.ts';
import { errorText } from '../lib/errorText.ts';
import { formatCount, formatDateTime, formatMoney, formatTime, type TextKey } from '../lib/i18n.ts';
import { brokenReasonText, eventDetailsText, eventTypeText, statusWordKey, unmatchedReasonText } from '../lib/messages.ts';
import { useLang, useText } from '../lib/useText.ts';
import { coreNow } from '../stores/checkout.ts';
import { screenTimeZone, useShift, type OutcomeFilter } from '../stores/shift.ts';
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
    <section className="card totals-card" aria-labelledby={id}>
      <h2 id={id}>{heading}</h2>
      {help && <p className="muted">{help}</p>}
      <dl className="totals">
        {figures.map(({ testId, label, value }) => (
          <div key={testId} className="total">
            <dt>{t(label)}</dt>
            <dd data-testid={testId}>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function Totals({ totals, frozen }: { totals: ShiftTotals; frozen: boolean }) {
  const t = useText();
  const lang = useLang();
  const figures = TOTALS.map(({ key, label, money }) => ({ testId: `total-${key}`, label, value: money ? formatMoney(lang, totals[key]) : formatCount(lang, totals[key]) }));
  return <FiguresCard id="totals-heading" heading={t(frozen ? 'report.totalsFrozen' : 'report.totals')} figures={figures} />;
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
  return <FiguresCard id="trail-heading" heading={t('report.trail.heading')} help={t('report.trail.help')} figures={figures} />;
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
            <th scope="col">{t('report.col.chargedBy')}</th>
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
                  {s.settlement && (
                    <span className="settled-line" data-testid="settled">
                      {t('report.settled', {
                        id: s.settlement.settlement_id,
                        at: s.settlement.settled_at === null ? t('settlements.inFlight') : formatDateTime(lang, s.settlement.settled_at),
                      })}
                    </span>
                  )}
                  <RefundSale sale={s} />
                </td>
                <td className="num">{s.received_cents === null ? '—' : formatMoney(lang, s.received_cents)}</td>
                <td>{s.external_id ?? '—'}</td>
                <td>
                  <code>{s.pix_id ?? '—'}</code>
                </td>
                <td>
                  <code>{s.service_id ?? '—'}</code>
                </td>
                {/* Who charged: an acknowledgement or attribution by someone else never takes its place. */}
                <td data-testid="charged-by">{s.requested_by}</td>
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
        <code>{payment.pix_id ?? '—'}</code>
      </td>
      <td>
        <code>{payment.service_id ?? '—'}</code>
      </td>
      <td>{payment.external_id ?? '—'}</td>
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
    <section className="card report-card" aria-labelledby="unmatched-heading">
      <h2 id="unmatched-heading">{t('unmatched.heading')}</h2>
      <p className="help no-print">{t('unmatched.helpPick')}</p>
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
  return (
    <section className="card report-card" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{t(heading)}</h2>
      <p className="help">{t(help)}</p>
      <p data-testid={`${id}-total`}>{t(total, { amount: formatMoney(lang, cents) })}</p>
      {refundsCents > 0 && <p data-testid={`${id}-refunds`}>{t('report.carriedRefunds', { amount: formatMoney(lang, refundsCents) })}</p>}
      <div className="table-wrap">
        <table className="report-table" aria-labelledby={`${id}-heading`}>
          <thead>
            <tr>
              <th scope="col">{t('report.col.time')}</th>
              <th scope="col">{t('report.col.event')}</th>
              <th scope="col">{t('report.col.amount')}</th>
              <th scope="col">{t('report.col.sale')}</th>
              <th scope="col">{t('report.col.by')}</th>
            </tr>
          </thead>
          <tbody>
            {items.length === 0 ? (
              <tr>
                <td colSpan={5} className="muted">
                  {t('report.noneCarried')}
                </td>
              </tr>
            ) : (
              items.map((p) => (
                <tr key={`${p.seq}:${p.sale_id}`} data-seq={p.seq} data-sale-id={p.sale_id}>
                  <td className="nowrap">{formatDateTime(lang, p.at)}</td>
                  <td data-type={p.type} title={p.type}>
                    {eventTypeText(lang, p.type)}
                  </td>
                  <td className="num">{p.amount_cents === null ? '—' : formatMoney(lang, p.amount_cents)}</td>
                  <td>
                    <code>{p.sale_id}</code>{' '}
                    {p.sale_requested_at !== null && (
                      <span className="muted">{t('report.saleRungUp', { at: formatDateTime(lang, p.sale_requested_at), by: p.sale_requested_by ?? '—' })}</span>
                    )}{' '}
                    {p.sale_shift_id === null ? (
                      <span className="muted">{t('report.saleNoShift')}</span>
                    ) : (
                      p.sale_shift_id !== shown && (
                        <button type="button" className="secondary no-print" onClick={() => select({ kind: 'shift', shiftId: p.sale_shift_id as string })}>
                          {t('report.showSaleShift')}
                        </button>
                      )
                    )}
                  </td>
                  <td>{p.by ?? '—'}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
    </section>
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
  const page = useShift((s) => s.shiftPage);
  const cursors = useShift((s) => s.shiftCursors);
  const selected = useShift((s) => (s.selection.kind === 'shift' ? s.selection.shiftId : null));
  const select = useShift((s) => s.select);
  const olderShifts = useShift((s) => s.olderShifts);
  const newerShifts = useShift((s) => s.newerShifts);
  const shifts = page?.shifts ?? [];
  return (
    <>
      <p className="help">{t('history.page', { page: cursors.length + 1 })}</p>
      <div className="table-wrap">
        <table className="report-table" aria-label={t('history.shifts')}>
          <thead>
            <tr>
              <th scope="col">{t('history.col.opened')}</th>
              <th scope="col">{t('history.col.openedBy')}</th>
              <th scope="col">{t('history.col.closed')}</th>
              <th scope="col">{t('history.col.closedBy')}</th>
              <th scope="col">{t('history.col.note')}</th>
              <th scope="col">{t('report.count')}</th>
              <th scope="col">{t('report.received')}</th>
              <th scope="col">{t('report.net')}</th>
              <th scope="col">{t('report.col.details')}</th>
            </tr>
          </thead>
          <tbody>
            {shifts.length === 0 ? (
              <tr>
                <td colSpan={9} className="muted">
                  {t('history.noShifts')}
                </td>
              </tr>
            ) : (
              shifts.map((s) => (
                <tr key={s.shift_id} data-shift-id={s.shift_id} aria-current={s.shift_id === selected ? 'true' : undefined}>
                  <td className="nowrap">{formatDateTime(lang, s.opened_at)}</td>
                  <td>{s.opened_by}</td>
                  <td className="nowrap">{s.closed_at === null ? <span className="muted">{t('history.stillOpen')}</span> : formatDateTime(lang, s.closed_at)}</td>
                  <td>{s.closed_by ?? '—'}</td>
                  <td>{[s.note, s.close_note].filter((n) => n !== null).join(' / ') || '—'}</td>
                  <td className="num">{formatCount(lang, s.totals.count)}</td>
                  <td className="num">{formatMoney(lang, s.totals.received_cents)}</td>
                  <td className="num">{formatMoney(lang, s.totals.net_cents)}</td>
                  <td>
                    <button
                      type="button"
                      className="secondary"
                      aria-label={t('history.showShift', { by: s.opened_by, at: formatDateTime(lang, s.opened_at) })}
                      onClick={() => select(s.closed_at === null ? { kind: 'current' } : { kind: 'shift', shiftId: s.shift_id })}
                    >
                      {t('history.show')}
                    </button>
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      <Pager newer={cursors.length > 0} older={page?.older != null} onNewer={newerShifts} onOlder={olderShifts} />
    </>
  );
}

function DayList() {
  const t = useText();
  const lang = useLang();
  const page = useShift((s) => s.dayPage);
  const selected = useShift((s) => (s.selection.kind === 'day' ? s.selection.day : null));
  const select = useShift((s) => s.select);
  const olderDays = useShift((s) => s.olderDays);
  const newerDays = useShift((s) => s.newerDays);
  return (
    <>
      <p className="help">{t('history.daysHelp', { zone: screenTimeZone() })}</p>
      <div className="table-wrap">
        <table className="report-table" aria-label={t('history.days')}>
          <thead>
            <tr>
              <th scope="col">{t('history.col.day')}</th>
              <th scope="col">{t('report.count')}</th>
              <th scope="col">{t('report.paid')}</th>
              <th scope="col">{t('report.received')}</th>
              <th scope="col">{t('report.net')}</th>
              <th scope="col">{t('report.col.details')}</th>
            </tr>
          </thead>
          <tbody>
            {(page?.days ?? []).map((d) => (
              <tr key={d.day} data-day={d.day} data-count={d.totals.count} aria-current={d.day === selected ? 'true' : undefined}>
                <td className="nowrap">{formatDay(lang, d.day)}</td>
                <td className="num">{d.totals.count === 0 ? <span className="muted">{t('history.noSales')}</span> : formatCount(lang, d.totals.count)}</td>
                <td className="num">{formatCount(lang, d.totals.paid)}</td>
                <td className="num">{formatMoney(lang, d.totals.received_cents)}</td>
                <td className="num">{formatMoney(lang, d.totals.net_cents)}</td>
                <td>
                  <button type="button" className="secondary" aria-label={t('history.showDay', { day: formatDay(lang, d.day) })} onClick={() => select({ kind: 'day', day: d.day })}>
                    {t('history.show')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
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
    <section className="card report-card no-print" aria-labelledby="history-heading">
      <h2 id="history-heading">{t('history.heading')}</h2>
      <div className="report-actions" role="group" aria-label={t('history.heading')}>
        {(['shifts', 'days'] as const).map((v) => (
          <button key={v} type="button" className={view === v ? undefined : 'secondary'} aria-pressed={view === v} onClick={() => setHistoryView(v)}>
            {t(v === 'shifts' ? 'history.shifts' : 'history.days')}
          </button>
        ))}
      </div>
      {view === 'shifts' ? <ShiftList /> : <DayList />}
    </section>
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
      {verify?.acknowledgedBreaks?.map((b) => (
        <p key={b.restart.hash} className="warn" data-testid="integrity-acknowledged">
          <Icon name="alert" />{' '}
          {t('report.verifyAcknowledged', { seq: b.broken.seq, segment: b.broken.segment, line: b.broken.line, by: b.restart.by, restart: b.restart.seq })}
        </p>
      ))}
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
        <p className="error" role="alert">
          <Icon name="cross" /> {errorText(lang, error)}
        </p>
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
        <button type="button" className="secondary" onClick={() => void loadReport()}>
          {t('report.refresh')}
        </button>
      </div>

      <section className="card report-card" aria-labelledby="sales-heading">
        <h2 id="sales-heading">{t(day ? 'report.salesOfDay' : 'report.sales')}</h2>
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

      {report && shift?.closed_at != null && (
        <CarriedPayments id="after-close" heading="report.afterClose" help="report.afterCloseHelp" total="report.afterCloseTotal" items={report.after_close} cents={report.after_close_cents} refundsCents={report.after_close_refunds_cents} />
      )}
      {report && (shift || day) && (
        <CarriedPayments id="carried" heading="report.carried" help="report.carriedHelp" total="report.carriedTotal" items={report.carried} cents={report.carried_cents} refundsCents={report.carried_refunds_cents} />
      )}

      <UnmatchedPayments />

      <section className="card report-card" aria-labelledby="events-heading">
        <h2 id="events-heading">{t('report.events')}</h2>
        <EventsTable events={report?.events ?? []} />
      </section>

      <Integrity />
    </div>
  );
}
