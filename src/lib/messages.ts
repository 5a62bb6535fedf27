import type { AttentionMessage, EventDetails, Lang, SaleDescription, SaleStatus, SaleView } from '../../electron/core/contract.ts';
import { formatMoney, formatTime, translate, type TextKey, type TextParams } from './i18n.ts';

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
  paid_late: 'alert',
  uncertain: 'question',
  failed: 'cross',
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
      return item.params['newer_open'] === true ? 'attention.paid_late.newer_open' : 'attention.paid_late.closed';
    default:
      return item.key;
  }
}

export function saleSentence(lang: Lang, description: Pick<SaleDescription, 'key' | 'params'>): string {
  return translate(lang, saleMessageKey(description), formatParams(lang, description.params));
}

export function attentionSentence(lang: Lang, item: Pick<AttentionMessage, 'key' | 'params'>): string {
  return translate(lang, attentionMessageKey(item), formatParams(lang, item.params));
}

/** The word an attention item is headed with: it names the outcome the person deals with. */
export function attentionWordKey(item: Pick<AttentionMessage, 'reason'>): TextKey {
  switch (item.reason) {
    case 'amount_mismatch':
      return 'outcome.amount_mismatch';
    case 'paid_late':
      return 'outcome.paid_late';
    case 'paid_after_expiry':
      return 'outcome.expired';
    case 'displaced_unknown':
      return 'outcome.displaced';
    default:
      return 'attention.heading';
  }
}

/** Outcomes that sound and are announced: the four a cashier must tell apart at once. */
export type Outcome = 'paid' | 'amount_mismatch' | 'expired' | 'paid_late';
const OUTCOMES: readonly SaleStatus[] = ['paid', 'amount_mismatch', 'expired', 'paid_late'];

function statuses(view: { recent: readonly SaleView[]; attention: readonly SaleView[]; newest: SaleView | null } | null): Map<string, SaleStatus> {
  const out = new Map<string, SaleStatus>();
  if (!view) return out;
  for (const s of [...view.recent, ...view.attention, ...(view.newest ? [view.newest] : [])]) out.set(s.sale_id, s.status);
  return out;
}

/**
 * The outcomes that happened between two views of the checkout, newest first. Nothing on
 * the first view (a reload must not replay old sounds).
 */
export function outcomeChanges(
  previous: { recent: readonly SaleView[]; attention: readonly SaleView[]; newest: SaleView | null } | null,
  next: { recent: readonly SaleView[]; attention: readonly SaleView[]; newest: SaleView | null },
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
  if (d.reason !== null) parts.push(translate(lang, 'event.reason', { value: d.reason }));
  if (d.source !== null) parts.push(translate(lang, 'event.source', { value: d.source }));
  if (d.evidence !== null) parts.push(translate(lang, 'event.evidence', { value: d.evidence }));
  if (d.related > 0) parts.push(translate(lang, 'event.related', { count: d.related }));
  if (d.note !== null) parts.push(translate(lang, 'event.note', { value: d.note }));
  return parts.join(' · ');
}
