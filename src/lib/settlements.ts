import type { SettlementView } from '../../electron/core/contract.ts';
import { BRL_SCALE } from '../../electron/shared/money.ts';
import { decimalText, type Figure } from './format.ts';

/** An exact figure as the service gave it, for the CSV: `30.500000 USDt`, `1234.50 ARS` (never through a float). */
export function settlementFigure(a: Figure): string {
  return `${decimalText(a.minor, a.scale)}${a.currency ? ` ${a.currency}` : ''}`;
}

const receivedBrl = (cents: number | null) => (cents === null ? null : decimalText(cents, BRL_SCALE));

const cell = (v: string | number | null) => {
  const text = v === null ? '' : String(v);
  // A cell a spreadsheet would run as a formula is kept as text (a leading quote).
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
};

/**
 * One line per charge and per refund, with its match and sale, then the invariant lines. A
 * figure of the service carries its currency in the cell (a line's currency is the service's,
 * and differs by line); the sale's received money is the journal's, in reais, so its column
 * says so (`sale_received_brl`) and its cells are plain decimals like the shift CSV's.
 */
export function settlementCsv(view: SettlementView): string {
  const { settlement: s, result, sales } = view;
  const lines: (string | number | null)[][] = [['settlement_id', 'line', 'id', 'external_id', 'charged', 'settlement_or_deduction', 'check', 'sale_id', 'sale_received_brl']];
  s.charges.forEach((c, i) => {
    const check = result.charges[i]?.check;
    const saleId = check && 'sale_id' in check ? check.sale_id : null;
    lines.push([s.settlement_id, 'charge', c.service_id, c.external_id, settlementFigure(c.charged_amount), c.settlement_amount === null ? null : settlementFigure(c.settlement_amount), check?.kind ?? null, saleId, saleId === null ? null : receivedBrl(sales[saleId]?.received_cents ?? null)]);
  });
  s.refunds.forEach((r, i) => {
    const check = result.refunds[i]?.check;
    const saleId = check && 'sale_id' in check ? check.sale_id : null;
    lines.push([s.settlement_id, 'refund', r.service_refund_id, r.external_id, settlementFigure(r.refunded_amount), settlementFigure(r.deduction_amount), check?.kind ?? null, saleId, null]);
  });
  for (const l of result.invariants) lines.push([s.settlement_id, 'invariant', l.rule, null, l.left, l.right, l.holds ? 'holds' : 'broken', null, null]);
  // Each difference, and who acknowledged it (the person's name stands in the sale_id column's place).
  for (const d of view.differences) lines.push([s.settlement_id, 'difference', d.key, null, null, d.acknowledged?.note ?? null, d.acknowledged === null ? 'open' : 'acknowledged', d.acknowledged?.by ?? null, null]);
  lines.push([s.settlement_id, 'amount', null, null, null, settlementFigure(s.amount), view.status, null, null]);
  return lines.map((l) => l.map(cell).join(',')).join('\r\n') + '\r\n';
}

const DAY_MS = 86_400_000;
/** How many days back the Settlements list reaches when it opens. */
export const DEFAULT_RANGE_DAYS = 30;

/** A day as the range's date fields write it: the UTC day, as the list is asked for (rangeQuery). */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The range Settlements opens on: the DEFAULT_RANGE_DAYS days up to today, both included,
 * today by the core's clock (core.status's `now`), never the page's: the core's is the
 * authority, and tests move it.
 */
export function defaultSettlementRange(coreNowMs: number): { from: string; to: string } {
  return { from: utcDay(coreNowMs - DEFAULT_RANGE_DAYS * DAY_MS), to: utcDay(coreNowMs) };
}

/** What the list is asked for: from the start of the first day to the end of the last (UTC). */
export function rangeQuery(from: string, to: string): { fromMs: number; toMs: number } {
  return { fromMs: Date.parse(`${from}T00:00:00Z`), toMs: Date.parse(`${to}T00:00:00Z`) + DAY_MS };
}
