/**
 * What the UI says about a sale, as message keys and parameters. The core never formats:
 * money travels as integer cents, time as epoch ms, and the renderer turns a key and its
 * params into the cashier's language ("R$ 10,00").
 */
import { activeDisplacements, refundsMadeCents } from './lifecycle.ts';
import type { Attention, Sale, SaleStatus } from './lifecycle.ts';

export type MessageParams = Readonly<Record<string, string | number | boolean | null>>;

export type SaleMessageKey =
  | 'sale.requested'
  | 'sale.pending'
  | 'sale.expiring'
  | 'sale.paid'
  | 'sale.amount_mismatch'
  | 'sale.expired'
  | 'sale.displaced'
  | 'sale.withdrawn'
  | 'sale.paid_late'
  | 'sale.paid_late.newer_open'
  | 'sale.paid_late.newer_paid'
  | 'sale.paid_late.newer_unknown'
  | 'sale.paid_withdrawn'
  | 'sale.refunded'
  | 'sale.uncertain'
  | 'sale.failed'
  | 'sale.partly_refunded';

export type AttentionMessageKey =
  | 'attention.amount_mismatch'
  | 'attention.paid_late'
  | 'attention.paid_withdrawn'
  | 'attention.paid_after_expiry'
  | 'attention.extra_payment'
  | 'attention.displaced_unknown'
  | 'attention.conflict'
  | 'attention.refund_not_confirmed';

export type Tone = 'info' | 'success' | 'warning' | 'danger';

export interface AttentionMessage extends Attention {
  readonly key: AttentionMessageKey;
  readonly params: MessageParams;
}

export interface SaleDescription {
  readonly key: SaleMessageKey;
  readonly params: MessageParams;
  readonly tone: Tone;
  /** True while something still needs a person's acknowledgement. */
  readonly needs_person: boolean;
  /** One item per open attention reason; the UI acknowledges each by reason and subject. */
  readonly attention: readonly AttentionMessage[];
  readonly acknowledged: readonly { readonly reason: Attention['reason']; readonly subject: string; readonly by: string; readonly at: number }[];
}

/** Sales still open to payment at the service: a newer one in these states must not be collected twice. */
const OPEN: readonly SaleStatus[] = ['requested', 'pending', 'uncertain'];
/** Sales the customer paid: a newer one in these states means the customer has paid twice. */
const PAID: readonly SaleStatus[] = ['paid', 'amount_mismatch', 'paid_late', 'partly_refunded'];

/**
 * What a late payment's messages say about the sales of its correction chain: the sale that
 * displaced it, the sale that displaced that one, and so on (issue 24 point 7). Only these
 * are the same customer's sale corrected; a sale rung up after the chain ended belongs to
 * another customer, and its payment says nothing about this one.
 */
interface NewerSales {
  /** The sale that displaced this one, if `checkoutSales` has it. */
  readonly newer: Sale | undefined;
  /** A sale of the chain still open: "do not collect twice". */
  readonly newerOpen: boolean;
  /** Known, not supposed: the app says the customer paid twice instead of "if". */
  readonly newerPaid: boolean;
  /** Whether the whole chain is known here: "was not paid" is said only when it is known. */
  readonly newerKnown: boolean;
}

/**
 * The next sale of a sale's correction chain, by id: the sale that displaced it. `undefined`
 * when the chain ends here: the sale was not displaced (paid, expired, still open), or it was
 * withdrawn, so the cashier had told its customer not to pay it and the sale rung up next
 * (which displaces it at the service, reference 3.1) is the next customer's. `null` when
 * Tx Status alone says it was displaced (contract 3: TX not found): by a sale we do not know.
 */
export function correctionSuccessor(sale: Sale): string | null | undefined {
  if (sale.withdrawn !== undefined) return undefined;
  return sale.displaced_by;
}

/**
 * The sales of `sale`'s correction chain that `sales` holds, oldest first, and whether that is
 * the whole chain (every link found up to its end).
 */
export function correctionChain(sale: Sale, sales: Iterable<Sale>): { readonly chain: readonly Sale[]; readonly complete: boolean } {
  const byId = new Map<string, Sale>();
  for (const s of sales) byId.set(s.sale_id, s);
  const chain: Sale[] = [];
  const seen = new Set([sale.sale_id]);
  let next = correctionSuccessor(sale);
  while (next !== undefined) {
    const found = next === null || seen.has(next) ? undefined : byId.get(next);
    if (found === undefined) return { chain, complete: false };
    chain.push(found);
    seen.add(found.sale_id);
    next = correctionSuccessor(found);
  }
  return { chain, complete: true };
}

function newerSales(sale: Sale, checkoutSales: Iterable<Sale>): NewerSales {
  const { chain, complete } = correctionChain(sale, checkoutSales);
  return {
    newer: chain[0],
    // After two corrections the sale that displaced this one is itself displaced, but the
    // chain's newest is still open: any open sale of the chain means "do not collect twice".
    newerOpen: chain.some((s) => OPEN.includes(s.status)),
    newerPaid: chain.some((s) => PAID.includes(s.status)),
    newerKnown: complete,
  };
}

/**
 * Describes a sale for the UI. `checkoutSales` (sales of its checkout, its correction chain
 * among them) lets the message about a late payment say whether a newer sale of that chain is
 * still open or was paid; it is read only for such a message, and `onContext` is called when it is, so that a description that did not read it
 * can be kept as long as the sale itself does not change (views.ts).
 */
export function describeSale(sale: Sale, checkoutSales: Iterable<Sale> = [], onContext: () => void = () => undefined): SaleDescription {
  let around: NewerSales | undefined;
  const context = (): NewerSales => {
    if (around === undefined) {
      onContext();
      around = newerSales(sale, checkoutSales);
    }
    return around;
  };
  const { key, params, tone } = statusMessage(sale, context);

  const attention = sale.attention.map((a) => attentionMessage(sale, a, context));
  return {
    key,
    params,
    tone: attention.length > 0 && tone !== 'danger' ? 'warning' : tone,
    needs_person: attention.length > 0,
    attention,
    acknowledged: sale.acknowledgements.map((a) => ({ reason: a.reason, subject: a.subject, by: a.by, at: a.at })),
  };
}

/** What the sale's status says, before what needs a person is added. */
function statusMessage(sale: Sale, context: () => NewerSales): { key: SaleMessageKey; params: MessageParams; tone: Tone } {
  const paid = sale.paid;
  const received = paid?.received_cents ?? null;
  switch (sale.status) {
    case 'requested':
      return { key: 'sale.requested', tone: 'info', params: { amount_cents: sale.amount_cents } };
    case 'pending':
      // Issue 24: the next sale was charged past its expiry; it waits for its last Tx Status read.
      return { key: sale.expiries.some((e) => e.source === 'newer_sale') ? 'sale.expiring' : 'sale.pending', tone: 'info', params: { amount_cents: sale.amount_cents, expires_at: sale.created?.expires_at ?? null } };
    case 'paid':
      return { key: 'sale.paid', tone: 'success', params: { amount_cents: sale.amount_cents, received_cents: received, paid_at: paid?.paid_at ?? null } };
    case 'amount_mismatch':
      return {
        key: 'sale.amount_mismatch',
        tone: 'danger',
        // The raw text matters when it could not be read at all.
        params: { expected_cents: sale.amount_cents, received_cents: received, amount_brl: paid ? String(paid.amount_brl) : null, direction: paid?.amount_check ?? 'invalid' },
      };
    case 'expired':
      return { key: 'sale.expired', tone: 'warning', params: { amount_cents: sale.amount_cents, expires_at: sale.created?.expires_at ?? null } };
    case 'displaced':
      return {
        key: 'sale.displaced',
        tone: 'info',
        // A displacement the service confirmed (201 of the newer sale, or TX not found) cannot be undone.
        params: { amount_cents: sale.amount_cents, newer_sale_id: sale.displaced_by ?? null, confirmed: activeDisplacements(sale).some((d) => d.evidence !== 'newer_sale_requested') },
      };
    case 'withdrawn':
      return { key: 'sale.withdrawn', tone: 'info', params: { amount_cents: sale.amount_cents, by: sale.withdrawn?.by ?? null, withdrawn_at: sale.withdrawn?.at ?? null, expires_at: sale.created?.expires_at ?? null } };
    case 'paid_late': {
      // Reference 4.5 rule 5: the customer paid the displaced sale; if the newer sale is still
      // open, collecting it too would charge the customer twice. A sale withdrawn before it
      // was displaced is a payment on a withdrawn sale: what displaced it is another customer's.
      const displaced = activeDisplacements(sale).length > 0 && sale.withdrawn === undefined;
      const { newer, newerOpen, newerPaid, newerKnown } = context();
      const key = !displaced
        ? 'sale.paid_withdrawn'
        : newerPaid
          ? 'sale.paid_late.newer_paid'
          : newerOpen
            ? 'sale.paid_late.newer_open'
            : newerKnown
              ? 'sale.paid_late'
              : 'sale.paid_late.newer_unknown';
      const params = {
        expected_cents: sale.amount_cents,
        received_cents: received,
        amount_matches: paid?.amount_check === 'equal',
        newer_sale_id: sale.displaced_by ?? null,
        newer_amount_cents: newer?.amount_cents ?? null,
        newer_status: newer?.status ?? null,
      };
      return { key, tone: 'danger', params };
    }
    case 'refunded':
      // Tx Status `refunded` (contract 3): paid once, and the money went back to the payer.
      return { key: 'sale.refunded', tone: 'info', params: { amount_cents: sale.amount_cents, received_cents: received, paid_at: paid?.paid_at ?? null } };
    case 'partly_refunded': {
      // Contract 5: part of the payment went back to the payer through a refund.
      const refunded = refundsMadeCents(sale);
      return { key: 'sale.partly_refunded', tone: 'info', params: { amount_cents: sale.amount_cents, received_cents: received, refunded_cents: refunded, kept_cents: received === null ? null : Math.max(0, received - refunded) } };
    }
    case 'uncertain':
      return { key: 'sale.uncertain', tone: 'warning', params: { amount_cents: sale.amount_cents, reason: sale.uncertain?.reason ?? null } };
    case 'failed':
      return { key: 'sale.failed', tone: 'danger', params: { amount_cents: sale.amount_cents, status: sale.create_error?.status ?? null, code: sale.create_error?.code ?? null } };
  }
}

function attentionMessage(sale: Sale, a: Attention, context: () => NewerSales): AttentionMessage {
  const paid = sale.paid;
  switch (a.reason) {
    case 'amount_mismatch':
      return {
        ...a,
        key: 'attention.amount_mismatch',
        params: { expected_cents: sale.amount_cents, received_cents: paid?.received_cents ?? null, direction: paid?.amount_check ?? 'invalid' },
      };
    case 'paid_late':
      // Withdrawn, then displaced by the next customer's sale: said as a payment on a withdrawn
      // sale (the reason stays, so that it is acknowledged as journaled).
      if (sale.withdrawn !== undefined) return { ...a, ...withdrawnPayment(sale, context) };
      return {
        ...a,
        key: 'attention.paid_late',
        params: {
          received_cents: paid?.received_cents ?? null,
          expected_cents: sale.amount_cents,
          amount_matches: paid?.amount_check === 'equal',
          newer_sale_id: sale.displaced_by ?? null,
          newer_open: context().newerOpen,
          newer_paid: context().newerPaid,
          newer_known: context().newerKnown,
        },
      };
    case 'paid_withdrawn':
      return { ...a, ...withdrawnPayment(sale, context) };
    case 'paid_after_expiry':
      return {
        ...a,
        key: 'attention.paid_after_expiry',
        params: { received_cents: paid?.received_cents ?? null, paid_at: paid?.paid_at ?? null, expires_at: sale.created?.expires_at ?? null },
      };
    case 'extra_payment': {
      const p = sale.payments.find((x) => x.key === a.subject);
      return {
        ...a,
        key: 'attention.extra_payment',
        params: { received_cents: p?.received_cents ?? null, paid_at: p?.paid_at ?? null, e2e_id: p?.e2e_id ?? null },
      };
    }
    case 'displaced_unknown':
      return { ...a, key: 'attention.displaced_unknown', params: { amount_cents: sale.amount_cents } };
    case 'conflict': {
      const issue = sale.issues.find((i) => `${i.code}:${i.detail}` === a.subject);
      return { ...a, key: 'attention.conflict', params: { code: issue?.code ?? null, detail: issue?.detail ?? null } };
    }
    case 'refund_not_confirmed': {
      // What a supervisor checks before answering: which charge, how much, since when, by whom.
      const r = sale.refunds?.find((x) => x.refund_id === a.subject);
      return {
        ...a,
        key: 'attention.refund_not_confirmed',
        params: {
          refund_id: a.subject,
          amount_cents: r?.amount_cents ?? null,
          service_id: sale.service_id ?? null,
          requested_by: r?.requested_by ?? null,
          requested_at: r?.key_at ?? null,
          why: r?.unconfirmed?.reason ?? null,
        },
      };
    }
  }
}

function withdrawnPayment(sale: Sale, context: () => NewerSales): Pick<AttentionMessage, 'key' | 'params'> {
  const paid = sale.paid;
  return {
    key: 'attention.paid_withdrawn',
    params: {
      received_cents: paid?.received_cents ?? null,
      expected_cents: sale.amount_cents,
      amount_matches: paid?.amount_check === 'equal',
      withdrawn_by: sale.withdrawn?.by ?? null,
      newer_open: context().newerOpen,
      newer_paid: context().newerPaid,
    },
  };
}
