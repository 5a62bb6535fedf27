/**
 * The fault campaign's verdict: the journal (read with the app's own journal module) held
 * against the sandbox's own record of every sale and payment (`GET /_sandbox/sales`). The
 * sandbox pays a sale at most once (a second payment of the same sale is refused), so a
 * payment is identified by its sale: `pix_id`, `service_id`, and its `e2e_id`.
 *
 * What the journal "counts" as a payment is what the app counts as money received:
 * every payment a sale holds (`sale.payments`); a sale known paid only by its
 * `charge.done` counts that one; a payment no sale took (the terminal's
 * `unmatchedPayments()`) counts apart. A journal record stands for the sandbox payment
 * with its `e2e_id`, or, when it carries none, the one of the sale its `pix_id` (else
 * `service_id`) names.
 *
 * The four counts, each 0 when the core is right:
 * - **lost**: a payment the sandbox recorded that the journal does not hold, for the sale
 *   the sandbox credited (same `pix_id`) and for the amount paid: absent, held by another
 *   sale only, held only among the unmatched payments, or held with another amount.
 * - **doubled**: the times a payment is counted beyond once: two records of it on sales
 *   (e.g. a webhook and a Tx Status report of one payment kept as two), or a record on a
 *   sale and one more among the unmatched payments. A payment counted 3 times adds 2.
 * - **misattributed**: a payment the sandbox recorded that the journal holds on a sale
 *   other than the one the sandbox credited (whether or not the right sale holds it too).
 * - **unflagged mismatch**: a payment the journal holds for the right sale whose amount
 *   differs from the sale's, while the sale raises no flag about the amount: no
 *   `amount_mismatch` attention nor a `paid_late` one (whose alert shows expected vs
 *   received), open or acknowledged, or a paid summary that reads the amounts as equal. (A lost payment is
 *   counted as lost only.)
 * And one more that must be 0 too:
 * - **phantom**: a payment the journal counts that the sandbox never recorded (its ids
 *   name no sale the sandbox holds as paid).
 *
 * Refunds (contract 5), each 0 when the core is right, held against the sandbox's
 * `refunded_brl` of each charge:
 * - **refund doubled**: the service refunded more of a charge than the refunds the journal
 *   holds as made (a refund sent twice, or one made that the app never recorded).
 * - **refund phantom**: the journal holds more refunded than the service refunded.
 * - **refund open**: a refund still waiting (for the service's answer, or for a person) after
 *   the drain and the supervisor's answers.
 */
import { wireBrlCents } from '../shared/money.ts';
import { refundsMadeCents, type Sale } from '../core/sales/lifecycle.ts';
import type { UnmatchedPayment } from '../core/terminal/terminal.ts';
import type { ServiceSale } from '../core/terminal/fixtures/service.ts';

/** The fields of a row of `GET /_sandbox/sales` (contract 7) the audit reads: the tests' row and the payment's e2e_id. */
export interface ServiceSaleRecord extends ServiceSale {
  e2e_id: string | null;
  /** What the service refunded of the charge, every refund together. */
  refunded_brl?: string;
}

export type AuditCount = 'lost' | 'doubled' | 'misattributed' | 'unflagged_mismatch' | 'phantom' | 'refund_doubled' | 'refund_phantom' | 'refund_open';

export interface AuditFinding {
  count: AuditCount;
  pix_id: string | null;
  detail: string;
}

export interface AuditReport {
  counts: Record<AuditCount, number>;
  findings: AuditFinding[];
  /** Payments the sandbox recorded (sales it holds as paid or refunded). */
  payments: number;
  /** Of which with an amount other than the sale's. */
  mismatchedPayments: number;
  /** Of which on a displaced sale (late payments). */
  latePayments: number;
  /** Journal sales whose create is still unresolved (requested, uncertain) after the drain. */
  unresolvedSales: number;
  /** Those sales, for the report. */
  unresolved: string[];
  /** Refunds the journal holds, and how many of them a supervisor answered (It was refunded, Send again). */
  refunds: { asked: number; made: number; answeredByPerson: number };
}

interface HeldRecord {
  /** The journal sale holding it; null for an unmatched payment. */
  sale: Sale | null;
  e2e_id: string | null;
  pix_id: string | null;
  service_id: string | null;
  received_cents: number | null;
}

const cents = (brl: string | null): number | null => (brl === null ? null : wireBrlCents(brl));

/** What the journal counts as payments, one record per counting (see the module comment). */
function heldRecords(journal: readonly Sale[], unmatched: readonly UnmatchedPayment[]): HeldRecord[] {
  const records: HeldRecord[] = [];
  for (const sale of journal) {
    for (const p of sale.payments) {
      records.push({ sale, e2e_id: p.e2e_id, pix_id: p.pix_id ?? null, service_id: p.service_id ?? null, received_cents: p.received_cents });
    }
    if (sale.payments.length === 0 && sale.paid !== undefined) {
      const done = sale.dones[0];
      records.push({ sale, e2e_id: null, pix_id: done?.pix_id ?? sale.pix_id ?? null, service_id: done?.service_id ?? sale.service_id ?? null, received_cents: sale.paid.received_cents });
    }
  }
  // A charge.done kept apart stands for its payment only when that payment is not kept apart too.
  const apartIds = new Set(unmatched.filter((u) => u.kind === 'payment').flatMap((u) => [u.pix_id, u.service_id]).filter((id): id is string => id !== null));
  for (const u of unmatched) {
    if (u.kind === 'done' && ((u.pix_id !== null && apartIds.has(u.pix_id)) || (u.service_id !== null && apartIds.has(u.service_id)))) continue;
    records.push({ sale: null, e2e_id: null, pix_id: u.pix_id, service_id: u.service_id, received_cents: u.amount_cents });
  }
  return records;
}

/** True when the sale tells a person its amount differs (see "unflagged mismatch"). */
export function flagsAmount(sale: Sale): boolean {
  if (sale.paid === undefined || sale.paid.amount_check === 'equal') return false;
  // An acknowledged flag was raised all the same: a person saw it.
  return [...sale.attention, ...sale.acknowledgements].some((a) => a.reason === 'amount_mismatch' || a.reason === 'paid_late');
}

export function auditJournal(input: { service: readonly ServiceSaleRecord[]; journal: readonly Sale[]; unmatched: readonly UnmatchedPayment[] }): AuditReport {
  const counts: Record<AuditCount, number> = { lost: 0, doubled: 0, misattributed: 0, unflagged_mismatch: 0, phantom: 0, refund_doubled: 0, refund_phantom: 0, refund_open: 0 };
  const findings: AuditFinding[] = [];
  const found = (count: AuditCount, pixId: string | null, detail: string, n = 1) => {
    counts[count] += n;
    findings.push({ count, pix_id: pixId, detail });
  };

  const paidAtService = (s: ServiceSaleRecord) => s.status === 'paid' || s.status === 'refunded';
  const byPix = new Map(input.service.map((s) => [s.pix_id, s]));
  const byService = new Map(input.service.map((s) => [s.service_id, s]));
  const byE2e = new Map(input.service.filter((s) => s.e2e_id !== null).map((s) => [s.e2e_id as string, s]));
  /** The sandbox sale a journal record stands for, if the sandbox holds one. */
  const standsFor = (r: HeldRecord): ServiceSaleRecord | undefined => {
    if (r.e2e_id !== null) return byE2e.get(r.e2e_id);
    if (r.pix_id !== null) return byPix.get(r.pix_id);
    if (r.service_id !== null) return byService.get(r.service_id);
    return undefined;
  };

  const records = heldRecords(input.journal, input.unmatched);
  const recordsOf = new Map<string, HeldRecord[]>();
  for (const r of records) {
    const s = standsFor(r);
    if (s === undefined || !paidAtService(s)) {
      found('phantom', r.pix_id, `the journal counts a payment (${r.received_cents ?? '?'} cents, e2e ${r.e2e_id ?? '-'}) ${r.sale ? `on sale ${r.sale.sale_id} (${r.sale.pix_id ?? 'no pix_id'})` : 'among the unmatched'} that the sandbox ${s ? `holds ${s.status}` : 'never made'}`);
      continue;
    }
    recordsOf.set(s.pix_id, [...(recordsOf.get(s.pix_id) ?? []), r]);
  }

  const journalByPix = new Map(input.journal.filter((s) => s.pix_id !== undefined).map((s) => [s.pix_id as string, s]));
  let payments = 0;
  let mismatched = 0;
  let late = 0;
  for (const s of input.service) {
    if (!paidAtService(s)) continue;
    payments += 1;
    const expected = cents(s.amount_brl);
    const paid = cents(s.paid_amount_brl);
    if (paid !== expected) mismatched += 1;
    if (s.displaced) late += 1;
    const held = recordsOf.get(s.pix_id) ?? [];
    const right = journalByPix.get(s.pix_id);
    const onRight = held.filter((r) => r.sale !== null && r.sale === right);
    const heldRight = onRight.some((r) => r.received_cents === paid);
    const what = `${s.pix_id} (checkout ${s.checkout_id}, ${s.amount_brl} paid ${s.paid_amount_brl}${s.displaced ? ', displaced' : ''})`;
    if (!heldRight) {
      const where = held.length === 0 ? 'nowhere' : held.map((r) => (r.sale ? `sale ${r.sale.sale_id} (${r.sale.pix_id ?? 'no pix_id'}) for ${r.received_cents ?? '?'} cents` : 'among the unmatched')).join(', ');
      found('lost', s.pix_id, `${what}: the journal holds it ${where}${right ? `; its sale is ${right.status}` : '; the journal has no sale with that pix_id'}`);
    }
    const onSales = held.filter((r) => r.sale !== null).length;
    const apart = held.some((r) => r.sale === null) ? 1 : 0;
    if (onSales + apart > 1) found('doubled', s.pix_id, `${what}: counted ${onSales + apart} times (${onSales} on sales, ${apart} among the unmatched)`, onSales + apart - 1);
    const others = held.filter((r) => r.sale !== null && r.sale !== right);
    if (others.length > 0) found('misattributed', s.pix_id, `${what}: held by ${others.map((r) => `sale ${r.sale?.sale_id} (${r.sale?.pix_id ?? 'no pix_id'})`).join(', ')}`);
    if (heldRight && right && paid !== expected && !flagsAmount(right)) {
      found('unflagged_mismatch', s.pix_id, `${what}: the journal's sale is ${right.status} with attention [${right.attention.map((a) => a.reason).join(', ')}] and reads the amount ${right.paid?.amount_check ?? 'unpaid'}`);
    }
  }
  const refunds = { asked: 0, made: 0, answeredByPerson: 0 };
  for (const s of input.service) {
    const right = journalByPix.get(s.pix_id);
    const atService = cents(s.refunded_brl ?? '0.00') ?? 0;
    const inJournal = right ? refundsMadeCents(right) : 0;
    const what = `${s.pix_id} (checkout ${s.checkout_id}, ${s.amount_brl})`;
    if (atService > inJournal) found('refund_doubled', s.pix_id, `${what}: the service refunded ${atService} cents, the journal holds ${inJournal} cents as refunded`);
    if (atService < inJournal) found('refund_phantom', s.pix_id, `${what}: the journal holds ${inJournal} cents as refunded, the service refunded ${atService} cents`);
  }
  for (const sale of input.journal) {
    for (const r of sale.refunds ?? []) {
      refunds.asked += 1;
      if (r.state === 'made') refunds.made += 1;
      if (r.made?.confirmed_by !== undefined || (r.resent?.length ?? 0) > 0) refunds.answeredByPerson += 1;
      if (r.state !== 'made' && r.state !== 'refused') found('refund_open', sale.pix_id ?? null, `sale ${sale.sale_id}: refund ${r.refund_id} of ${r.amount_cents} cents is still ${r.state}`);
    }
  }
  const unresolved = input.journal.filter((s) => s.status === 'requested' || s.status === 'uncertain');
  const describe = (s: Sale) => {
    const newer = input.journal.filter((o) => o.store_id === s.store_id && o.checkout_id === s.checkout_id && o.seq > s.seq).length;
    return `sale ${s.sale_id} (checkout ${s.checkout_id}, seq ${s.seq}, ${s.amount_cents} cents) is ${s.status}${s.uncertain ? ` (${s.uncertain.reason}, ${s.uncertain.attempts} attempts)` : ''}; ${newer} newer sales on its checkout`;
  };
  return { counts, findings, payments, mismatchedPayments: mismatched, latePayments: late, unresolvedSales: unresolved.length, unresolved: unresolved.map(describe), refunds };
}
