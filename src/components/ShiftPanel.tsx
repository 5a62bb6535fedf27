import { Confirm } from './Confirm.tsx';
import { Field } from './Field.tsx';
import { Icon } from './Icon.tsx';
import { useState, type FormEvent } from 'react';
import type { ShiftView } from '../../electron/core/contract.ts';
import { formatCount } from '../lib/format.ts';
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
  const lang = useLang();
  const pendingClose = useShift((s) => s.pendingClose);
  const closeShift = useShift((s) => s.closeShift);
  const cancelClose = useShift((s) => s.cancelClose);
  const busy = useShift((s) => s.busy);
  if (!pendingClose) return null;
  return (
    <Confirm
      id="confirm"
      title={t('shift.confirmTitle')}
      body={t('shift.confirmBody', { count: formatCount(lang, pendingClose.pending) })}
      keep={t('shift.confirmNo')}
      go={t('shift.confirmYes')}
      busy={busy}
      onKeep={cancelClose}
      onGo={() => void closeShift(pendingClose.note, true)}
    />
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
        <Field id="shift-note" label={current ? t('shift.closeNote') : t('shift.note')}>
          <input id="shift-note" value={note} maxLength={500} onChange={(e) => setNote(e.target.value)} />
        </Field>
        <button type="submit" className={current ? 'danger' : 'primary'} disabled={busy || pendingClose !== null}>
          {current ? t('shift.close') : t('shift.open')}
        </button>
      </form>
      <ConfirmClose />
    </section>
  );
}
