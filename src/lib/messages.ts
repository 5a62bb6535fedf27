import type { AttentionMessage, CoreStatus, EventDetails, Lang, SaleDescription, SaleMessageKey, SaleStatus, SaleSummary, ScreenView } from '../../electron/core/contract.ts';
import { formatMoney } from './format.ts';
import { dictionary, formatTime, translate, type TextKey, type TextParams } from './i18n.ts';

/**
 * Turns the core's message keys and params into the cashier's words. The core decides what
 * happened (key, params, tone, needs_person); this module only chooses the sentence, the
 * icon and the word for it, so no state is ever decided in the renderer.
 */

type Params = SaleDescription['params'];

export type IconName = 'check' | 'cross' | 'clock' | 'hourglass' | 'not-equal' | 'alert' | 'replace' | 'question' | 'dot' | 'ring';

/** Every status has its own word, icon and colour class: never colour alone. */
export const STATUS_ICON: Record<SaleStatus, IconName> = {
  requested: 'clock',
  pending: 'clock',
  paid: 'check',
  amount_mismatch: 'not-equal',
  expired: 'hourglass',
  displaced: 'replace',
  withdrawn: 'cross',
  paid_late: 'alert',
  refunded: 'dot',
  uncertain: 'question',
  failed: 'cross',
  partly_refunded: 'dot',
};

export function statusWordKey(status: SaleStatus): TextKey {
  return `outcome.${status}`;
}

/**
 * Params as text: `*_cents` as money, `*_at` as a time, null as a dash. Everything else
 * passes through (ids, codes).
 */
export function formatParams(lang: Lang, params: Params): TextParams {
  const out: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(params)) {
    if (value === null || value === undefined) out[name] = '—';
    else if (typeof value === 'number' && name.endsWith('_cents')) out[name] = formatMoney(lang, value);
    else if (typeof value === 'number' && name.endsWith('_at')) out[name] = formatTime(lang, value);
    else if (typeof value === 'boolean') out[name] = value ? 'yes' : 'no';
    else out[name] = value;
  }
  return out;
}

function direction(params: Params): 'over' | 'under' | 'invalid' {
  const d = params['direction'];
  return d === 'over' || d === 'under' ? d : 'invalid';
}

/** The sentence key for a sale's description, with its variant chosen from the params. */
export function saleMessageKey(description: Pick<SaleDescription, 'key' | 'params'>): TextKey {
  switch (description.key) {
    case 'sale.amount_mismatch':
      return `msg.sale.amount_mismatch.${direction(description.params)}`;
    default:
      return `msg.${description.key}`;
  }
}

/** The sentence key for one attention item: what the person should do. */
export function attentionMessageKey(item: Pick<AttentionMessage, 'key' | 'params'>): TextKey {
  switch (item.key) {
    case 'attention.amount_mismatch':
      return `attention.amount_mismatch.${direction(item.params)}`;
    case 'attention.paid_late':
      if (item.params['newer_paid'] === true) return 'attention.paid_late.newer_paid';
      if (item.params['newer_open'] === true) return 'attention.paid_late.newer_open';
      // "Was not paid" only when the app knows the newer sale; otherwise it says "if".
      return item.params['newer_known'] === false ? 'attention.paid_late.newer_unknown' : 'attention.paid_late.closed';
    case 'attention.conflict':
      return 'attention.conflict.issue';
    default:
      return item.key;
  }
}

/**
 * A contradiction's code (SaleIssueCode) in words: the screen never shows `payment_ids_differ`.
 * A code this version does not know gets the general sentence, never the code itself.
 */
export function issueText(lang: Lang, code: unknown): string {
  const key = typeof code === 'string' ? codeKey(`issue.${code}`) : null;
  return translate(lang, key ?? 'issue.unknown');
}

/** Why a payment matched no sale (UnmatchedReason), in words. */
export function unmatchedReasonText(lang: Lang, reason: string): string {
  const key = codeKey(`unmatched.reason.${reason}`);
  return translate(lang, key ?? 'unmatched.reason.other');
}

export function saleSentence(lang: Lang, description: Pick<SaleDescription, 'key' | 'params'>): string {
  return translate(lang, saleMessageKey(description), formatParams(lang, description.params));
}

/**
 * The sentence for the sale the screen is about, in the state the screen shows. The core
 * may show a sale settled before its status follows (a pending sale whose time is over is
 * shown Expired; the expiry is journaled a minute later): the sentence then follows the
 * screen, never "waiting for payment" next to "Expired".
 */
export function screenSentence(lang: Lang, sale: SaleSummary, status: SaleStatus): string {
  if (sale.status === status) return saleSentence(lang, sale.description);
  const params: Params = {
    amount_cents: sale.amount_cents,
    expected_cents: sale.amount_cents,
    received_cents: sale.received_cents,
    expires_at: sale.expires_at,
    paid_at: sale.paid_at,
  };
  return saleSentence(lang, { key: `sale.${status}` satisfies SaleMessageKey, params });
}

export function attentionSentence(lang: Lang, item: Pick<AttentionMessage, 'key' | 'params'>): string {
  const params = formatParams(lang, item.params);
  if (item.key !== 'attention.conflict') return translate(lang, attentionMessageKey(item), params);
  return translate(lang, attentionMessageKey(item), { ...params, issue: issueText(lang, item.params['code']) });
}

/** The word an attention item is headed with: it names the outcome the person deals with. */
export function attentionWordKey(item: Pick<AttentionMessage, 'reason'>): TextKey {
  switch (item.reason) {
    case 'amount_mismatch':
      return 'outcome.amount_mismatch';
    case 'paid_late':
      return 'outcome.paid_late';
    case 'paid_withdrawn':
      return 'outcome.withdrawn';
    case 'paid_after_expiry':
      return 'outcome.expired';
    case 'displaced_unknown':
      return 'outcome.displaced';
    case 'refund_not_confirmed':
      return 'outcome.refund_not_confirmed';
    default:
      return 'attention.heading';
  }
}

/** Outcomes that sound and are announced: the four a cashier must tell apart at once. */
export type Outcome = 'paid' | 'amount_mismatch' | 'expired' | 'paid_late';
const OUTCOMES: readonly SaleStatus[] = ['paid', 'amount_mismatch', 'expired', 'paid_late'];

function statuses(view: { recent: readonly SaleSummary[]; attention: readonly SaleSummary[]; newest: SaleSummary | null } | null): Map<string, SaleStatus> {
  const out = new Map<string, SaleStatus>();
  if (!view) return out;
  for (const s of [...view.recent, ...view.attention, ...(view.newest ? [view.newest] : [])]) out.set(s.sale_id, s.status);
  return out;
}

/** The outcome the screen shows, if it shows one (a settled sale). */
export function screenOutcome(screen: ScreenView): { sale_id: string; outcome: Outcome } | null {
  if (screen.kind !== 'settled' || !OUTCOMES.includes(screen.status)) return null;
  return { sale_id: screen.sale_id, outcome: screen.status as Outcome };
}

/**
 * The outcomes that happened between two views of the checkout, newest first. Nothing on
 * the first view (a reload must not replay old sounds).
 */
export function outcomeChanges(
  previous: { recent: readonly SaleSummary[]; attention: readonly SaleSummary[]; newest: SaleSummary | null } | null,
  next: { recent: readonly SaleSummary[]; attention: readonly SaleSummary[]; newest: SaleSummary | null },
): { sale_id: string; outcome: Outcome }[] {
  if (!previous) return [];
  const before = statuses(previous);
  const out: { sale_id: string; outcome: Outcome }[] = [];
  for (const [saleId, status] of statuses(next)) {
    if (before.get(saleId) === status || !OUTCOMES.includes(status)) continue;
    out.push({ sale_id: saleId, outcome: status as Outcome });
  }
  return out;
}

/**
 * A journal event's details in the cashier's language: labels translated, amounts as money,
 * ids and journaled codes as they are.
 */
export function eventDetailsText(lang: Lang, d: EventDetails): string {
  const parts: string[] = [];
  if (d.amount_cents !== null) parts.push(translate(lang, 'event.amount', { amount: formatMoney(lang, d.amount_cents) }));
  if (d.pix_id !== null) parts.push(`pix_id ${d.pix_id}`);
  if (d.external_id !== null) parts.push(translate(lang, 'event.reference', { value: d.external_id }));
  if (d.reason !== null) parts.push(translate(lang, 'event.reason', { value: codeText(lang, 'reason', d.reason) }));
  if (d.source !== null) parts.push(translate(lang, 'event.source', { value: codeText(lang, 'source', d.source) }));
  if (d.evidence !== null) parts.push(translate(lang, 'event.evidence', { value: codeText(lang, 'evidence', d.evidence) }));
  if (d.settlement_id !== null) parts.push(translate(lang, 'event.settlement', { id: d.settlement_id }));
  if (d.related > 0) parts.push(translate(lang, 'event.related', { count: d.related }));
  if (d.note !== null) parts.push(translate(lang, 'event.note', { value: d.note }));
  return parts.join(' · ');
}

/** A text key made from a journaled code, if the dictionary has it. */
function codeKey(key: string): TextKey | null {
  return Object.hasOwn(dictionary('en'), key) ? (key as TextKey) : null;
}

/** A journal entry's type in words ("Payment received"); an unknown type shows as journaled. */
export function eventTypeText(lang: Lang, type: string): string {
  const key = codeKey(`event.type.${type}`);
  return key ? translate(lang, key) : type;
}

/**
 * A journaled code in words: an attention or uncertainty reason, a payment or expiry source,
 * a displacement's evidence. A code this version does not know shows as journaled.
 */
export function codeText(lang: Lang, kind: 'reason' | 'source' | 'evidence', code: string): string {
  const key = codeKey(`code.${kind}.${code}`);
  return key ? translate(lang, key) : code;
}

/**
 * Why the journal's integrity check stopped at an entry, in words. The core says it in an
 * English phrase (electron/core/journal/log.ts); the known phrases are recognised here, and
 * anything else is shown as it came, inside a translated sentence.
 */
const BROKEN_REASONS: readonly [RegExp, TextKey, (m: RegExpExecArray) => TextParams][] = [
  [/^expected seq (\d+), found (\S+)$/, 'journal.broken.seq_gap', (m) => ({ expected: m[1] ?? '', found: m[2] ?? '' })],
  [/^prev does not match the hash of the entry before it$/, 'journal.broken.prev_mismatch', () => ({})],
  [/^hash does not match the content$/, 'journal.broken.hash_mismatch', () => ({})],
  [/^last line is unterminated \(torn write\)$/, 'journal.broken.torn', () => ({})],
  [/^unterminated line before the end of the journal$/, 'journal.broken.unterminated', () => ({})],
  [/^segment is (\d+) bytes, but (\d+) were committed to it$/, 'journal.broken.size_mismatch', (m) => ({ size: m[1] ?? '', committed: m[2] ?? '' })],
  [/^the journal ends at seq (\d+), but (\d+) entries were committed$/, 'journal.broken.truncated', (m) => ({ last: m[1] ?? '', committed: m[2] ?? '' })],
  [
    /^(not valid JSON|not a JSON object|seq is not an integer|(prev|hash) is not a sha256 hex digest|at is not a number|type is not a non-empty string|data is not an object|unexpected fields|data cannot be hashed: .*)$/,
    'journal.broken.malformed',
    () => ({}),
  ],
];

export function brokenReasonText(lang: Lang, reason: string): string {
  for (const [pattern, key, params] of BROKEN_REASONS) {
    const m = pattern.exec(reason);
    if (m) return translate(lang, key, params(m));
  }
  return translate(lang, 'journal.broken.other', { reason });
}

/**
 * The journal's problem as the status carries it: a broken entry (the core's
 * "entry N (segment, line L) is broken: reason"), or a failure whose details are in the log.
 */
export function journalProblemText(lang: Lang, journal: Pick<CoreStatus['journal'], 'state' | 'problem'>): string | null {
  if (journal.problem === null) return null;
  const broken = /^entry (\d+) \((.+), line (\d+)\) is broken: (.*)$/s.exec(journal.problem);
  if (broken) {
    const [, seq = '', segment = '', line = '', reason = ''] = broken;
    return translate(lang, 'status.journal.problemBroken', { seq, segment, line, reason: brokenReasonText(lang, reason) });
  }
  return translate(lang, 'status.journal.problemFailed');
}

/**
 * Why charging is stopped by the journal, as one sentence for the status bar: the broken
 * entry (seq, file, line, what is wrong), or the failed write and that it heals by itself.
 * Null while the journal takes writes.
 */
export function journalStopText(lang: Lang, journal: Pick<CoreStatus['journal'], 'state' | 'broken' | 'failureProblem'>): string | null {
  if (journal.state === 'corrupt' && journal.broken) {
    const b = journal.broken;
    return translate(lang, 'status.journal.stopped.journal_broken', { seq: b.seq, segment: b.segment, line: b.line, reason: brokenReasonText(lang, b.reason) });
  }
  if (journal.state !== 'failed') return null;
  const key = codeKey(`status.journal.stopped.${journal.failureProblem ?? ''}`);
  return translate(lang, key ?? 'status.journal.stopped.journal_write_failed');
}
