import { readTypedAmount, TYPED_AMOUNT_PROBLEM_TEXT } from '../shared/money.ts';
import { LANGS } from './config.ts';
import type { Core } from './core.ts';
import { handler } from './bridge/handler.ts';
import { v } from './bridge/schema.ts';
import { CoreError } from './errors.ts';
import { SALE_STATUSES } from './sales/lifecycle.ts';

/**
 * Every operation the renderer may ask of the core. This map IS the bridge contract:
 * `contract.ts` derives method names, argument and result types from it, and both shells
 * register exactly these handlers. Every argument is validated here before anything runs.
 */
const id = (max = 200) => v.string({ min: 1, max, pattern: /^[\w.:-]+$/, describe: 'an identifier' });
const person = v.string({ min: 1, max: 80, pattern: /\S/, describe: 'a name of 1 to 80 characters' });
const note = v.string({ min: 1, max: 500, describe: 'a note of 1 to 500 characters' });
/** An IANA zone name like America/Sao_Paulo; the core checks that Intl knows it. */
const timeZone = v.string({ min: 1, max: 64, pattern: /^[A-Za-z][\w+\-/]*$/, describe: 'a time zone like America/Sao_Paulo' });
const localDay = v.string({ min: 10, max: 10, pattern: /^\d{4}-\d{2}-\d{2}$/, describe: 'a day like 2026-11-23' });
const checkoutArgs = { storeId: v.optional(v.int({ min: 1, max: 2_147_483_647 })), checkoutId: v.optional(v.int({ min: 1, max: 2_147_483_647 })) };

export function createHandlers(core: Core) {
  const checkoutOf = (a: { storeId?: number; checkoutId?: number }) => ({
    storeId: a.storeId ?? core.checkout.storeId,
    checkoutId: a.checkoutId ?? core.checkout.checkoutId,
  });
  return {
    'core.status': handler(v.none(), () => core.status()),
    'core.checkService': handler(v.none(), async () => {
      await core.probeService();
      return core.status();
    }),
    'settings.setLang': handler(v.object({ lang: v.literal(...LANGS) }), ({ lang }) => core.setLang(lang)),

    /** The checkout's screen: the only QR to show, recent sales, what needs a person. */
    'checkout.view': handler(v.object(checkoutArgs), (a) => core.terminal.checkoutView(checkoutOf(a))),

    /**
     * Charges an amount as typed by the cashier ("12,50" or "12.50"). On a printed checkout
     * a pending sale is displaced by this one (that is how an amount is corrected).
     */
    'sale.charge': handler(
      v.object({
        amount: v.string({ min: 1, max: 64, describe: 'an amount like 12,50' }),
        reference: v.optional(v.string({ min: 1, max: 128, pattern: /^[^\p{Cc}]+$/u, describe: 'a reference of 1 to 128 characters' })),
        by: v.optional(person),
        ...checkoutArgs,
      }),
      (a) => {
        // The one reader of what a cashier types, the one the screen previews with: it never
        // rewrites an amount ("-5", "1e3", "2.500"), it says which problem it refused.
        const typed = readTypedAmount(a.amount);
        if (!typed.ok) throw new CoreError('invalid_argument', TYPED_AMOUNT_PROBLEM_TEXT[typed.problem], { field: 'amount', problem: typed.problem });
        return core.charge({
          ...checkoutOf(a),
          amountCents: typed.cents,
          ...(a.reference === undefined ? {} : { externalId: a.reference }),
          ...(a.by === undefined ? {} : { by: a.by }),
        });
      },
    ),

    /** A person confirms they saw what needed them (an amount mismatch, a late payment...). */
    'sale.acknowledge': handler(
      v.object({
        saleId: id(),
        reason: v.literal('amount_mismatch', 'paid_late', 'paid_withdrawn', 'paid_after_expiry', 'extra_payment', 'displaced_unknown', 'conflict'),
        subject: v.string({ min: 0, max: 300 }),
        by: person,
      }),
      (a) => core.terminal.acknowledge(a),
    ),

    /**
     * Withdraws the checkout's pending sale: no QR of it is shown any more. The service has no
     * cancel, so it stays payable until it expires or is displaced; a payment then needs a person.
     */
    'sale.withdraw': handler(v.object({ saleId: id() }), ({ saleId }) => core.withdraw(saleId)),

    'sale.detail': handler(v.object({ saleId: id() }), async ({ saleId }) => {
      const detail = await core.terminal.saleDetail(saleId);
      if (!detail) throw new CoreError('not_found', 'That sale is not in this terminal’s journal.');
      return detail;
    }),

    /** Walks the journal's hash chain and names the first broken entry, if any. */
    'journal.verify': handler(v.none(), () => core.verifyJournal()),
    /**
     * Over a broken journal, a manager starts a new chain in their name: it records the broken
     * entry and the last good head, keeps the old segments untouched, and charging resumes.
     */
    'journal.startNewChain': handler(v.object({ by: person }), async ({ by }) => {
      await core.startNewJournalChain(by);
      return core.status();
    }),

    'settings.get': handler(v.none(), () => core.settings()),
    'settings.update': handler(
      v.object({
        lang: v.optional(v.literal(...LANGS)),
        storeId: v.optional(v.int({ min: 1, max: 2_147_483_647 })),
        checkoutId: v.optional(v.int({ min: 1, max: 2_147_483_647 })),
        operator: v.optional(v.nullable(person)),
      }),
      (patch) => core.updateSettings(patch),
    ),

    'shift.current': handler(v.none(), () => core.shifts.current()),
    'shift.open': handler(v.object({ by: person, note: v.optional(note) }), ({ by, note: text }) => core.openShift(by, text)),
    /** Closing over a pending sale is refused (reason pending_sale) unless confirmPending. */
    'shift.close': handler(v.object({ by: person, note: v.optional(note), confirmPending: v.optional(v.boolean()) }), ({ by, note: text, confirmPending }) =>
      core.closeShift(by, text, confirmPending ?? false),
    ),
    'journal.shiftReport': handler(
      v.object({ shiftId: v.optional(id()), outcome: v.optional(v.literal(...SALE_STATUSES)), search: v.optional(v.string({ min: 0, max: 200 })) }),
      (filter) => core.shifts.report(filter),
    ),
    'journal.exportCsv': handler(v.object({ shiftId: v.optional(id()) }), ({ shiftId }) => core.shifts.exportCsv(shiftId)),

    /** Every shift, newest first, a page at a time (`before`: the previous page's `older`). */
    'journal.shifts': handler(v.object({ before: v.optional(v.int({ min: 1, max: Number.MAX_SAFE_INTEGER })), limit: v.optional(v.int({ min: 1, max: 50 })) }), (page) =>
      core.shifts.list(page),
    ),
    /** The store's days in the reader's time zone (the one its screen shows times in), newest first. */
    'journal.days': handler(v.object({ timeZone, through: v.optional(localDay), count: v.optional(v.int({ min: 1, max: 31 })) }), (page) => core.shifts.days(page)),
    'journal.dayReport': handler(
      v.object({ day: localDay, timeZone, outcome: v.optional(v.literal(...SALE_STATUSES)), search: v.optional(v.string({ min: 0, max: 200 })) }),
      (filter) => core.shifts.dayReport(filter),
    ),
    'journal.exportDayCsv': handler(v.object({ day: localDay, timeZone }), ({ day, timeZone: zone }) => core.shifts.exportDayCsv(day, zone)),

    /** Payments (and charge.done reports) no sale could be matched to, for a supervisor. */
    'payments.unmatched': handler(v.none(), () => core.terminal.unmatchedPayments()),
    /** A person ties an unmatched payment (by its journal seq) to a sale, in their name. */
    'payment.attribute': handler(v.object({ seq: v.int({ min: 1, max: Number.MAX_SAFE_INTEGER }), saleId: id(), by: person }), (a) => core.terminal.attribute(a)),
  };
}
