import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../shared/clock.ts';
import type { Lang } from '../../shared/lang.ts';
import { writeFileAtomic } from '../atomic-file.ts';
import { CoreError } from '../errors.ts';
import type { JournalPort } from '../journal/port.ts';
import type { Logger } from '../log.ts';
import type { SaleRow } from '../terminal/entries.ts';
import { isTimeZone } from '../terminal/local-day.ts';
import type { ShiftReport } from '../terminal/shifts.ts';
import type { CheckoutKey } from '../terminal/terminal.ts';
import { ADDRESS_PROBLEM_TEXT, printerAddressText, readPrinterAddress, sendToPrinter, type PrinterAddress, type SendOptions } from './printer.ts';
import { refundReceipt, saleReceipt, shiftReceipt, testPage, type Built, type Receipt, type ReceiptContext, type ReceiptRefusal, type ReceiptStore } from './receipt.ts';
import { escposBytes, receiptSheetSvg } from './render.ts';

/**
 * Each till's receipt printer, and printing on it (issue 29): a paid sale's receipt, a
 * refund's, a manager's test page. Printing reads the journal and never writes a sale: a
 * printer that does not answer is a sentence, and the sale stays as it was. Setting a printer
 * and every print are journaled in the name of the operator who did it.
 */
export const RECEIPT_PRINTER_SET = 'receipt.printer_set';
export const RECEIPT_PRINTED = 'receipt.printed';
/** A till set to print every paid sale printed one by itself (no person pressed anything). */
export const RECEIPT_AUTO_PRINTED = 'receipt.auto_printed';
/** Entries a person does, which must say who (`data.by`). */
export const RECEIPT_PERSON_ACTIONS = [RECEIPT_PRINTER_SET, RECEIPT_PRINTED] as const;

export const PRINTERS_FILE = 'printers.json';

/** A till's printer as the Settings screen shows it. */
export interface TillPrinter {
  store_id: number;
  checkout_id: number;
  /** host:port, or null when the till has none. */
  printer: string | null;
  /** The till prints every sale paid on its checkout by itself, once, as it is paid. */
  every_paid_sale: boolean;
}

interface TillSetting {
  address: PrinterAddress;
  everyPaidSale: boolean;
  /** When printing every paid sale was turned on (domain time): sales paid before are not printed by themselves. */
  since: number | null;
}

export interface PrintResult {
  printed: true;
  printer: string;
  kind: Receipt['kind'];
}

export interface ReceiptsDeps {
  journal: JournalPort<SaleRow>;
  dataDir: string;
  clock: Clock;
  log: Logger;
  /** The store's language: the receipt is the customer's paper. */
  lang: () => Lang;
  /** The store's name and address at the service; a failure prints the store's id instead. */
  storeOf: (storeId: number) => Promise<{ name: string; address: string | null } | null>;
  /** The zone times print in when the screen does not say (the core computer's own). */
  timeZone?: string;
  send?: SendOptions;
}

const tillKey = (till: CheckoutKey) => `${till.storeId}:${till.checkoutId}`;
/** How many of a checkout's newest sales a pass looks at for one paid since the last. */
const AUTO_PRINT_LOOKBACK = 5;

function readPrinters(value: unknown): Map<string, TillSetting> {
  const out = new Map<string, TillSetting>();
  if (typeof value !== 'object' || value === null) return out;
  for (const [key, saved] of Object.entries(value as Record<string, unknown>)) {
    if (!/^\d+:\d+$/.test(key) || typeof saved !== 'object' || saved === null) continue;
    const { printer, every_paid_sale: every, since } = saved as Record<string, unknown>;
    const read = typeof printer === 'string' ? readPrinterAddress(printer) : null;
    if (!read?.ok) continue;
    const on = every === true && typeof since === 'number' && Number.isSafeInteger(since);
    out.set(key, { address: read.address, everyPaidSale: on, since: on ? since : null });
  }
  return out;
}

function savedPrinters(settings: ReadonlyMap<string, TillSetting>): Record<string, unknown> {
  const saved: Record<string, unknown> = {};
  for (const [key, s] of settings) saved[key] = { printer: printerAddressText(s.address), every_paid_sale: s.everyPaidSale, since: s.since };
  return saved;
}

const REFUSAL_TEXT: Record<ReceiptRefusal, string> = {
  not_paid: 'This sale is not paid: there is no receipt to print.',
  refund_not_found: 'That refund is not one of this sale’s.',
  refund_not_made: 'This refund is not confirmed as made: its receipt prints once the service has made it.',
};

export class Receipts {
  readonly #deps: ReceiptsDeps;
  #printers = new Map<string, TillSetting>();
  /** Sales already printed by themselves (read from the journal once, then kept up to date). */
  #autoPrinted: Promise<Set<string>> | null = null;
  /** One pass at a time: a burst of changes never prints a sale twice. */
  #autoPass: Promise<void> = Promise.resolve();

  constructor(deps: ReceiptsDeps) {
    this.#deps = deps;
  }

  /** The saved printers; a missing or unreadable file is no printer (the app still starts). */
  async load(): Promise<void> {
    try {
      this.#printers = readPrinters(JSON.parse(await readFile(join(this.#deps.dataDir, PRINTERS_FILE), 'utf8')));
    } catch {
      this.#printers = new Map();
    }
  }

  printerOf(till: CheckoutKey): TillPrinter {
    const setting = this.#printers.get(tillKey(till));
    return { store_id: till.storeId, checkout_id: till.checkoutId, printer: setting ? printerAddressText(setting.address) : null, every_paid_sale: setting?.everyPaidSale ?? false };
  }

  /**
   * A manager sets (or, with an empty text, removes) a till's printer. The address is read by
   * the one reader; a wrong one is refused with what is wrong and changes nothing.
   * `everyPaidSale` (kept as it was when not given) has the till print each sale paid from now on.
   */
  async setPrinter(by: string, till: CheckoutKey, typed: string, everyPaidSale?: boolean): Promise<TillPrinter> {
    let address: PrinterAddress | null = null;
    if (typed.trim() !== '') {
      const read = readPrinterAddress(typed);
      if (!read.ok) throw new CoreError('invalid_argument', ADDRESS_PROBLEM_TEXT[read.problem], { field: 'printer', problem: `printer_address_${read.problem}` });
      address = read.address;
    }
    const current = this.#printers.get(tillKey(till));
    const every = address !== null && (everyPaidSale ?? current?.everyPaidSale ?? false);
    const since = every ? (current?.everyPaidSale ? current.since : this.#deps.clock.now()) : null;
    const printer = address ? printerAddressText(address) : null;
    await this.#deps.journal.append([{ type: RECEIPT_PRINTER_SET, data: { by, store_id: till.storeId, checkout_id: till.checkoutId, printer, every_paid_sale: every } }]);
    const next = new Map(this.#printers);
    if (address) next.set(tillKey(till), { address, everyPaidSale: every, since });
    else next.delete(tillKey(till));
    await writeFileAtomic(join(this.#deps.dataDir, PRINTERS_FILE), JSON.stringify(savedPrinters(next), null, 2) + '\n');
    this.#printers = next;
    this.#deps.log.info('receipt printer set', { by, store_id: till.storeId, checkout_id: till.checkoutId, printer, every_paid_sale: every });
    return this.printerOf(till);
  }

  /**
   * The checkouts' sales changed: a till set to print every paid sale prints each sale paid on
   * its checkout since it was set, once (the journal says which were printed). A printer that
   * does not answer is logged, and the cashier can still press Print receipt.
   */
  checkoutsChanged(checkouts: readonly CheckoutKey[]): Promise<void> {
    const tills = checkouts.filter((c) => this.#printers.get(tillKey(c))?.everyPaidSale);
    if (tills.length === 0) return this.#autoPass;
    this.#autoPass = this.#autoPass.then(async () => {
      for (const till of tills) {
        await this.#printNewlyPaid(till).catch((err: unknown) => this.#deps.log.warn('printing the paid sales of a till failed', { ...till, error: err }));
      }
    });
    return this.#autoPass;
  }

  async #printNewlyPaid(till: CheckoutKey): Promise<void> {
    const setting = this.#printers.get(tillKey(till));
    if (!setting?.everyPaidSale || setting.since === null) return;
    this.#autoPrinted ??= this.#deps.journal.eventsOfType(RECEIPT_AUTO_PRINTED).then((entries) => new Set(entries.map((e) => String(e.data['of_sale']))));
    const printed = await this.#autoPrinted;
    const recent = await this.#deps.journal.sales.recentOnCheckout(till.storeId, till.checkoutId, AUTO_PRINT_LOOKBACK);
    for (const { sale } of recent.reverse()) {
      if (sale.status !== 'paid' || printed.has(sale.sale_id)) continue;
      const payment = sale.payments.find((p) => p.key === sale.paid?.payment_key);
      if ((payment?.first_seen_at ?? 0) < setting.since) continue;
      // Tried once: a dead printer is not asked again at every change; Print receipt remains.
      printed.add(sale.sale_id);
      const ctx = await this.#context(sale.store_id, { store_id: sale.store_id, checkout_id: sale.checkout_id }, undefined);
      const receipt = this.#built(saleReceipt(sale, ctx));
      const where = printerAddressText(setting.address);
      try {
        await sendToPrinter(setting.address, escposBytes(receipt), this.#deps.send);
      } catch (err) {
        this.#deps.log.warn('a paid sale’s receipt did not print by itself', { ...till, of_sale: sale.sale_id, printer: where, error: err });
        continue;
      }
      await this.#deps.journal.append([{ type: RECEIPT_AUTO_PRINTED, data: { store_id: till.storeId, checkout_id: till.checkoutId, of_sale: sale.sale_id, printer: where } }]);
    }
  }

  /** A paid sale's receipt, on the printer of the till `at` (the person's), in the sale's own times. */
  async printSale(by: string, saleId: string, at: CheckoutKey, timeZone?: string): Promise<PrintResult> {
    return this.#print(by, at, await this.#receiptOf(saleId, undefined, timeZone), { of_sale: saleId });
  }

  /** A refund's own receipt (only of a refund the service made). */
  async printRefund(by: string, saleId: string, refundId: string, at: CheckoutKey, timeZone?: string): Promise<PrintResult> {
    return this.#print(by, at, await this.#receiptOf(saleId, refundId, timeZone), { of_sale: saleId, refund_id: refundId });
  }

  /**
   * The same receipt drawn for an ordinary printer's print dialog (a till without a receipt
   * printer): the screen prints the sheet. Nothing is sent, so nothing is journaled as printed.
   */
  async sheet(saleId: string, refundId: string | undefined, timeZone?: string): Promise<{ svg: string }> {
    return { svg: receiptSheetSvg(await this.#receiptOf(saleId, refundId, timeZone)) };
  }

  async #receiptOf(saleId: string, refundId: string | undefined, timeZone: string | undefined): Promise<Receipt> {
    const sale = await this.#sale(saleId);
    const ctx = await this.#context(sale.store_id, { store_id: sale.store_id, checkout_id: sale.checkout_id }, timeZone);
    return this.#built(refundId === undefined ? saleReceipt(sale, ctx) : refundReceipt(sale, refundId, ctx));
  }

  /** A manager's test page on a till's printer: proves the address and the paper. */
  async printTestPage(by: string, till: CheckoutKey, timeZone?: string): Promise<PrintResult> {
    const ctx = await this.#context(till.storeId, { store_id: till.storeId, checkout_id: till.checkoutId }, timeZone);
    return this.#print(by, till, testPage({ ...ctx, operator: by, at: this.#deps.clock.now() }), {});
  }

  /**
   * The end-of-shift report (a shift's, or the open or last one) on the printer of the till
   * `at`, as the Shift journal shows its totals; times in the screen's zone.
   */
  async printShift(by: string, report: ShiftReport, at: CheckoutKey, timeZone?: string): Promise<PrintResult> {
    if (report.shift === null) throw new CoreError('conflict', 'There is no shift to print: a supervisor opens one in the Shift journal.', { problem: 'receipt_no_shift' });
    const ctx = await this.#context(at.storeId, { store_id: at.storeId, checkout_id: at.checkoutId }, timeZone);
    const receipt = shiftReceipt({ shift: report.shift, totals: report.totals, operator: by, at: this.#deps.clock.now() }, ctx);
    return this.#print(by, at, receipt, { of_shift: report.shift.shift_id });
  }

  async #sale(saleId: string) {
    const row = await this.#deps.journal.sales.get(saleId);
    if (!row) throw new CoreError('not_found', 'That sale is not in this terminal’s journal.');
    return row.sale;
  }

  #built(built: Built): Receipt {
    if (!built.ok) throw new CoreError('conflict', REFUSAL_TEXT[built.refusal], { problem: `receipt_${built.refusal}` });
    return built.receipt;
  }

  async #context(storeId: number, till: ReceiptContext['till'], timeZone: string | undefined): Promise<ReceiptContext> {
    const zone = timeZone ?? this.#deps.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!isTimeZone(zone)) throw new CoreError('invalid_argument', `timeZone must be a time zone like America/Sao_Paulo, not ${zone}.`, { field: 'timeZone' });
    return { lang: this.#deps.lang(), timeZone: zone, store: await this.#store(storeId), till };
  }

  /** The store's name and address from the service; without an answer the receipt still prints, with the store's number. */
  async #store(storeId: number): Promise<ReceiptStore> {
    try {
      const store = await this.#deps.storeOf(storeId);
      return { store_id: storeId, name: store?.name ?? null, address: store?.address ?? null };
    } catch (err) {
      this.#deps.log.warn('the store’s name for a receipt could not be read; printing its number', { store_id: storeId, error: err });
      return { store_id: storeId, name: null, address: null };
    }
  }

  async #print(by: string, till: CheckoutKey, receipt: Receipt, about: Record<string, string>): Promise<PrintResult> {
    const address = this.#printers.get(tillKey(till))?.address;
    if (!address) {
      throw new CoreError('conflict', 'No receipt printer is set for this till: a manager sets one in Settings.', { problem: 'printer_not_set' });
    }
    const printer = printerAddressText(address);
    try {
      await sendToPrinter(address, escposBytes(receipt), this.#deps.send);
    } catch (err) {
      this.#deps.log.warn('a receipt did not print', { by, kind: receipt.kind, printer, ...about, error: err });
      throw err;
    }
    // The paper is out: a journal that refuses the record now must not make it look unprinted.
    await this.#deps.journal
      .append([{ type: RECEIPT_PRINTED, data: { by, kind: receipt.kind, store_id: till.storeId, checkout_id: till.checkoutId, printer, ...about } }])
      .catch((err: unknown) => this.#deps.log.warn('a printed receipt could not be journaled', { by, kind: receipt.kind, printer, ...about, error: err }));
    return { printed: true, printer, kind: receipt.kind };
  }
}
