/**
 * The typed bridge between the core and the renderer, derived from the implementation
 * (handlers.ts and core.ts), never written twice. The renderer imports only types from
 * here, plus the two name lists the preload needs to expose named functions.
 */
import type { PushEvents } from './core.ts';
import type { createHandlers } from './handlers.ts';
import type { Envelope } from './errors.ts';

export type { PushEvents, CoreStatus, ServiceStatus, CoreState, WebhookStatus, JournalHealth, SettingsView, DisplayView, AttentionView } from './core.ts';
export type { DeviceInfo, DeviceKind } from './devices/registry.ts';
export type { DeviceView, PairingOffer, Entrance } from './devices/devices.ts';
export type { OfficeCheckout, Poster, PrintedQrList, PrintedQrRow } from './backoffice/backoffice.ts';
export type { CustomerLangView } from './backoffice/customer-lang.ts';
export type { BankAnswer, BankAnswerRecorded, ClaimNotice, ClaimRow, OpenOutcome, PayoutRow } from './claims/desk.ts';
export type { BookStatus, PendingRow, SettlementNotice, SettlementListRow, SettlementView, SaleLine } from './settlements/reconciler.ts';
export type { Reconciliation, ChargeCheck, RefundCheck, InvariantLine, PaidSale, Difference as SettlementDifference } from './settlements/reconcile.ts';
export type { MedReason, MedStatus } from './api/routes/payouts.ts';
export type { StoreField, WalletChoice } from './backoffice/rules.ts';
export type { Store } from './api/routes/stores.ts';
export type { ShiftView, ShiftTotals, JournalEventView, EventDetails } from './terminal/shift-report.ts';
export type { ShiftReport } from './terminal/shifts.ts';
export type { CarriedPayment, DayFrame, DayPage, DaySummary, ShiftPage, ShiftSummary } from './terminal/shifts.ts';
export type { UnmatchedPayment } from './terminal/terminal.ts';
export type { PrintResult, TillPrinter } from './receipts/receipts.ts';
export type { CheckoutView, SaleSummary, ScreenView } from './terminal/views.ts';
export type { FloorBoard, BoardCheckout, BoardCharge, BoardDisplacement } from './board/board.ts';
export type { SaleDescription, AttentionMessage, SaleMessageKey, AttentionMessageKey, Tone } from './sales/describe.ts';
export type { SaleStatus, AttentionReason } from './sales/lifecycle.ts';
export type { WireError, ErrorCode, Envelope } from './errors.ts';
export type { AuthStatus, Caller, OperatorView } from './operators/operators.ts';
export { mayUse, ROLES, type Access, type Role } from './operators/roles.ts';
export { LANGS, isLang, type Lang } from '../shared/lang.ts';

export type Handlers = ReturnType<typeof createHandlers>;
export type Method = keyof Handlers & string;
export type ArgsOf<K extends Method> = Parameters<Handlers[K]['run']>[0];
export type ResultOf<K extends Method> = Awaited<ReturnType<Handlers[K]['run']>>;
export type PushEvent = keyof PushEvents & string;

/** Every method, for the preload's named functions; checked against the handlers both ways. */
export const METHODS = [
  'core.status',
  'core.checkService',
  'settings.setLang',
  'checkout.view',
  'sale.charge',
  'sale.acknowledge',
  'sale.withdraw',
  'sale.detail',
  'journal.verify',
  'journal.startNewChain',
  'settings.get',
  'settings.update',
  'shift.current',
  'shift.open',
  'shift.close',
  'journal.shiftReport',
  'journal.exportCsv',
  'journal.shifts',
  'journal.days',
  'journal.dayReport',
  'journal.exportDayCsv',
  'payments.unmatched',
  'payment.attribute',
  'auth.status',
  'auth.createFirstManager',
  'auth.signIn',
  'auth.signOut',
  'auth.active',
  'operators.list',
  'operators.add',
  'operators.change',
  'operators.disable',
  'operators.unlock',
  'display.view',
  'attention.list',
  'pairing.info',
  'pairing.pair',
  'devices.list',
  'devices.startPairing',
  'devices.revoke',
  'sale.refund',
  'sale.refundWasMade',
  'sale.refundSendAgain',
  'office.stores',
  'office.createStore',
  'office.changeStore',
  'office.wallets',
  'office.checkouts',
  'office.addCheckout',
  'office.changeWallet',
  'office.printQr',
  'office.poster',
  'office.setMode',
  'office.printedQrs',
  'office.customerLang',
  'office.setCustomerLang',
  'claims.payouts',
  'claims.list',
  'claims.refresh',
  'claims.open',
  'claims.resubmit',
  'claims.recordBankAnswer',
  'settlements.list',
  'settlements.detail',
  'settlements.pending',
  'settlements.acknowledge',
  'settlements.unsettled',
  'receipt.print',
  'receipt.printRefund',
  'receipt.printer',
  'receipt.setPrinter',
  'receipt.testPage',
  'receipt.printShift',
  'receipt.sheet',
  'board.view',
  'board.leave',
] as const satisfies readonly Method[];
export const PUSH_EVENTS = ['core.status', 'checkout.changed', 'display.changed', 'attention.changed', 'auth.changed', 'board.changed'] as const satisfies readonly PushEvent[];

// Compile-time exhaustiveness: a handler or event missing from the lists is a type error.
type Missing<All, Listed> = Exclude<All, Listed>;
export const _allMethodsListed: [Missing<Method, (typeof METHODS)[number]>] extends [never] ? true : false = true;
export const _allEventsListed: [Missing<PushEvent, (typeof PUSH_EVENTS)[number]>] extends [never] ? true : false = true;

/** What a shell's transport offers the renderer: one call, one listen. */
export interface BridgeTransport {
  invoke(method: Method, args: unknown): Promise<Envelope<unknown>>;
  listen(event: PushEvent, listener: (payload: unknown) => void): () => void;
}

/** The global the Electron preload exposes: one named function per method, plus listen. */
export type PreloadApi = {
  readonly [K in Method]: (args: ArgsOf<K>) => Promise<Envelope<ResultOf<K>>>;
} & {
  readonly listen: <E extends PushEvent>(event: E, listener: (payload: PushEvents[E]) => void) => () => void;
};

/** The store computer's customer-display window's global (preload/display.ts): its screen, nothing else. */
export type DisplayPreloadApi = Pick<PreloadApi, 'display.view' | 'listen'>;

export const IPC_INVOKE_PREFIX = 'pos:invoke:';
export const IPC_EVENT_CHANNEL = 'pos:event';
