import { Icon } from './Icon.tsx';
import { formatCount } from '../lib/format.ts';
import { formatTime, type TextKey } from '../lib/i18n.ts';
import { journalStopText, type IconName } from '../lib/messages.ts';
import { useLang, useText } from '../lib/useText.ts';
import { useStatus } from '../stores/status.ts';

type Health = 'good' | 'bad' | 'warn' | 'unknown';
const ICON: Record<Health, IconName> = { good: 'check', bad: 'cross', warn: 'alert', unknown: 'clock' };

function Pill({ health, text }: { health: Health; text: string }) {
  return (
    <span className={`pill pill-${health}`}>
      <Icon name={ICON[health]} /> {text}
    </span>
  );
}

/**
 * Always-visible health line: the service, how payments arrive (webhooks or the polling
 * fallback) and the journal; with a database, which core serves this till and since when it
 * took over. One live region; each state has its own word and icon, never colour alone.
 */
export function StatusBar() {
  const t = useText();
  const lang = useLang();
  const connection = useStatus((s) => s.connection);
  const status = useStatus((s) => s.status);

  if (connection !== 'open') {
    return (
      <p className="status-bar" role="status" aria-live="polite">
        <Pill health="bad" text={t(`connection.${connection}`)} />
      </p>
    );
  }
  const reachable = status?.service.reachable;
  const service: [Health, TextKey] = reachable === true ? ['good', 'status.reachable'] : reachable === false ? ['bad', 'status.unreachable'] : ['unknown', 'status.unchecked'];
  const hooks = status?.webhooks;
  const webhooks: [Health, TextKey] | null = !hooks
    ? null
    : hooks.url === null
      ? ['warn', 'status.webhooks.off']
      : hooks.mode === 'webhooks'
        ? ['good', 'status.webhooks.arriving']
        : hooks.mode === 'polling'
          ? ['warn', 'status.webhooks.polling']
          : ['good', 'status.webhooks.ready'];
  const journal = status?.journal;
  const journalHealth: Health = !journal ? 'unknown' : journal.state === 'healthy' ? 'good' : journal.state === 'torn-tail-repaired' ? 'warn' : 'bad';
  // Charging is stopped by the journal: say why in a sentence, not only in a pill.
  const stopped = journal ? journalStopText(lang, journal) : null;
  const lastBreak = journal?.acknowledgedBreaks.at(-1);
  return (
    <p className="status-bar" role="status" aria-live="polite">
      <Pill health={service[0]} text={t(service[1])} />
      {webhooks && <Pill health={webhooks[0]} text={t(webhooks[1])} />}
      {journal && <Pill health={journalHealth} text={t(`status.journal.${journal.state}`)} />}
      {lastBreak && journal?.state !== 'corrupt' && <Pill health="warn" text={t('status.journal.newChain', { seq: lastBreak.broken.seq })} />}
      {stopped && (
        <span className="status-sentence" data-testid="journal-stopped">
          {stopped}
        </span>
      )}
      {status && status.unmatchedPayments > 0 && <Pill health="warn" text={t('status.unmatched', { count: formatCount(lang, status.unmatchedPayments) })} />}
      {status?.serving && (
        <span className="status-serving" data-testid="serving-core">
          {t('status.serving', { core: status.serving.core, time: formatTime(lang, status.serving.since) })}
        </span>
      )}
    </p>
  );
}
