import type { Lang } from '../../shared/lang.ts';
import { formatCents } from '../../shared/money.ts';
import type { RefundFact, Sale } from '../sales/sale.ts';
import type { ShiftTotals, ShiftView } from '../terminal/shift-report.ts';

/**
 * What a receipt says, decided from the journal's record of a sale (or of one of its refunds),
 * the store, the till and the operator: pure, no clock (every time is the sale's own), no I/O.
 * `receiptMarkup` writes it in the printer's description language (render.ts prints or draws it).
 */

export interface ReceiptStore {
  store_id: number;
  /** The service's store name; null when the service could not be asked (the id is printed instead). */
  name: string | null;
  address: string | null;
}

export interface ReceiptTill {
  store_id: number;
  checkout_id: number;
}

export type ReceiptKind = 'sale' | 'refund' | 'test' | 'shift';

export interface Receipt {
  kind: ReceiptKind;
  /** The store's name, or "Store N" when the service could not say it. */
  heading: string;
  address: string | null;
  title: string;
  /** Label and value, in print order. */
  rows: readonly (readonly [label: string, value: string])[];
  /** The amount line, printed large: label and money. */
  total: readonly [label: string, value: string] | null;
}

interface Words {
  store: string;
  sale: string;
  refund: string;
  test: string;
  date: string;
  amount: string;
  refunded: string;
  saleAmount: string;
  e2e: string;
  reference: string;
  till: string;
  operator: string;
  refundId: string;
  none: string;
  testLine: string;
  shiftReport: string;
  shift: string;
  opened: string;
  closed: string;
  stillOpen: string;
  sales: string;
  paid: string;
  received: string;
  net: string;
  mismatches: string;
  late: string;
  expired: string;
  withdrawn: string;
  unmatched: string;
  printedBy: string;
}

/** The receipt's words in the store's language (the customer's paper, not the cashier's screen). */
const WORDS: Record<Lang, Words> = {
  'pt-BR': {
    store: 'Loja',
    sale: 'Comprovante de pagamento Pix',
    refund: 'Comprovante de devolução Pix',
    test: 'Página de teste da impressora',
    date: 'Data',
    amount: 'Valor',
    refunded: 'Devolvido',
    saleAmount: 'Valor da venda',
    e2e: 'ID fim a fim',
    reference: 'Referência',
    till: 'Caixa',
    operator: 'Operador',
    refundId: 'ID da devolução',
    none: '—',
    testLine: 'A impressora deste caixa funciona.',
    shiftReport: 'Relatório de fim de turno',
    shift: 'Turno',
    opened: 'Aberto',
    closed: 'Fechado',
    stillOpen: 'ainda aberto',
    sales: 'Vendas',
    paid: 'Pagas',
    received: 'Recebido',
    net: 'Líquido',
    mismatches: 'Valor divergente',
    late: 'Pagamentos atrasados',
    expired: 'Expiradas',
    withdrawn: 'Retiradas',
    unmatched: 'Pagamentos sem venda',
    printedBy: 'Impresso por',
  },
  en: {
    store: 'Store',
    sale: 'Pix payment receipt',
    refund: 'Pix refund receipt',
    test: 'Printer test page',
    date: 'Date',
    amount: 'Amount',
    refunded: 'Refunded',
    saleAmount: 'Sale amount',
    e2e: 'End-to-end id',
    reference: 'Reference',
    till: 'Till',
    operator: 'Operator',
    refundId: 'Refund id',
    none: '—',
    testLine: 'This till’s printer works.',
    shiftReport: 'End-of-shift report',
    shift: 'Shift',
    opened: 'Opened',
    closed: 'Closed',
    stillOpen: 'still open',
    sales: 'Sales',
    paid: 'Paid',
    received: 'Received',
    net: 'Net',
    mismatches: 'Amount mismatches',
    late: 'Late payments',
    expired: 'Expired',
    withdrawn: 'Withdrawn',
    unmatched: 'Payments without a sale',
    printedBy: 'Printed by',
  },
  es: {
    store: 'Tienda',
    sale: 'Comprobante de pago Pix',
    refund: 'Comprobante de devolución Pix',
    test: 'Página de prueba de la impresora',
    date: 'Fecha',
    amount: 'Importe',
    refunded: 'Devuelto',
    saleAmount: 'Importe de la venta',
    e2e: 'ID de extremo a extremo',
    reference: 'Referencia',
    till: 'Caja',
    operator: 'Operador',
    refundId: 'ID de la devolución',
    none: '—',
    testLine: 'La impresora de esta caja funciona.',
    shiftReport: 'Informe de fin de turno',
    shift: 'Turno',
    opened: 'Abierto',
    closed: 'Cerrado',
    stillOpen: 'aún abierto',
    sales: 'Ventas',
    paid: 'Pagadas',
    received: 'Recibido',
    net: 'Neto',
    mismatches: 'Importe distinto',
    late: 'Pagos tardíos',
    expired: 'Vencidas',
    withdrawn: 'Retiradas',
    unmatched: 'Pagos sin venta',
    printedBy: 'Impreso por',
  },
};

/** Money on paper: integer cents through the one formatter, with the language's decimal mark. */
export function receiptMoney(lang: Lang, cents: number): string {
  const text = formatCents(cents);
  return `R$ ${lang === 'en' ? text : text.replace('.', ',')}`;
}

/**
 * A time on paper, in the language and the till's time zone. Intl's narrow and no-break
 * spaces become plain ones: a thermal printer's code page has no such characters.
 */
export function receiptTime(lang: Lang, timeZone: string, at: number): string {
  const text = new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'medium', timeZone }).format(new Date(at));
  return text.replace(/[\u00a0\u202f]/g, ' ');
}

export interface ReceiptContext {
  lang: Lang;
  timeZone: string;
  store: ReceiptStore;
  till: ReceiptTill;
}

function heading(words: Words, store: ReceiptStore): string {
  return store.name?.trim() ? store.name : `${words.store} ${store.store_id}`;
}

/** The checkout's number: the store it belongs to heads the receipt. */
function tillText(till: ReceiptTill): string {
  return String(till.checkout_id);
}

export type ReceiptRefusal = 'not_paid' | 'refund_not_made' | 'refund_not_found';

export type Built = { ok: true; receipt: Receipt } | { ok: false; refusal: ReceiptRefusal };

/**
 * The customer's receipt of a paid sale: what was received (in integer cents), when it was
 * paid (the payment's own time, else when the journal first saw it), the payment's
 * end-to-end id, the reference, the till the sale was rung up on and who rang it up.
 */
export function saleReceipt(sale: Sale, ctx: ReceiptContext): Built {
  const paid = sale.paid;
  if (paid === undefined || paid.received_cents === null) return { ok: false, refusal: 'not_paid' };
  const words = WORDS[ctx.lang];
  const payment = sale.payments.find((p) => p.key === paid.payment_key);
  const at = paid.paid_at ?? payment?.first_seen_at ?? sale.requested_at;
  return {
    ok: true,
    receipt: {
      kind: 'sale',
      heading: heading(words, ctx.store),
      address: ctx.store.address,
      title: words.sale,
      rows: [
        [words.date, receiptTime(ctx.lang, ctx.timeZone, at)],
        [words.e2e, paid.e2e_id ?? words.none],
        [words.reference, sale.external_id ?? words.none],
        [words.till, tillText(ctx.till)],
        [words.operator, sale.requested_by],
      ],
      total: [words.amount, receiptMoney(ctx.lang, paid.received_cents)],
    },
  };
}

/**
 * The receipt of one refund the service made (never of one asked for and not confirmed):
 * the amount given back, when, the sale's payment it gives back from, and the supervisor
 * who asked for it.
 */
export function refundReceipt(sale: Sale, refundId: string, ctx: ReceiptContext): Built {
  const refund: RefundFact | undefined = sale.refunds?.find((r) => r.refund_id === refundId);
  if (refund === undefined) return { ok: false, refusal: 'refund_not_found' };
  if (refund.state !== 'made' || refund.made === undefined) return { ok: false, refusal: 'refund_not_made' };
  const words = WORDS[ctx.lang];
  return {
    ok: true,
    receipt: {
      kind: 'refund',
      heading: heading(words, ctx.store),
      address: ctx.store.address,
      title: words.refund,
      rows: [
        [words.date, receiptTime(ctx.lang, ctx.timeZone, refund.made.at)],
        [words.saleAmount, sale.paid?.received_cents == null ? words.none : receiptMoney(ctx.lang, sale.paid.received_cents)],
        [words.e2e, sale.paid?.e2e_id ?? words.none],
        [words.reference, sale.external_id ?? words.none],
        [words.refundId, refund.made.service_refund_id ?? refund.refund_id],
        [words.till, tillText(ctx.till)],
        [words.operator, refund.requested_by],
      ],
      total: [words.refunded, receiptMoney(ctx.lang, refund.made.refunded_cents)],
    },
  };
}

/** A manager's test page for a till's printer: the store, the till, who asked and when. */
export function testPage(ctx: ReceiptContext & { operator: string; at: number }): Receipt {
  const words = WORDS[ctx.lang];
  return {
    kind: 'test',
    heading: heading(words, ctx.store),
    address: ctx.store.address,
    title: words.test,
    rows: [
      [words.date, receiptTime(ctx.lang, ctx.timeZone, ctx.at)],
      [words.till, tillText(ctx.till)],
      [words.operator, ctx.operator],
      ['', words.testLine],
    ],
    total: null,
  };
}

/**
 * The end-of-shift report on the till's paper: the shift (who opened and closed it, when),
 * its totals as the Shift journal shows them (Received, Refunded, Net, apart), who printed it
 * and when. The money lines are integer cents, each figure what it says, none netted silently.
 */
export function shiftReceipt(input: { shift: ShiftView; totals: ShiftTotals; operator: string; at: number }, ctx: ReceiptContext): Receipt {
  const words = WORDS[ctx.lang];
  const { shift, totals } = input;
  const time = (at: number) => receiptTime(ctx.lang, ctx.timeZone, at);
  const money = (cents: number) => receiptMoney(ctx.lang, cents);
  return {
    kind: 'shift',
    heading: heading(words, ctx.store),
    address: ctx.store.address,
    title: words.shiftReport,
    rows: [
      [words.shift, shift.shift_id],
      [words.opened, `${time(shift.opened_at)}`],
      [words.operator, shift.opened_by],
      [words.closed, shift.closed_at === null ? words.stillOpen : time(shift.closed_at)],
      ...(shift.closed_by === null ? [] : [[words.operator, shift.closed_by] as const]),
      [words.sales, String(totals.count)],
      [words.paid, String(totals.paid)],
      [words.mismatches, String(totals.mismatches)],
      [words.late, String(totals.late_payments)],
      [words.expired, String(totals.expired)],
      [words.withdrawn, String(totals.withdrawn)],
      [words.unmatched, `${totals.unmatched_count} (${money(totals.unmatched_cents)})`],
      [words.received, money(totals.received_cents)],
      [words.refunded, money(totals.refunded_cents)],
      [words.till, tillText(ctx.till)],
      [words.printedBy, input.operator],
      [words.date, time(input.at)],
    ],
    total: [words.net, money(totals.net_cents)],
  };
}

/**
 * Text as the description language reads it literally: its markup characters escaped, and
 * control characters (a line break in a store's address) as spaces, so nothing a person typed
 * can start a column, a rule, a cut or a barcode.
 */
export function literal(text: string): string {
  return text.replace(/\p{Cc}+/gu, ' ').replace(/[\\|{}\-=~_"`^]/g, (c) => `\\${c}`);
}

/** Characters a line of 80 mm paper holds (render.ts prints with it). */
export const PAPER_COLUMNS = 48;

/**
 * The receipt in the description language: centred store heading, the title, label | value
 * rows, the amount in double width; the printer cuts after it.
 */
export function receiptMarkup(receipt: Receipt): string {
  const lines = [`^^"${literal(receipt.heading)}"`];
  if (receipt.address?.trim()) lines.push(literal(receipt.address));
  lines.push('-', `"${literal(receipt.title)}"`, '');
  for (const [label, value] of receipt.rows) {
    if (label === '') lines.push(literal(value));
    // Two columns share the line half and half: a longer value (an end-to-end id is 32
    // characters) goes under its label on a line of its own, rather than broken in two.
    else if (Math.max(label.length, value.length) > PAPER_COLUMNS / 2 - 1) lines.push(`${literal(label)} |`, `| ${literal(value)}`);
    else lines.push(`${literal(label)} | ${literal(value)}`);
  }
  if (receipt.total) {
    lines.push('-', `^"${literal(receipt.total[0])}" | ^"${literal(receipt.total[1])}"`);
  }
  // The paper cut (GS V) is the renderer's, once, after the last line (render.ts `cutting`).
  lines.push('');
  return lines.join('\n') + '\n';
}
