import { useEffect, useRef, useState, type FormEvent } from 'react';
import { CLAIM_DETAILS_MAX } from '../../electron/shared/form-rules.ts';
import type { BankAnswer, BankAnswerRecorded, ClaimRow, MedReason, OpenOutcome, PayoutRow } from '../../electron/core/contract.ts';
import { DataTable } from '../components/DataTable.tsx';
import { Ids } from '../components/Ids.tsx';
import { useInView } from '../components/useInView.ts';
import { Submit } from '../components/Field.tsx';
import { FormError } from '../components/FormError.tsx';
import { getBridge, toUiError } from '../lib/bridge.ts';
import { claimDetailsCount, claimFormProblems, type ClaimFormField } from '../lib/claimForm.ts';
import { CLAIM_STATUS_TEXT } from '../lib/claims.ts';
import { errorText } from '../lib/errorText.ts';
import { formatFigure, formatMoney } from '../lib/format.ts';
import type { TextKey } from '../lib/texts/en.ts';
import { useAttempt } from '../lib/useAttempt.ts';
import { useLang, useText } from '../lib/useText.ts';

const REASONS: readonly MedReason[] = ['scam', 'account_takeover', 'coercion', 'credentials_stolen', 'other_fraud', 'unknown'];
/** The core's page of pay-outs (handlers.ts PAYOUT_PAGE). */
const PAGE = 50;


const WHY_TEXT = {
  not_processed: 'claims.why.not_processed',
  date_unknown: 'claims.why.date_unknown',
  outside_window: 'claims.why.outside_window',
  claimed: 'claims.why.claimed',
  unconfirmed: 'claims.why.unconfirmed',
} as const satisfies Record<string, TextKey>;

/** What the claim form starts with: a pay-out to claim, or a rejected claim to send again. */
interface Draft {
  serviceId: string;
  medCaseId: string | null;
  reason: MedReason | '';
  details: string;
  reference: string;
}

/**
 * The claims desk (issue 12), for supervisors and managers: the pay-outs and whether each
 * can be claimed, the claim form with its one confirmation, and every claim followed (the
 * service's tracked ones and the operator-handled ones only this journal knows). The core
 * holds every rule: the screen shows what it answers.
 */
export function ClaimsScreen() {
  const t = useText();
  const lang = useLang();
  const [view, setView] = useState<'payouts' | 'claims'>('payouts');
  const [payouts, setPayouts] = useState<PayoutRow[] | null>(null);
  const [claims, setClaims] = useState<ClaimRow[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string; warning?: string } | null>(null);
  const [offset, setOffset] = useState(0);
  /** The pay-out whose unconfirmed claim request a supervisor is recording the bank's answer for. */
  const [answering, setAnswering] = useState<string | null>(null);
  const load = async (refresh = false, from = offset) => {
    try {
      const [p, c] = await Promise.all([getBridge().call('claims.payouts', { offset: from }), getBridge().call(refresh ? 'claims.refresh' : 'claims.list')]);
      setPayouts(p);
      setClaims(c);
      setOffset(from);
      setLoadError(null);
    } catch (err) {
      setLoadError(errorText(lang, toUiError(err)));
    }
  };
  useEffect(() => {
    void load();
  }, []);

  const opened = (o: OpenOutcome) => {
    setDraft(null);
    setOutcome(
      o.handling === 'tracked'
        ? { ok: true, text: t('claims.opened', { id: o.med_case_id }), ...(o.warning ? { warning: o.warning } : {}) }
        : { ok: true, text: t('claims.handled', { message: o.message }) },
    );
    void load(true);
  };

  const answered = (a: BankAnswerRecorded) => {
    setAnswering(null);
    setOutcome({
      ok: true,
      text: a.answer === 'exists' ? t('claims.answerRecorded.exists', { id: a.med_case_id ?? '', payout: a.service_id }) : t('claims.answerRecorded.not_registered', { payout: a.service_id }),
    });
    void load(true);
  };

  return (
    <section className="card claims" aria-labelledby="claims-heading">
      <div className="row">
        <h2 id="claims-heading">{t('claims.heading')}</h2>
        <div role="group" aria-label={t('claims.views')} className="row">
          <button type="button" aria-pressed={view === 'payouts'} onClick={() => setView('payouts')}>
            {t('claims.payouts')}
          </button>
          <button type="button" aria-pressed={view === 'claims'} onClick={() => setView('claims')}>
            {t('claims.list')}
          </button>
          <button type="button" onClick={() => void load(true)}>
            {t('claims.refresh')}
          </button>
        </div>
      </div>
      {loadError && <FormError text={loadError} />}
      <div aria-live="polite">
        {outcome && (
          <p className={outcome.ok ? 'good' : 'error'} role={outcome.ok ? undefined : 'alert'} data-testid="claim-outcome">
            {outcome.text}
            {outcome.warning && (
              <>
                <br />
                <strong>{t('claims.warning')}</strong> {outcome.warning}
              </>
            )}
          </p>
        )}
      </div>
      {draft && <ClaimForm draft={draft} onCancel={() => setDraft(null)} onOpened={opened} />}
      {answering && <BankAnswerForm serviceId={answering} onCancel={() => setAnswering(null)} onRecorded={answered} />}
      {view === 'payouts' ? (
        <>
          <PayoutTable
            rows={payouts}
            onClaim={(serviceId) => {
              setAnswering(null);
              setDraft({ serviceId, medCaseId: null, reason: '', details: '', reference: '' });
            }}
            onAnswer={(serviceId) => {
              setDraft(null);
              setAnswering(serviceId);
            }}
          />
          <div className="row">
            <button type="button" disabled={offset === 0} onClick={() => void load(false, Math.max(0, offset - PAGE))}>
              {t('claims.previousPage')}
            </button>
            <button type="button" disabled={(payouts?.length ?? 0) < PAGE} onClick={() => void load(false, offset + PAGE)}>
              {t('claims.nextPage')}
            </button>
          </div>
        </>
      ) : (
        <ClaimTable
          rows={claims}
          onResubmit={(row) =>
            setDraft({
              serviceId: row.claim.service_id,
              medCaseId: row.claim.med_case_id,
              reason: (row.request?.reason as MedReason | undefined) ?? '',
              details: row.request?.details ?? '',
              reference: row.request?.external_id ?? '',
            })
          }
        />
      )}
    </section>
  );

  /** A pay-out as people name it: its date and amount (its id is under Details). */
  function payoutName(serviceId: string): string {
    const found = payouts?.find((row) => row.payout.service_id === serviceId)?.payout;
    if (!found) return t('claims.payoutElsewhere');
    const date = found.created_at === null ? t('claims.noDate') : new Date(found.created_at).toLocaleDateString(lang);
    return `${date} · ${formatFigure(lang, { ...found.amount, currency: found.currency })}`;
  }

  function PayoutTable({ rows, onClaim, onAnswer }: { rows: PayoutRow[] | null; onClaim: (serviceId: string) => void; onAnswer: (serviceId: string) => void }) {
    if (rows === null) return <p>{t('claims.loading')}</p>;
    if (rows.length === 0) return <p>{t('claims.noPayouts')}</p>;
    return (
      <DataTable
        wrap
        className="report-table"
        label={t('claims.payouts')}
        columns={[
          {
            header: t('claims.col.amount'),
            className: 'num',
            cell: ({ payout }) => formatFigure(lang, { ...payout.amount, currency: payout.currency }),
          },
          { header: t('claims.col.date'), cell: ({ payout }) => (payout.created_at === null ? t('claims.noDate') : new Date(payout.created_at).toLocaleDateString(lang)) },
          {
            header: t('claims.col.claim'),
            cell: ({ payout, claim }) =>
              claim.claimable ? (
                <>
                  {t('claims.daysLeft', { days: claim.daysLeft })}{' '}
                  <button type="button" onClick={() => onClaim(payout.service_id)}>
                    {t('claims.open')}
                  </button>
                </>
              ) : (
                <>
                  {t(WHY_TEXT[claim.why])}
                  {claim.why === 'unconfirmed' && (
                    <>
                      {' '}
                      <button type="button" onClick={() => onAnswer(payout.service_id)}>
                        {t('claims.recordAnswer')}
                      </button>
                    </>
                  )}
                </>
              ),
          },
          // The service's ids, for its support (issue 26): the pay-out reads by date and amount.
          {
            header: t('report.col.details'),
            cell: ({ payout, med_case_id }) => (
              <Ids
                ids={[
                  [t('claims.col.payout'), payout.service_id],
                  [t('report.col.reference'), payout.external_id],
                  [t('claims.col.claimId'), med_case_id],
                ]}
              />
            ),
          },
        ]}
        rows={rows}
        rowKey={({ payout }) => payout.service_id}
        rowAttributes={({ payout }) => ({ 'data-payout': payout.service_id })}
      />
    );
  }

  function ClaimTable({ rows, onResubmit }: { rows: ClaimRow[] | null; onResubmit: (row: Extract<ClaimRow, { handling: 'tracked' }>) => void }) {
    if (rows === null) return <p>{t('claims.loading')}</p>;
    if (rows.length === 0) return <p>{t('claims.none')}</p>;
    return (
      <DataTable
        wrap
        className="report-table"
        label={t('claims.list')}
        columns={[
          {
            header: t('claims.col.payout'),
            cell: (row) => {
              const serviceId = row.handling === 'manual' ? row.service_id : row.claim.service_id;
              return (
                <>
                  {payoutName(serviceId)}
                  <Ids
                    ids={[
                      [t('claims.col.payout'), serviceId],
                      [t('claims.col.claimId'), row.handling === 'manual' ? null : row.claim.med_case_id],
                    ]}
                  />
                </>
              );
            },
          },
          {
            header: t('claims.col.status'),
            cell: (row) =>
              row.handling === 'manual' ? (
                t('claims.status.manual')
              ) : (
                <>
                  {t(CLAIM_STATUS_TEXT[row.status])}
                  {row.backwards && <span className="hint"> {t('claims.backwards')}</span>}
                </>
              ),
          },
          { header: t('claims.col.days'), cell: (row) => (row.handling === 'manual' ? t('claims.byOn', { by: row.by, date: new Date(row.at).toLocaleDateString(lang) }) : t('claims.days', { days: row.days_open })) },
          {
            header: t('claims.col.result'),
            cell: (row) =>
              row.handling === 'manual' ? (
                <>
                  {row.message} {t('claims.contactSupport')}
                </>
              ) : row.status === 'closed' ? (
                row.claim.money_refunded && row.claim.refunded_cents !== null ? (
                  t('claims.moneyReturned', { amount: formatMoney(lang, row.claim.refunded_cents) })
                ) : (
                  t('claims.noMoneyReturned')
                )
              ) : row.status === 'dispatching' && row.claim.outcome_hint ? (
                row.resubmittable ? (
                  <button type="button" onClick={() => onResubmit(row)}>
                    {t('claims.resubmit')}
                  </button>
                ) : (
                  t('claims.notConfirmedYet')
                )
              ) : (
                '—'
              ),
          },
        ]}
        rows={rows}
        rowKey={(row) => (row.handling === 'manual' ? `manual-${row.service_id}-${row.at}` : row.claim.med_case_id)}
        rowAttributes={(row) => (row.handling === 'manual' ? { 'data-status': 'manual' } : { 'data-status': row.status, 'data-claim': row.claim.med_case_id })}
      />
    );
  }

  /**
   * What the bank (or support) said of a claim request the service could not confirm: the app
   * never sends it again by itself, so a supervisor asks and records the answer here. The core
   * checks a typed claim id with the service before following it.
   */
  function BankAnswerForm({ serviceId, onCancel, onRecorded }: { serviceId: string; onCancel: () => void; onRecorded: (a: BankAnswerRecorded) => void }) {
    const answerForm = useRef<HTMLFormElement>(null);
    useInView(answerForm);
    const [answer, setAnswer] = useState<BankAnswer | ''>('');
    const [medCaseId, setMedCaseId] = useState('');
    const { busy, error, attempt } = useAttempt();
    const submit = async (e: FormEvent) => {
      e.preventDefault();
      if (answer === '') return;
      await attempt(async () => onRecorded(await getBridge().call('claims.recordBankAnswer', { serviceId, answer, ...(answer === 'exists' ? { medCaseId } : {}) })));
    };
    return (
      <form ref={answerForm} className="card claim-form" aria-labelledby="bank-answer-heading" onSubmit={(e) => void submit(e)}>
        <h3 id="bank-answer-heading">{t('claims.bankAnswerHeading', { payout: payoutName(serviceId) })}</h3>
        <p className="hint">{t('claims.bankAnswerNote')}</p>
        <fieldset>
          <legend>{t('claims.bankSaid')}</legend>
          {(['not_registered', 'exists'] as const).map((a) => (
            <label key={a} className="choice">
              <input type="radio" name="bank-answer" value={a} checked={answer === a} onChange={() => setAnswer(a)} disabled={busy} /> {t(`claims.answer.${a}`)}
            </label>
          ))}
        </fieldset>
        {answer === 'exists' && (
          <label>
            {t('claims.claimId')}
            <input value={medCaseId} maxLength={100} onChange={(e) => setMedCaseId(e.target.value)} disabled={busy} autoComplete="off" spellCheck={false} />
          </label>
        )}
        <FormError text={error && errorText(lang, error)} />
        <div className="row">
          <Submit disabled={busy || answer === ''}>{t('claims.saveAnswer')}</Submit>
          <button type="button" onClick={onCancel} disabled={busy}>
            {t('claims.cancel')}
          </button>
        </div>
      </form>
    );
  }

  function ClaimForm({ draft: start, onCancel, onOpened }: { draft: Draft; onCancel: () => void; onOpened: (o: OpenOutcome) => void }) {
    const claimForm = useRef<HTMLFormElement>(null);
    useInView(claimForm);
    const [reason, setReason] = useState<MedReason | ''>(start.reason);
    const [details, setDetails] = useState(start.details);
    const [reference, setReference] = useState(start.reference);
    const [confirming, setConfirming] = useState(false);
    /** Whether Submit was pressed: from then on each field says what is wrong with it as it is typed. */
    const [checked, setChecked] = useState(false);
    const { busy, error, attempt } = useAttempt();
    const problems = checked ? claimFormProblems({ reason, details, reference }) : {};
    // The core's refusal names its field too (the bridge's path or the rule's field).
    const refusedField = error?.params?.['field'];
    const invalid = (field: ClaimFormField, coreName: string) => problems[field] !== undefined || refusedField === coreName || undefined;
    const fieldError = (field: ClaimFormField) => {
      const key = problems[field];
      return (
        <p id={`claim-${field}-error`} className="error" role={key ? 'alert' : undefined}>
          {key && t(key)}
        </p>
      );
    };
    const submit = (e: FormEvent) => {
      e.preventDefault();
      setChecked(true);
      const found = claimFormProblems({ reason, details, reference });
      const first = (['reason', 'details', 'reference'] as const).find((f) => found[f] !== undefined);
      if (first !== undefined) {
        document.getElementById(`claim-${first}`)?.focus();
        return;
      }
      setConfirming(true);
    };
    const confirm = async () => {
      const args = { serviceId: start.serviceId, reason, details, ...(reference.trim() === '' ? {} : { externalId: reference }) };
      const sent = await attempt(async () => onOpened(start.medCaseId === null ? await getBridge().call('claims.open', args) : await getBridge().call('claims.resubmit', { ...args, medCaseId: start.medCaseId })));
      if (!sent) setConfirming(false);
    };
    return (
      <form ref={claimForm} className="card claim-form" aria-labelledby="claim-form-heading" onSubmit={submit} noValidate>
        <h3 id="claim-form-heading">{t(start.medCaseId === null ? 'claims.formHeading' : 'claims.resubmitHeading', { payout: payoutName(start.serviceId) })}</h3>
        <label>
          {t('claims.reason')}
          <select
            id="claim-reason"
            value={reason}
            required
            onChange={(e) => setReason(e.target.value as MedReason)}
            disabled={confirming}
            aria-invalid={invalid('reason', 'reason')}
            aria-describedby="claim-reason-error"
          >
            <option value="">{t('claims.chooseReason')}</option>
            {REASONS.map((r) => (
              <option key={r} value={r}>
                {t(`claims.reason.${r}` as TextKey)}
              </option>
            ))}
          </select>
        </label>
        {fieldError('reason')}
        <label>
          {t('claims.details')}
          <textarea
            id="claim-details"
            value={details}
            rows={5}
            // Never cut (a pasted text that is too long is said so beside the field, not trimmed).
            onChange={(e) => setDetails(e.target.value)}
            disabled={confirming}
            aria-invalid={invalid('details', 'details')}
            aria-describedby="claim-details-error claim-details-note"
          />
        </label>
        {fieldError('details')}
        <p id="claim-details-note" className="hint">
          <span data-testid="details-count">{t('claims.count', { count: claimDetailsCount(details), max: CLAIM_DETAILS_MAX })}</span> {t('claims.detailsNote')}
        </p>
        <label>
          {t('claims.reference')}
          <input
            id="claim-reference"
            value={reference}
            onChange={(e) => setReference(e.target.value)}
            disabled={confirming}
            aria-invalid={invalid('reference', 'externalId')}
            aria-describedby="claim-reference-error"
          />
        </label>
        {fieldError('reference')}
        {error && <FormError text={errorText(lang, error)} />}
        {confirming ? (
          <div role="alertdialog" aria-labelledby="claim-confirm-text" className="confirm">
            <p id="claim-confirm-text">{t('claims.confirmText')}</p>
            <button type="button" className="primary" onClick={() => void confirm()} disabled={busy}>
              {t('claims.confirm')}
            </button>{' '}
            <button type="button" onClick={() => setConfirming(false)} disabled={busy}>
              {t('claims.back')}
            </button>
          </div>
        ) : (
          <div className="row">
            <Submit>{t('claims.submit')}</Submit>
            <button type="button" onClick={onCancel}>
              {t('claims.cancel')}
            </button>
          </div>
        )}
      </form>
    );
  }
}
