import { useState, type FormEvent } from 'react';
import type { CoreStatus } from '../../electron/core/contract.ts';
import { getBridge } from '../lib/bridge.ts';
import { errorText } from '../lib/errorText.ts';
import { formatDateTime } from '../lib/i18n.ts';
import { brokenReasonText } from '../lib/messages.ts';
import { useAttempt } from '../lib/useAttempt.ts';
import { useLang, useText } from '../lib/useText.ts';
import { useAuth } from '../stores/auth.ts';
import { useStatus } from '../stores/status.ts';
import { Confirm } from './Confirm.tsx';
import { ErrorAlert } from './FormError.tsx';
import { Icon } from './Icon.tsx';

type JournalHealth = CoreStatus['journal'];

/**
 * A damaged journal must not close the shop: while the chain is broken the panel names the
 * broken entry and lets a manager start a new chain (behind a confirmation that says what it
 * does); every break acknowledged that way stays listed for ever.
 */
export function JournalRepair({ journal }: { journal: JournalHealth }) {
  if (journal.state !== 'corrupt' && journal.acknowledgedBreaks.length === 0) return null;
  return (
    <>
      {journal.state === 'corrupt' && journal.broken && <BrokenJournal journal={journal} broken={journal.broken} />}
      {journal.acknowledgedBreaks.length > 0 && <AcknowledgedBreaks journal={journal} />}
    </>
  );
}

function BrokenJournal({ journal, broken }: { journal: JournalHealth; broken: NonNullable<JournalHealth['broken']> }) {
  const t = useText();
  const lang = useLang();
  // The new chain is signed by the manager signed in on this window (the core takes it from the session).
  const by = useAuth((s) => s.auth?.operator?.name ?? '');
  const isManager = useAuth((s) => s.auth?.operator?.role === 'manager');
  const [asking, setAsking] = useState(false);
  const { busy, error, attempt } = useAttempt();

  const ask = (e: FormEvent) => {
    e.preventDefault();
    setAsking(true);
  };
  const start = () =>
    attempt(async () => {
      useStatus.setState({ status: await getBridge().call('journal.startNewChain') });
      setAsking(false);
    });
  const good = journal.entries;
  return (
    <section className="card journal-repair no-print" aria-labelledby="repair-heading" data-testid="journal-repair">
      <h2 id="repair-heading">
        <Icon name="cross" /> {t('repair.heading')}
      </h2>
      <p data-testid="journal-broken-entry">{t('repair.broken', { seq: broken.seq, segment: broken.segment, line: broken.line, reason: brokenReasonText(lang, broken.reason) })}</p>
      <p className="help">{t('repair.explain', { good })}</p>
      {isManager && (
        <form className="ack-form" onSubmit={ask}>
          <button type="submit" className="danger" disabled={busy || asking}>
            {t('repair.start')}
          </button>
        </form>
      )}
      {asking && (
        <Confirm
          id="repair-confirm"
          title={t('repair.confirmTitle')}
          body={t('repair.confirmBody', { good, seq: broken.seq, by })}
          keep={t('repair.confirmNo')}
          go={t('repair.confirmYes')}
          busy={busy}
          onKeep={() => setAsking(false)}
          onGo={() => void start()}
        />
      )}
      {error && <ErrorAlert>{errorText(lang, error)}</ErrorAlert>}
    </section>
  );
}

function AcknowledgedBreaks({ journal }: { journal: JournalHealth }) {
  const t = useText();
  const lang = useLang();
  return (
    <section className="card journal-breaks" aria-labelledby="breaks-heading" data-testid="journal-breaks">
      <h2 id="breaks-heading">
        <Icon name="alert" /> {t('repair.history')}
      </h2>
      <ul>
        {journal.acknowledgedBreaks.map((b) => (
          <li key={b.restart.hash}>
            {t('repair.acknowledged', {
              seq: b.broken.seq,
              segment: b.broken.segment,
              line: b.broken.line,
              reason: brokenReasonText(lang, b.broken.reason),
              by: b.restart.by,
              at: formatDateTime(lang, b.restart.at),
              restart: b.restart.seq,
              lines: b.untrusted.lines,
            })}
          </li>
        ))}
      </ul>
    </section>
  );
}
