import { DEVICE_NAME_MAX, OPERATOR_NAME_MAX, RECORD_ID_MAX } from '../shared/form-rules.ts';
import { readTypedAmount, TYPED_AMOUNT_PROBLEM_TEXT } from '../shared/money.ts';
import { BANK_ANSWERS } from './claims/desk.ts';
import { LANGS } from './config.ts';
import type { Core } from './core.ts';
import { createDispatcher, handler, reaching } from './bridge/handler.ts';
import { fields, list, none, oneOf, text, whole, yesNo } from './bridge/arguments.ts';
import { v } from '../shared/schema.ts';
import { CoreError } from './errors.ts';
import { DEVICE_KINDS } from './devices/registry.ts';
import type { Caller, Session } from './operators/operators.ts';
import { PIN_PATTERN } from './operators/pin.ts';
import { ROLES } from './operators/roles.ts';
import { SALE_STATUSES } from './sales/lifecycle.ts';

/**
 * Every operation the renderer may ask of the core. This map IS the bridge contract:
 * `contract.ts` derives method names, argument and result types from it, and both shells
 * register exactly these handlers. Every method names, before its argument's validator, the
 * least role that may call it (operators/roles.ts), and what it does in words for a refusal's
 * sentence. Who did something is always the signed-in operator of the calling connection:
 * no method takes a person's name for it.
 */
const id = (max = 200) => text({ min: 1, max, pattern: /^[\w.:-]+$/, describe: 'an identifier' });
const person = text({ min: 1, max: OPERATOR_NAME_MAX, pattern: /\S/, describe: `a name of 1 to ${OPERATOR_NAME_MAX} characters` });
const pin = text({ min: 4, max: 8, pattern: PIN_PATTERN, describe: 'a PIN of 4 to 8 digits' });
const operatorId = text({ min: 1, max: 64, pattern: /^[\w-]+$/, describe: 'an operator id' });
const note = text({ min: 1, max: 500, describe: 'a note of 1 to 500 characters' });
/** An IANA zone name like America/Sao_Paulo; the core checks that Intl knows it. */
const timeZone = text({ min: 1, max: 64, pattern: /^[A-Za-z][\w+\-/]*$/, describe: 'a time zone like America/Sao_Paulo' });
const localDay = text({ min: 10, max: 10, pattern: /^\d{4}-\d{2}-\d{2}$/, describe: 'a day like 2026-11-23' });
const storeId = whole(1, RECORD_ID_MAX);
const checkoutId = whole(1, RECORD_ID_MAX);
const checkoutArgs = { storeId: v.optional(storeId), checkoutId: v.optional(checkoutId) };
const deviceId = text({ min: 1, max: 64, pattern: /^[\w-]+$/, describe: 'a device id' });
/** What a manager types in the back office's forms: the rules (backoffice/rules.ts) judge emptiness and length. */
const typed = (max: number) => text({ min: 0, max, describe: `a text of at most ${max} characters` });
const storeForm = { name: typed(200), address: typed(200), phone: typed(50), email: typed(200) };
/** The Store form's optional fields, which an edit may clear (issue 26). */
const STORE_CLEARABLE = ['address', 'phone', 'email'] as const;
/** Lengths are checked again by claims/rules.ts with a sentence for the form; these bound what reaches it. */
const claimForm = { serviceId: typed(100), reason: typed(40), details: typed(8000), externalId: v.optional(typed(200)) };
const PAYOUT_PAGE = 50;
const walletId = whole(1, 2_147_483_647);

export function createHandlers(core: Core) {
  /**
   * The checkout a call is about: its connection's. The store computer's own windows may name
   * another; a paired till is bound to the checkout it was paired for, and naming another is refused.
   */
  const checkoutOf = (a: { storeId?: number; checkoutId?: number }, session: Session) => {
    const own = core.checkoutFor(session);
    const asked = { storeId: a.storeId ?? own.storeId, checkoutId: a.checkoutId ?? own.checkoutId };
    if (session.connection.kind === 'device' && (asked.storeId !== own.storeId || asked.checkoutId !== own.checkoutId)) {
      throw new CoreError('forbidden', `This till rings up and shows checkout ${own.checkoutId} of store ${own.storeId} only.`, { reason: 'other_checkout' });
    }
    return asked;
  };
  /**
   * A cashier on a paired till acts on its checkout's sales only; a supervisor or a manager
   * follows every checkout's (their attention list is the merchant's).
   */
  const ownSale = async (saleId: string, session: Session, by: Caller) => {
    if (session.connection.kind !== 'device' || by.role !== 'cashier') return;
    const detail = await core.terminal.saleDetail(saleId);
    if (detail) checkoutOf({ storeId: detail.sale.store_id, checkoutId: detail.sale.checkout_id }, session);
  };
  return {
    /**
     * The status bar stands above the sign-in screen too. The answer (not the push, which is
     * said only when something changes) carries the core's clock, `now`: the time a screen
     * defaults to (a date range ending today) is the core's, which tests move, not the page's.
     */
    'core.status': handler('anyone', 'read the till’s status', none(), (_a, session) => ({ ...core.statusFor(session), now: core.clock.now() })),
    'core.checkService': handler('cashier', 'check the payment service', none(), async (_a, _by, session) => {
      await core.probeService();
      return core.statusFor(session);
    }),
    /**
     * The merchant's default language: what a device with no preference of its own speaks (a
     * paired display's, a new till's). Each device keeps its own choice (the header's language
     * menu), never sent here: a person at a signed-out till changes that till only (issue 25).
     */
    'settings.setLang': handler('manager', 'change the store’s default language', fields({ lang: oneOf(LANGS) }), ({ lang }) => core.setLang(lang)),

    /**
     * The checkout's screen: the only QR to show, recent sales (with references and who rang
     * them up), what needs a person: a signed-in till's (issue 25); `checkout.changed` pushes
     * the same view to its tills. A customer display reads `display.view`, and keeps showing a
     * pending sale while the till is locked.
     */
    'checkout.view': handler('cashier', 'see the checkout', fields(checkoutArgs), (a, _by, session) => core.terminal.checkoutView(checkoutOf(a, session))),
    /** All a customer display may read: its checkout's screen, in the store's language. */
    'display.view': reaching('display', handler('anyone', 'show the customer display', none(), (_a, session) => core.displayView(core.checkoutFor(session)))),
    /** Every checkout's sales that need a person: the attention list of supervisors and managers. */
    'attention.list': handler('supervisor', 'see what needs a person', none(), () => core.attention()),

    /** The served certificate's fingerprint as the core knows it. No proof to the page that asks (the same server answers), so the pair screen shows none (issue 25, point 5). */
    'pairing.info': reaching('pairing', handler('anyone', 'see how to pair', none(), () => ({ fingerprint: core.devices.entrance.fingerprint }))),
    /** A device enters the pairing code a manager gave; it receives its credential once. */
    'pairing.pair': reaching(
      'pairing',
      handler('anyone', 'pair this device', fields({ code: text({ min: 1, max: 32, describe: 'a pairing code of 8 digits' }) }), ({ code }, session) => {
        const connection = core.connectionOf(session);
        // The dispatcher lets only an unpaired connection in (reach `pairing`); called some other way, check again.
        if (connection.kind !== 'unpaired') throw new CoreError('conflict', 'This connection is already a till of this store.', { reason: 'already_paired' });
        return core.pairDevice(code, connection.from);
      }),
    ),
    'devices.list': handler('manager', 'see the devices', none(), () => core.devices.list()),
    'devices.startPairing': handler(
      'manager',
      'pair a till',
      fields({ kind: oneOf(DEVICE_KINDS), storeId, checkoutId, name: text({ min: 1, max: DEVICE_NAME_MAX, pattern: /\S/, describe: `a device name of 1 to ${DEVICE_NAME_MAX} characters` }) }),
      (a, by) => core.devices.startPairing(by, a),
    ),
    'devices.revoke': handler('manager', 'revoke a device', fields({ deviceId }), ({ deviceId: id }, by) => core.devices.revoke(by, id)),

    // The back office (issue 10): stores, checkouts, wallets, modes and printed QR posters.
    'office.stores': handler('manager', 'see the stores', none(), () => core.backOffice.stores()),
    'office.createStore': handler('manager', 'create a store', fields(storeForm), (a, by) =>
      core.backOffice.createStore(by.name, { store_name: a.name, address: a.address, phone_number: a.phone, email: a.email }),
    ),
    /** Reference 4.1: an empty field keeps its value (`kept` names them); the name cannot be emptied. */
    'office.changeStore': handler('manager', 'change a store', fields({ storeId, ...storeForm, clear: v.optional(list(oneOf(STORE_CLEARABLE), 3)) }), (a, by) =>
      core.backOffice.changeStore(by.name, a.storeId, {
        store_name: a.name,
        address: a.address,
        phone_number: a.phone,
        email: a.email,
        // Issue 26: the optional fields the manager chose to clear, in the service's names.
        clear: (a.clear ?? []).map((f) => (f === 'phone' ? 'phone_number' : f)),
      }),
    ),
    'office.wallets': handler('manager', 'see the wallets', none(), () => core.backOffice.wallets()),
    'office.checkouts': handler('manager', 'see the checkouts', fields({ storeId }), ({ storeId: id }) => core.backOffice.checkouts(id)),
    'office.addCheckout': handler('manager', 'add a checkout', fields({ storeId, description: typed(1000), walletId }), (a, by) => core.backOffice.addCheckout(by.name, a)),
    /** Refused unless `confirm`: the person confirmed that every later payment settles to the new wallet (reference 4.2). */
    'office.changeWallet': handler('manager', 'change a checkout’s wallet', fields({ storeId, checkoutId, walletId, confirm: yesNo() }), (a, by) =>
      core.backOffice.changeWallet(by.name, { storeId: a.storeId, checkoutId: a.checkoutId, walletId: a.walletId, confirmed: a.confirm }),
    ),
    'office.printQr': handler('manager', 'print a QR poster', fields({ storeId, checkoutId }), (a, by) => core.backOffice.printQr(by.name, a, core.customerLang(a.storeId).lang)),
    'office.poster': handler('manager', 'see a QR poster', fields({ storeId, checkoutId }), (a) => core.backOffice.poster(a, core.customerLang(a.storeId).lang)),
    /** The language a store's customers read on its poster and customer displays (issue 26 point 6). */
    'office.customerLang': handler('manager', 'see a store’s customer language', fields({ storeId }), ({ storeId: id }) => core.customerLang(id)),
    'office.setCustomerLang': handler('manager', 'choose a store’s customer language', fields({ storeId, lang: oneOf(LANGS) }), (a, by) => core.setCustomerLang(by.name, a.storeId, a.lang)),
    'office.setMode': handler('manager', 'switch a checkout’s QR mode', fields({ storeId, checkoutId, mode: oneOf(['printed', 'dynamic']) }), (a, by) =>
      core.backOffice.setMode(by.name, a),
    ),
    'office.printedQrs': handler('manager', 'see the printed QRs', fields({ page: v.optional(whole(1, 100_000)) }), ({ page }) => core.backOffice.printedQrs(page ?? 1)),

    // MED claims over pay-outs (issue 12): supervisors and managers (the service's scope pay_out).
    'claims.payouts': handler('supervisor', 'see the pay-outs', fields({ offset: v.optional(whole(0, 1_000_000)) }), ({ offset }) =>
      core.claims.payouts({ limit: PAYOUT_PAGE, offset: offset ?? 0 }),
    ),
    'claims.list': handler('supervisor', 'see the claims', none(), () => core.claims.claims()),
    /** Presses close together share one request to the service (reference 8's limits). */
    'claims.refresh': handler('supervisor', 'refresh the claims', none(), () => core.claims.refresh(false)),
    'claims.open': handler('supervisor', 'open a claim', fields(claimForm), (a, by) =>
      core.claims.open(by.name, a.serviceId, { reason: a.reason, details: a.details, externalId: a.externalId }),
    ),
    /** Only while the claim is dispatching and the provider rejected it (reference 4.6): same med_case_id. */
    'claims.resubmit': handler('supervisor', 'send a claim again', fields({ ...claimForm, medCaseId: typed(100) }), (a, by) =>
      core.claims.open(by.name, a.serviceId, { reason: a.reason, details: a.details, externalId: a.externalId }, a.medCaseId),
    ),

    /**
     * What the bank said of a claim request left unconfirmed, in the person's name: no claim was
     * registered (the pay-out may be claimed again), or the claim exists with the id typed,
     * which the core checks with the service before following it.
     */
    'claims.recordBankAnswer': handler(
      'supervisor',
      'record what the bank said of a claim',
      fields({ serviceId: typed(100), answer: oneOf(BANK_ANSWERS), medCaseId: v.optional(typed(200)) }),
      (a, by) => core.claims.recordBankAnswer(by.name, a.serviceId, a.answer, a.medCaseId ?? null),
    ),

    // Settlements (issue 11): supervisors and managers.
    'settlements.list': handler('supervisor', 'see the settlements', fields({ fromMs: whole(0, 8_640_000_000_000), toMs: whole(0, 8_640_000_000_000) }), (a) =>
      core.terminal.reconciler.list(a.fromMs, a.toMs),
    ),
    'settlements.pending': handler('supervisor', 'see what waits for settlement', none(), () => core.terminal.reconciler.pending()),
    'settlements.detail': handler('supervisor', 'see a settlement', fields({ settlementId: whole(1, Number.MAX_SAFE_INTEGER) }), (a) => core.terminal.reconciler.detail(a.settlementId)),
    /** One difference of the settlement's last result (its key from differencesOf), in the person's name. */
    'settlements.acknowledge': handler(
      'supervisor',
      'acknowledge a settlement’s difference',
      fields({ settlementId: whole(1, Number.MAX_SAFE_INTEGER), difference: text({ min: 1, max: 300, describe: 'a difference of the settlement' }), note: v.optional(note) }),
      (a, by) => core.terminal.reconciler.acknowledge(by.name, a.settlementId, a.difference, a.note ?? null),
    ),
    /** Paid sales no settlement has included after the window they should have been in. */
    'settlements.unsettled': handler('supervisor', 'see the sales not settled in time', none(), () => core.terminal.reconciler.unsettled()),

    /** Who is signed in on this connection, and whether the till still needs its first manager. */
    'auth.status': handler('anyone', 'see who is signed in', none(), (_a, session) => core.operators.status(session)),
    /**
     * Only while the till has no operator at all (refused with reason operators_exist after),
     * and only from the store computer's own window: no till can be paired before a manager exists.
     */
    'auth.createFirstManager': reaching('store', handler('anyone', 'create the first manager', fields({ name: person, pin }), async (a, session) => {
      await core.operators.createFirstManager(session, a);
      return core.operators.status(session);
    })),
    'auth.signIn': handler('anyone', 'sign in', fields({ name: person, pin }), async (a, session) => {
      await core.operators.signIn(session, a);
      return core.operators.status(session);
    }),
    'auth.signOut': handler('anyone', 'sign out', fields({ reason: v.optional(oneOf(['by_hand', 'idle'])) }), async ({ reason }, session) => {
      await core.operators.signOut(session, reason ?? 'by_hand');
      return core.operators.status(session);
    }),
    /**
     * A person is at the page (a key or a touch; the page reports it at most twice a minute):
     * the sign-in lives on (issue 25). Nothing else a page calls keeps it alive.
     */
    'auth.active': handler('cashier', 'stay signed in', none(), (_a, _by, session) => core.operators.touch(session)),

    'operators.list': handler('manager', 'see the operators', none(), () => core.operators.list()),
    'operators.add': handler('manager', 'add an operator', fields({ name: person, role: oneOf(ROLES), pin }), (a, by) => core.operators.add(by, a)),
    'operators.change': handler(
      'manager',
      'change an operator',
      fields({ operatorId, name: v.optional(person), role: v.optional(oneOf(ROLES)), pin: v.optional(pin) }),
      (a, by) => core.operators.change(by, a),
    ),
    'operators.disable': handler('manager', 'disable an operator', fields({ operatorId }), (a, by) => core.operators.disable(by, a)),
    /** After wrong PINs (the only way in after 20 in a day), journaled in the manager's name. */
    'operators.unlock': handler('manager', 'unlock an operator', fields({ operatorId }), (a, by) => core.operators.unlock(by, a)),

    /**
     * Charges an amount as typed by the cashier ("12,50" or "12.50"). On a printed checkout
     * a pending sale is displaced by this one (that is how an amount is corrected).
     */
    'sale.charge': handler(
      'cashier',
      'charge a sale',
      fields({
        amount: text({ min: 1, max: 64, describe: 'an amount like 12,50' }),
        reference: v.optional(text({ min: 1, max: 128, pattern: /^[^\p{Cc}]+$/u, describe: 'a reference of 1 to 128 characters' })),
        ...checkoutArgs,
      }),
      (a, by, session) => {
        // The one reader of what a cashier types, the one the screen previews with: it never
        // rewrites an amount ("-5", "1e3", "2.500"), it says which problem it refused.
        const typed = readTypedAmount(a.amount);
        if (!typed.ok) throw new CoreError('invalid_argument', TYPED_AMOUNT_PROBLEM_TEXT[typed.problem], { field: 'amount', problem: typed.problem });
        return core.charge({
          ...checkoutOf(a, session),
          amountCents: typed.cents,
          ...(a.reference === undefined ? {} : { externalId: a.reference }),
          by: by.name,
        });
      },
    ),

    /** A person confirms they saw what needed them (an amount mismatch, a late payment...). */
    'sale.acknowledge': handler(
      'cashier',
      'acknowledge a sale',
      fields({
        saleId: id(),
        reason: oneOf(['amount_mismatch', 'paid_late', 'paid_withdrawn', 'paid_after_expiry', 'extra_payment', 'displaced_unknown', 'conflict']),
        subject: text({ min: 0, max: 300 }),
      }),
      async (a, by, session) => {
        await ownSale(a.saleId, session, by);
        return core.terminal.acknowledge({ ...a, by: by.name });
      },
    ),

    /**
     * Withdraws the checkout's pending sale: no QR of it is shown any more. The service has no
     * cancel, so it stays payable until it expires or is displaced; a payment then needs a person.
     */
    'sale.withdraw': handler('cashier', 'withdraw a sale', fields({ saleId: id() }), async ({ saleId }, by, session) => {
      await ownSale(saleId, session, by);
      return core.terminal.withdraw({ saleId, by: by.name });
    }),

    'sale.detail': handler('cashier', 'see a sale', fields({ saleId: id() }), async ({ saleId }, by, session) => {
      await ownSale(saleId, session, by);
      const detail = await core.terminal.saleDetail(saleId);
      if (!detail) throw new CoreError('not_found', 'That sale is not in this terminal’s journal.');
      return detail;
    }),

    /** Walks the journal's hash chain and names the first broken entry, if any. */
    'journal.verify': handler('supervisor', 'check the journal', none(), () => core.verifyJournal()),
    /**
     * Over a broken journal, a manager starts a new chain in their name: it records the broken
     * entry and the last good head, keeps the old segments untouched, and charging resumes.
     */
    'journal.startNewChain': handler('manager', 'start a new journal chain', none(), async (_a, by) => {
      await core.startNewJournalChain(by.name);
      return core.status();
    }),

    // A cashier may read this till's settings, not change them.
    'settings.get': handler('cashier', 'see the settings', none(), (_a, _by, session) => ({ ...core.settings(), ...core.checkoutFor(session) })),
    'settings.update': handler(
      'manager',
      'change the settings',
      fields({
        lang: v.optional(oneOf(LANGS)),
        storeId: v.optional(whole(1, 2_147_483_647)),
        checkoutId: v.optional(whole(1, 2_147_483_647)),
      }),
      (patch, _by, session) => {
        // The checkout setting is the store computer's own till's: a paired till is bound by its pairing.
        if (session.connection.kind === 'device' && (patch.storeId !== undefined || patch.checkoutId !== undefined)) {
          throw new CoreError('forbidden', 'A paired till keeps the checkout it was paired for: pair it again for another checkout.', { reason: 'paired_checkout' });
        }
        return core.updateSettings(patch);
      },
    ),

    'shift.current': handler('cashier', 'see the shift', none(), () => core.shifts.current()),
    'shift.open': handler('supervisor', 'open a shift', fields({ note: v.optional(note) }), ({ note: text }, by) => core.openShift(by.name, text)),
    /** Closing over a pending sale is refused (reason pending_sale) unless confirmPending. */
    'shift.close': handler('supervisor', 'close a shift', fields({ note: v.optional(note), confirmPending: v.optional(yesNo()) }), ({ note: text, confirmPending }, by, session) =>
      core.closeShift(by.name, text, confirmPending ?? false, core.checkoutFor(session)),
    ),
    'journal.shiftReport': handler(
      'supervisor',
      'read the shift journal',
      fields({ shiftId: v.optional(id()), outcome: v.optional(oneOf(SALE_STATUSES)), search: v.optional(text({ min: 0, max: 200 })) }),
      (filter) => core.shifts.report(filter),
    ),
    'journal.exportCsv': handler('supervisor', 'export the journal', fields({ shiftId: v.optional(id()) }), ({ shiftId }) => core.shifts.exportCsv(shiftId)),

    /** Every shift, newest first, a page at a time (`before`: the previous page's `older`). */
    'journal.shifts': handler('supervisor', 'read the shift journal', fields({ before: v.optional(whole(1, Number.MAX_SAFE_INTEGER)), limit: v.optional(whole(1, 50)) }), (page) =>
      core.shifts.list(page),
    ),
    /** The store's days in the reader's time zone (the one its screen shows times in), newest first. */
    'journal.days': handler('supervisor', 'read the shift journal', fields({ timeZone, through: v.optional(localDay), count: v.optional(whole(1, 31)) }), (page) => core.shifts.days(page)),
    'journal.dayReport': handler(
      'supervisor',
      'read the shift journal',
      fields({ day: localDay, timeZone, outcome: v.optional(oneOf(SALE_STATUSES)), search: v.optional(text({ min: 0, max: 200 })) }),
      (filter) => core.shifts.dayReport(filter),
    ),
    'journal.exportDayCsv': handler('supervisor', 'export the journal', fields({ day: localDay, timeZone }), ({ day, timeZone: zone }) => core.shifts.exportDayCsv(day, zone)),

    /** Payments (and charge.done reports) no sale could be matched to, for a supervisor. */
    'payments.unmatched': handler('supervisor', 'see payments without a sale', none(), () => core.terminal.unmatchedPayments()),
    /** A person ties an unmatched payment (by its journal seq) to a sale, in their name. */
    'payment.attribute': handler('supervisor', 'tie a payment to a sale', fields({ seq: whole(1, Number.MAX_SAFE_INTEGER), saleId: id() }), (a, by) =>
      core.terminal.attribute({ ...a, by: by.name }),
    ),
    /**
     * A supervisor gives back part or all of what is left of a paid sale (contract 5), in
     * their name. Resolves with the sale once the service's answer (or its absence) is journaled.
     */
    'sale.refund': handler(
      'supervisor',
      'refund a sale',
      fields({ saleId: id(), amountCents: whole(1, 100_000_000), reason: v.optional(text({ min: 0, max: 2000 })) }),
      ({ saleId, amountCents, reason }, by) => core.terminal.refund({ saleId, amountCents, ...(reason === undefined ? {} : { reason }), by: by.name }),
    ),
    /**
     * A supervisor's answers to a refund not confirmed (its outcome unknown, and asking again
     * could refund twice): they checked and it was made; or it was not, and it is sent again
     * under a new key for the amount their confirmation named. Both in their name.
     */
    'sale.refundWasMade': handler('supervisor', 'answer a refund not confirmed', fields({ saleId: id(), refundId: id() }), (a, by) =>
      core.terminal.refundWasMade({ ...a, by: by.name }),
    ),
    'sale.refundSendAgain': handler(
      'supervisor',
      'send a refund again',
      fields({ saleId: id(), refundId: id(), amountCents: whole(1, 100_000_000) }),
      (a, by) => core.terminal.refundSendAgain({ ...a, by: by.name }),
    ),

    // Receipts (issue 29): printing reads a sale and never changes it; a printer that does not answer is a sentence.
    /** A paid sale's receipt on the calling till's printer; `timeZone`: the screen's, for the printed time. */
    'receipt.print': handler('cashier', 'print a receipt', fields({ saleId: id(), timeZone: v.optional(timeZone) }), async (a, by, session) => {
      await ownSale(a.saleId, session, by);
      return core.receipts.printSale(by.name, a.saleId, core.checkoutFor(session), a.timeZone);
    }),
    /** A refund's own receipt, once the service made it. */
    'receipt.printRefund': handler('cashier', 'print a refund’s receipt', fields({ saleId: id(), refundId: id(), timeZone: v.optional(timeZone) }), async (a, by, session) => {
      await ownSale(a.saleId, session, by);
      return core.receipts.printRefund(by.name, a.saleId, a.refundId, core.checkoutFor(session), a.timeZone);
    }),
    /** The end-of-shift report (the shift named, else the open or the last one) on the calling till's printer. */
    'receipt.printShift': handler('supervisor', 'print the shift report', fields({ shiftId: v.optional(id()), timeZone: v.optional(timeZone) }), async (a, by, session) =>
      core.receipts.printShift(by.name, await core.shifts.report(a.shiftId === undefined ? {} : { shiftId: a.shiftId }), core.checkoutFor(session), a.timeZone),
    ),
    /** A sale's (or one refund's) receipt as a sheet for the print dialog, on a till without a receipt printer. */
    'receipt.sheet': handler('cashier', 'see a receipt', fields({ saleId: id(), refundId: v.optional(id()), timeZone: v.optional(timeZone) }), async (a, by, session) => {
      await ownSale(a.saleId, session, by);
      return core.receipts.sheet(a.saleId, a.refundId, a.timeZone);
    }),
    'receipt.printer': handler('cashier', 'see the till’s receipt printer', fields(checkoutArgs), (a, _by, session) => core.receipts.printerOf(checkoutOf(a, session))),
    /**
     * host:port as typed (receipts/printer.ts reads it); empty removes the till's printer.
     * `everyPaidSale`: the till prints each sale paid from now on by itself. In the manager's name.
     */
    'receipt.setPrinter': handler('manager', 'set a till’s receipt printer', fields({ printer: typed(300), everyPaidSale: v.optional(yesNo()), ...checkoutArgs }), (a, by, session) =>
      core.receipts.setPrinter(by.name, checkoutOf(a, session), a.printer, a.everyPaidSale),
    ),
    'receipt.testPage': handler('manager', 'print a test page', fields({ ...checkoutArgs, timeZone: v.optional(timeZone) }), (a, by, session) =>
      core.receipts.printTestPage(by.name, checkoutOf(a, session), a.timeZone),
    ),

    /**
     * The floor board (issue 29): every checkout of every store, what its QR charges now, its
     * last outcome, what waits for a person and the day's displacements, the day counted in
     * the screen's `timeZone`. The session hears `board.changed` until board.leave.
     */
    'board.view': handler('supervisor', 'see the floor board', fields({ timeZone }), ({ timeZone: zone }, _by, session) => core.openBoard(session, zone)),
    'board.leave': handler('supervisor', 'close the floor board', none(), (_a, _by, session) => {
      core.leaveBoard(session);
      return { left: true };
    }),
  };
}

/**
 * The dispatcher both shells (and the bridge tests) call with a connection's session: the
 * handlers above, each call made as the operator signed in on that session.
 */
export function createCoreDispatcher(core: Core) {
  return createDispatcher(createHandlers(core), {
    callerOf: (session) => core.operators.caller(session),
    connectionOf: (session) => core.connectionOf(session),
    onUnexpected: (method, err) => core.log.error('bridge handler failed', { method, error: err }),
  });
}
