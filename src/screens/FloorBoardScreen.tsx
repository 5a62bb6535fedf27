import { useEffect, useRef, useState } from 'react';
import type { BoardCharge, BoardCheckout, BoardDisplacement, FloorBoard, Lang, SaleSummary } from '../../electron/core/contract.ts';
import { Card } from '../components/Card.tsx';
import { Countdown } from '../components/Countdown.tsx';
import { DataTable, type Column } from '../components/DataTable.tsx';
import { StatusWord } from '../components/StatusWord.tsx';
import { getBridge, toUiError } from '../lib/bridge.ts';
import { errorText } from '../lib/errorText.ts';
import { boardStores, filterBoard, type BoardFilter } from '../lib/floorBoard.ts';
import { formatMoney } from '../lib/format.ts';
import { formatTime } from '../lib/i18n.ts';
import { attentionSentence } from '../lib/messages.ts';
import { useLang, useText } from '../lib/useText.ts';

/** The board as it arrived, with the local time it arrived at (the countdowns run from it). */
type Received = { board: FloorBoard; receivedAt: number };

/**
 * The floor board (issue 29), for supervisors and managers: every checkout of every store,
 * live — what its printed QR charges right now, its last outcome, what waits for a person and
 * the day's corrections. The core pushes the board while this screen is open (board.changed)
 * and stops when it closes (board.leave); the day is this screen's time zone's.
 */
export function FloorBoardScreen() {
  const t = useText();
  const lang = useLang();
  const [received, setReceived] = useState<Received | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState<BoardFilter>({ storeId: null, needsPerson: false });
  // The board is opened once per visit; a change of language only re-words it.
  const langNow = useRef(lang);
  langNow.current = lang;

  useEffect(() => {
    const bridge = getBridge();
    const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    let live = true;
    const take = (board: FloorBoard) => {
      if (live && board.time_zone === timeZone) setReceived({ board, receivedAt: performance.now() });
    };
    const off = bridge.listen('board.changed', take);
    bridge.call('board.view', { timeZone }).then(take, (err: unknown) => live && setError(errorText(langNow.current, toUiError(err))));
    return () => {
      live = false;
      off();
      void bridge.call('board.leave').catch(() => undefined);
    };
  }, []);

  const stores = received ? boardStores(received.board) : [];
  const shown = received ? filterBoard(received.board.checkouts, filter) : [];
  return (
    <div className="floor-board" data-testid="floor-board">
      <Card id="board" heading={t('board.heading')}>
        <p className="muted">{t('board.intro')}</p>
        <div className="board-filters">
          <label>
            {t('board.store')}{' '}
            <select data-testid="board-store" value={filter.storeId ?? ''} onChange={(e) => setFilter({ ...filter, storeId: e.target.value === '' ? null : Number(e.target.value) })}>
              <option value="">{t('board.allStores')}</option>
              {stores.map((s) => (
                <option key={s.store_id} value={s.store_id}>
                  {s.store_name ?? t('board.storeNumber', { store: s.store_id })}
                </option>
              ))}
            </select>
          </label>
          <label>
            <input type="checkbox" data-testid="board-needs-person" checked={filter.needsPerson} onChange={(e) => setFilter({ ...filter, needsPerson: e.target.checked })} /> {t('board.needsPersonOnly')}
          </label>
        </div>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {!received && !error && <p className="muted">{t('board.loading')}</p>}
        {received && shown.length === 0 && <p className="muted" data-testid="board-empty">{t('board.none')}</p>}
      </Card>
      <div className="board-grid">
        {received && shown.map((c) => <CheckoutCard key={`${c.store_id}/${c.checkout_id}`} checkout={c} now={received.board.now} receivedAt={received.receivedAt} />)}
      </div>
    </div>
  );
}

function CheckoutCard({ checkout: c, now, receivedAt }: { checkout: BoardCheckout; now: number; receivedAt: number }) {
  const t = useText();
  const lang = useLang();
  const id = `board-${c.store_id}-${c.checkout_id}`;
  const store = c.store_name ?? t('board.storeNumber', { store: c.store_id });
  const name = c.checkout_desc ? t('board.checkoutNamed', { checkout: c.checkout_id, desc: c.checkout_desc }) : t('board.checkoutNumber', { checkout: c.checkout_id });
  const tills = [...(c.store_computer ? [t('board.storeComputer')] : []), ...c.tills];
  return (
    <section className={`card board-checkout${c.held || c.attention.length > 0 ? ' board-needs-person' : ''}`} aria-labelledby={`${id}-heading`} data-testid="board-checkout" data-store={c.store_id} data-checkout={c.checkout_id}>
      <h2 id={`${id}-heading`}>
        {name} <span className="muted board-store">· {store}</span>
      </h2>
      <p className="muted board-tills">{tills.length > 0 ? t('board.tills', { tills: tills.join(', ') }) : t('board.noTill')}</p>
      <ChargeNow charge={c.charge} held={c.held} now={now} receivedAt={receivedAt} />
      <h3>{t('board.last')}</h3>
      {c.last ? (
        <p className="board-last" data-testid="board-last" data-status={c.last.status}>
          <StatusWord status={c.last.status} /> {saleName(lang, c.last)}
        </p>
      ) : (
        <p className="muted">{t('board.noLast')}</p>
      )}
      <h3>{t('board.attention')}</h3>
      {c.attention.length === 0 ? (
        <p className="muted">{t('board.noAttention')}</p>
      ) : (
        <ul className="board-attention" data-testid="board-attention">
          {c.attention.map((s) => (
            <li key={s.sale_id} data-status={s.status}>
              <StatusWord status={s.status} /> {saleName(lang, s)}
              {s.description.attention.map((a) => (
                <span key={`${a.reason}/${a.subject}`} className="board-attention-why">
                  {' '}
                  {attentionSentence(lang, a)}
                </span>
              ))}
            </li>
          ))}
        </ul>
      )}
      <Displacements rows={c.displacements} id={id} />
    </section>
  );
}

/** A sale in people's words: when it was rung up, its amount and its reference. */
function saleName(lang: Lang, s: Pick<SaleSummary, 'requested_at' | 'amount_cents' | 'external_id'>): string {
  return [formatTime(lang, s.requested_at), formatMoney(lang, s.amount_cents), s.external_id].filter((x) => x).join(' · ');
}

function ChargeNow({ charge, held, now, receivedAt }: { charge: BoardCharge | null; held: boolean; now: number; receivedAt: number }) {
  const t = useText();
  const lang = useLang();
  if (charge === null) {
    return (
      <div className="board-charge" data-testid="board-charge" data-state="none">
        <p>{t('board.chargesNothing')}</p>
      </div>
    );
  }
  const note = charge.state === 'held' ? 'board.heldNote' : charge.state === 'expiring' ? 'board.expiringNote' : charge.state === 'creating' ? 'board.creatingNote' : charge.state === 'uncertain' ? 'board.uncertainNote' : null;
  return (
    <div className="board-charge" data-testid="board-charge" data-state={charge.state}>
      <p className="board-charge-label">{t('board.chargesNow')}</p>
      <p className="board-charge-amount" data-testid="board-charge-amount">
        {formatMoney(lang, charge.amount_cents)}
      </p>
      <p className="muted">
        {t('board.since', { time: formatTime(lang, charge.since), name: charge.requested_by })}
        {charge.external_id && <> · {t('board.reference', { reference: charge.external_id })}</>}
      </p>
      {charge.state === 'qr' && charge.expires_at !== null && <Countdown expiresAt={charge.expires_at} coreNow={now} receivedAt={receivedAt} />}
      {note && <p className={held ? 'board-held' : 'muted'}>{t(note)}</p>}
    </div>
  );
}

function Displacements({ rows, id }: { rows: readonly BoardDisplacement[]; id: string }) {
  const t = useText();
  const lang = useLang();
  const columns: Column<BoardDisplacement>[] = [
    { header: t('board.col.when'), cell: (d) => formatTime(lang, d.at), className: 'nowrap' },
    { header: t('board.col.amount'), cell: (d) => formatMoney(lang, d.amount_cents), className: 'num' },
    { header: t('board.col.corrected'), cell: (d) => (d.corrected_cents === null ? t('board.correctedUnknown') : formatMoney(lang, d.corrected_cents)), className: 'num' },
    { header: t('board.col.by'), cell: (d) => d.by ?? t('board.byUnknown') },
    { header: t('board.col.now'), cell: (d) => <StatusWord status={d.status} /> },
  ];
  return (
    <>
      <h3 id={`${id}-corrections`}>{t('board.displacements')}</h3>
      <DataTable
        labelledBy={`${id}-corrections`}
        className="board-displacements"
        columns={columns}
        rows={rows}
        rowKey={(d) => d.sale_id}
        rowAttributes={(d) => ({ 'data-testid': 'board-displacement', 'data-status': d.status })}
        empty={t('board.noDisplacements')}
      />
    </>
  );
}
