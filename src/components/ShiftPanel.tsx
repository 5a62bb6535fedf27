import { Icon } from './Icon.tsx';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { ShiftView } from '../../electron/core/contract.ts';
import { formatDateTime } from '../lib/i18n.ts';
import { useLang, useText } from '../lib/useText.ts';
import { useShift } from '../stores/shift.ts';
import { selectShift, useStatus } from '../stores/status.ts';

function ShiftFacts({ shift }: { shift: ShiftView }) {
  const t = useText();
  const lang = useLang();
  return (
    <div className="shift-facts" data-testid="shift-facts">
      <p>{t('shift.openedBy', { by: shift.opened_by, at: formatDateTime(lang, shift.opened_at) })}</p>
      {shift.note && <p className="muted">{t('shift.noteValue', { note: shift.note })}</p>}
      {shift.closed_by !== null && shift.closed_at !== null && <p>{t('shift.closedBy', { by: shift.closed_by, at: formatDateTime(lang, shift.closed_at) })}</p>}
      {shift.close_note && <p className="muted">{t('shift.noteValue', { note: shift.close_note })}</p>}
    </div>
  );
}

/** Asks before closing over a pending sale; the focus goes to the question. */
function ConfirmClose() {
  const t = useText();
  const pendingClose = useShift((s) => s.pendingClose);
  const closeShift = useShift((s) => s.closeShift);
  const cancelClose = useShift((s) => s.cancelClose);
  const busy = useShift((s) => s.busy);
  const keepRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (pendingClose) keepRef.current?.focus();
  }, [pendingClose]);
  if (!pendingClose) return null;
  return (
    <div
      className="confirm"
      role="alertdialog"
      aria-modal="false"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-body"
      onKeyDown={(e) => {
        if (e.key === 'Escape') cancelClose();
      }}
    >
      <h3 id="confirm-title">
        <Icon name="alert" /> {t('shift.confirmTitle')}
      </h3>
      <p id="confirm-body">{t('shift.confirmBody', { count: pendingClose.pending })}</p>
      <div className="actions">
        <button type="button" className="secondary" ref={keepRef} onClick={cancelClose}>
          {t('shift.confirmNo')}
        </button>
        <button type="button" className="danger" disabled={busy} onClick={() => void closeShift(pendingClose.note, true)}>
          {t('shift.confirmYes')}
        </button>
      </div>
    </div>
  );
}

/** Open a shift (with an opening note) or close the open one (closing note), as the supervisor signed in. */
export function ShiftPanel() {
  const t = useText();
  const current = useStatus(selectShift);
  const reported = useShift((s) => s.report?.shift ?? null);
  const busy = useShift((s) => s.busy);
  const openShift = useShift((s) => s.openShift);
  const closeShift = useShift((s) => s.closeShift);
  const pendingClose = useShift((s) => s.pendingClose);
  const [note, setNote] = useState('');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const ok = current ? await closeShift(note) : await openShift(note);
    if (ok) setNote('');
  };

  const lastClosed = !current && reported && reported.closed_at !== null ? reported : null;
  return (
    <section className="card shift-card" aria-labelledby="shift-heading">
      <h2 id="shift-heading">
        {t('shift.heading')}:{' '}
        <span className={current ? 'shift-open' : 'shift-closed'} data-testid="shift-state">
          <Icon name={current ? 'dot' : 'ring'} /> {current ? t('shift.isOpen') : lastClosed ? t('shift.isClosed') : t('shift.none')}
        </span>
      </h2>
      {current && <ShiftFacts shift={current} />}
      {lastClosed && <ShiftFacts shift={lastClosed} />}
      <form className="shift-form" onSubmit={(e) => void submit(e)} noValidate>
        <h3>{current ? t('shift.close') : t('shift.openHeading')}</h3>
        <div className="field">
          <label htmlFor="shift-note">{current ? t('shift.closeNote') : t('shift.note')}</label>
          <input id="shift-note" value={note} maxLength={500} onChange={(e) => setNote(e.target.value)} />
        </div>
        <button type="submit" className={current ? 'danger' : 'primary'} disabled={busy || pendingClose !== null}>
          {current ? t('shift.close') : t('shift.open')}
        </button>
      </form>
      <ConfirmClose />
    </section>
  );
}
