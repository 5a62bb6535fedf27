import { contextBridge, ipcRenderer } from 'electron';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_PREFIX, PUSH_EVENTS, type ArgsOf, type Method, type PreloadApi, type PushEvent, type PushEvents } from '../core/contract.ts';

/**
 * Exposes one named function per contract method, and `listen` for push events. Never
 * ipcRenderer itself: the renderer cannot reach any other channel. The object is checked
 * with `satisfies` against the contract the renderer reads (PreloadApi): a method missing,
 * extra or of another shape is a type error here, not a surprise in the renderer.
 */
function invoker<K extends Method>(method: K): PreloadApi[K] {
  return (args: ArgsOf<K>) => ipcRenderer.invoke(IPC_INVOKE_PREFIX + method, args);
}

function listen<E extends PushEvent>(event: E, listener: (payload: PushEvents[E]) => void): () => void {
  if (!(PUSH_EVENTS as readonly string[]).includes(event)) throw new Error(`Unknown event ${String(event)}`);
  const handler = (_e: unknown, name: unknown, payload: PushEvents[E]) => {
    if (name === event) listener(payload);
  };
  ipcRenderer.on(IPC_EVENT_CHANNEL, handler);
  return () => {
    ipcRenderer.removeListener(IPC_EVENT_CHANNEL, handler);
  };
}

const api = {
  'core.status': invoker('core.status'),
  'core.checkService': invoker('core.checkService'),
  'settings.setLang': invoker('settings.setLang'),
  'checkout.view': invoker('checkout.view'),
  'sale.charge': invoker('sale.charge'),
  'sale.acknowledge': invoker('sale.acknowledge'),
  'sale.withdraw': invoker('sale.withdraw'),
  'sale.detail': invoker('sale.detail'),
  'journal.verify': invoker('journal.verify'),
  'journal.startNewChain': invoker('journal.startNewChain'),
  'settings.get': invoker('settings.get'),
  'settings.update': invoker('settings.update'),
  'shift.current': invoker('shift.current'),
  'shift.open': invoker('shift.open'),
  'shift.close': invoker('shift.close'),
  'journal.shiftReport': invoker('journal.shiftReport'),
  'journal.exportCsv': invoker('journal.exportCsv'),
  'journal.shifts': invoker('journal.shifts'),
  'journal.days': invoker('journal.days'),
  'journal.dayReport': invoker('journal.dayReport'),
  'journal.exportDayCsv': invoker('journal.exportDayCsv'),
  'payments.unmatched': invoker('payments.unmatched'),
  'payment.attribute': invoker('payment.attribute'),
  'auth.status': invoker('auth.status'),
  'auth.createFirstManager': invoker('auth.createFirstManager'),
  'auth.signIn': invoker('auth.signIn'),
  'auth.signOut': invoker('auth.signOut'),
  'auth.active': invoker('auth.active'),
  'operators.list': invoker('operators.list'),
  'operators.add': invoker('operators.add'),
  'operators.change': invoker('operators.change'),
  'operators.disable': invoker('operators.disable'),
  'operators.unlock': invoker('operators.unlock'),
  'display.view': invoker('display.view'),
  'attention.list': invoker('attention.list'),
  'pairing.info': invoker('pairing.info'),
  'pairing.pair': invoker('pairing.pair'),
  'devices.list': invoker('devices.list'),
  'devices.startPairing': invoker('devices.startPairing'),
  'devices.revoke': invoker('devices.revoke'),
  'sale.refund': invoker('sale.refund'),
  'sale.refundWasMade': invoker('sale.refundWasMade'),
  'sale.refundSendAgain': invoker('sale.refundSendAgain'),
  'office.stores': invoker('office.stores'),
  'office.createStore': invoker('office.createStore'),
  'office.changeStore': invoker('office.changeStore'),
  'office.wallets': invoker('office.wallets'),
  'office.checkouts': invoker('office.checkouts'),
  'office.addCheckout': invoker('office.addCheckout'),
  'office.changeWallet': invoker('office.changeWallet'),
  'office.printQr': invoker('office.printQr'),
  'office.poster': invoker('office.poster'),
  'office.customerLang': invoker('office.customerLang'),
  'office.setCustomerLang': invoker('office.setCustomerLang'),
  'office.setMode': invoker('office.setMode'),
  'office.printedQrs': invoker('office.printedQrs'),
  'claims.payouts': invoker('claims.payouts'),
  'claims.list': invoker('claims.list'),
  'claims.refresh': invoker('claims.refresh'),
  'claims.open': invoker('claims.open'),
  'claims.resubmit': invoker('claims.resubmit'),
  'claims.recordBankAnswer': invoker('claims.recordBankAnswer'),
  'settlements.list': invoker('settlements.list'),
  'settlements.detail': invoker('settlements.detail'),
  'settlements.pending': invoker('settlements.pending'),
  'settlements.acknowledge': invoker('settlements.acknowledge'),
  'settlements.unsettled': invoker('settlements.unsettled'),
  'receipt.print': invoker('receipt.print'),
  'receipt.printRefund': invoker('receipt.printRefund'),
  'receipt.printer': invoker('receipt.printer'),
  'receipt.setPrinter': invoker('receipt.setPrinter'),
  'receipt.testPage': invoker('receipt.testPage'),
  'receipt.printShift': invoker('receipt.printShift'),
  'receipt.sheet': invoker('receipt.sheet'),
  'board.view': invoker('board.view'),
  'board.leave': invoker('board.leave'),
  listen,
} satisfies PreloadApi;

contextBridge.exposeInMainWorld('pos', api);
