import type { Clock } from '../../shared/clock.ts';
import type { Lang } from '../../shared/lang.ts';
import type { ServiceClient } from '../api/client.ts';
import type { Store } from '../api/routes/stores.ts';
import { CoreError } from '../errors.ts';
import type { JournalPort } from '../journal/port.ts';
import type { Logger } from '../log.ts';
import { OFFICE_CUSTOMER_LANG_SET } from './customer-lang.ts';
import {
  checkedPosterEmv,
  checkoutDesc,
  maskAddress,
  modeConfig,
  newStoreBody,
  officeError,
  requireWalletConfirmation,
  clearedStore,
  storePatch,
  walletChoices,
  type OptionalStoreField,
  type StoreField,
  type StoreForm,
  type WalletChoice,
} from './rules.ts';

/**
 * The manager's back office (issue 10): stores, checkouts, their wallets and modes, and
 * the printed QR posters, over the service's administration API (reference 4.1–4.4). Every
 * change is journaled after the service confirmed it, in the name of the manager who did it.
 */
export const OFFICE_STORE_CREATED = 'office.store_created';
export const OFFICE_STORE_CHANGED = 'office.store_changed';
export const OFFICE_CHECKOUT_CREATED = 'office.checkout_created';
export const OFFICE_WALLET_CHANGED = 'office.checkout_wallet_changed';
export const OFFICE_PRINTED_QR = 'office.printed_qr';
export const OFFICE_MODE_SET = 'office.checkout_mode_set';
/** Entries a person does, which must say who (`data.by`). */
export const OFFICE_PERSON_ACTIONS = [OFFICE_STORE_CREATED, OFFICE_STORE_CHANGED, OFFICE_CHECKOUT_CREATED, OFFICE_WALLET_CHANGED, OFFICE_PRINTED_QR, OFFICE_MODE_SET, OFFICE_CUSTOMER_LANG_SET] as const;

export interface OfficeCheckout {
  store_id: number;
  checkout_id: number;
  checkout_desc: string;
  wallet_id: number;
  /** The wallet's address, masked; null when the wallet is not in the merchant's list. */
  wallet_address: string | null;
  mode: 'printed' | 'dynamic';
  /** Whether the checkout has a printed QR (reference 4.4 listing). */
  printed_qr: boolean;
}

export interface Poster {
  store_id: number;
  checkout_id: number;
  store_name: string;
  checkout_desc: string;
  printed_dynamic_qr_id: string;
  /** CRC-checked (rules.ts checkedPosterEmv) before it leaves the core. */
  qr_emvcode: string;
  /** The store's address (reference 2.1), printed under its name; null when it has none. */
  address: string | null;
  /** The language its customers read, the poster's (customer-lang.ts), whatever the manager's screen speaks. */
  lang: Lang;
}

export interface PrintedQrRow {
  store_id: number;
  store_name: string | null;
  checkout_id: number;
  checkout_desc: string | null;
  printed_dynamic_qr_id: string;
  address: string;
}

export interface PrintedQrList {
  total: number;
  page: number;
  page_size: number;
  rows: PrintedQrRow[];
}

export const PRINTED_QR_PAGE_SIZE = 20;

type CheckoutKey = { storeId: number; checkoutId: number };

export class BackOffice {
  readonly #client: ServiceClient;
  readonly #journal: JournalPort<object>;
  readonly #log: Logger;

  constructor(deps: { client: ServiceClient; journal: JournalPort<object>; clock: Clock; log: Logger }) {
    this.#client = deps.client;
    this.#journal = deps.journal;
    this.#log = deps.log;
  }

  /** Every call's service error worded for a manager (rules.ts officeError). */
  async #service<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw officeError(err);
    }
  }

  async #record(type: string, data: Record<string, string | number | boolean | null>): Promise<void> {
    await this.#journal.append([{ type, data }]);
    this.#log.info('back office', { type, ...data });
  }

  stores(): Promise<Store[]> {
    return this.#service(() => this.#client.listStores());
  }

  async createStore(by: string, form: StoreForm): Promise<Store> {
    const body = newStoreBody(form);
    const store = await this.#service(() => this.#client.createStore(body));
    await this.#record(OFFICE_STORE_CREATED, { by, store_id: store.store_id, store_name: store.store_name });
    return store;
  }

  /**
   * Reference 4.1 through rules.ts storePatch; `kept`: the fields left empty, which keep their
   * value; `cleared`: the optional fields the edit emptied, checked absent in the service's
   * answer (rules.ts clearedStore) and absent (null) in the store returned.
   */
  async changeStore(by: string, storeId: number, form: StoreForm): Promise<{ store: Store; kept: StoreField[]; cleared: OptionalStoreField[] }> {
    const current = (await this.stores()).find((s) => s.store_id === storeId);
    if (current === undefined) throw new CoreError('not_found', 'The payment service does not have that store for this merchant; reload the list.', { problem: 'office_not_found' });
    const { patch, kept, cleared } = storePatch(current, form);
    if (Object.keys(patch).length === 0) return { store: current, kept, cleared };
    const answer = await this.#service(() => this.#client.patchStore(storeId, patch));
    // Journaled as the service took it, before the answer is judged: what was sent was saved.
    await this.#record(OFFICE_STORE_CHANGED, { by, store_id: storeId, fields: Object.keys(patch).join(','), cleared: cleared.join(',') });
    return { store: clearedStore(answer, cleared), kept, cleared };
  }

  async wallets(): Promise<WalletChoice[]> {
    return walletChoices(await this.#service(() => this.#client.listWallets()));
  }

  async checkouts(storeId: number): Promise<OfficeCheckout[]> {
    const [checkouts, wallets, printed] = await Promise.all([
      this.#service(() => this.#client.listCheckouts(storeId)),
      this.#service(() => this.#client.listWallets()),
      this.#printedQrsOf(storeId),
    ]);
    const address = new Map(wallets.map((w) => [w.wallet_id, maskAddress(w.address)]));
    return checkouts.map((c) => ({
      store_id: c.store_id,
      checkout_id: c.checkout_id,
      checkout_desc: c.checkout_desc,
      wallet_id: c.wallet_id,
      wallet_address: address.get(c.wallet_id) ?? null,
      mode: c.mode,
      printed_qr: printed.has(c.checkout_id),
    }));
  }

  /** The store's checkouts that have a printed QR, with it (every page of the listing). */
  async #printedQrsOf(storeId: number, checkoutId?: number): Promise<Map<number, { printed_dynamic_qr_id: string; qr_emvcode: string; checkout_desc: string | null; store_name: string | null }>> {
    const found = new Map<number, { printed_dynamic_qr_id: string; qr_emvcode: string; checkout_desc: string | null; store_name: string | null }>();
    for (let page = 1; ; page++) {
      const answer = await this.#service(() => this.#client.listPrintedQrs({ store_id: storeId, ...(checkoutId === undefined ? {} : { checkout_id: checkoutId }), page, page_size: 100 }));
      for (const s of answer.stores) {
        if (s.store_id !== storeId) continue;
        for (const c of s.checkouts) {
          const qr = c.printed_dynamic_qrs[0];
          if (qr !== undefined && !found.has(c.checkout_id)) found.set(c.checkout_id, { ...qr, checkout_desc: c.checkout_desc, store_name: s.store_name });
        }
      }
      if (page * answer.page_size >= answer.total || answer.stores.length === 0) return found;
    }
  }

  async addCheckout(by: string, input: { storeId: number; description: string; walletId: number }): Promise<OfficeCheckout> {
    const desc = checkoutDesc(input.description);
    const record = await this.#service(() => this.#client.createCheckout(input.storeId, { checkout_desc: desc, wallet_id: input.walletId }));
    await this.#record(OFFICE_CHECKOUT_CREATED, { by, store_id: record.store_id, checkout_id: record.checkout_id, wallet_id: record.wallet_id });
    return this.#one(record.store_id, record.checkout_id);
  }

  /** Reference 4.2: PATCH is the only way, and every later payment (older QRs included) settles to the new wallet. */
  async changeWallet(by: string, input: CheckoutKey & { walletId: number; confirmed: boolean }): Promise<OfficeCheckout> {
    requireWalletConfirmation(input.confirmed);
    const before = await this.#one(input.storeId, input.checkoutId);
    const record = await this.#service(() => this.#client.patchCheckout(input.storeId, input.checkoutId, { wallet_id: input.walletId }));
    await this.#record(OFFICE_WALLET_CHANGED, { by, store_id: input.storeId, checkout_id: input.checkoutId, from_wallet_id: before.wallet_id, wallet_id: record.wallet_id });
    return this.#one(input.storeId, input.checkoutId);
  }

  async #one(storeId: number, checkoutId: number): Promise<OfficeCheckout> {
    const found = (await this.checkouts(storeId)).find((c) => c.checkout_id === checkoutId);
    if (found === undefined) throw new CoreError('not_found', 'The payment service does not have that checkout for this merchant; reload the list.', { problem: 'office_not_found' });
    return found;
  }

  /**
   * Print QR poster (reference 4.4): creates the checkout's printed QR if it has none, with
   * auto_create_checkout so the checkout is switched to printed mode only once the QR exists
   * (rules 2, 5); 200 is the QR it already had, 201 a new one. The checkout's wallet as the
   * manager saw it is sent: if it was moved meanwhile, the service's 409 (rule 3) says so. A
   * 502 created nothing and repeating completes it (rule 5); 503 and a gateway without
   * printed QRs (rule 6) are sentences, and the checkout stays as it was.
   */
  async printQr(by: string, key: CheckoutKey, lang: Lang): Promise<Poster & { created: boolean }> {
    const { checkout, qr } = await this.#makePrintedQr(by, key);
    const store = (await this.stores()).find((s) => s.store_id === key.storeId);
    return {
      store_id: key.storeId,
      checkout_id: key.checkoutId,
      store_name: store?.store_name ?? '',
      checkout_desc: checkout.checkout_desc,
      printed_dynamic_qr_id: qr.printed_dynamic_qr_id,
      qr_emvcode: checkedPosterEmv(qr.qr_emvcode),
      address: store?.address || null,
      lang,
      created: qr.created,
    };
  }

  async #makePrintedQr(by: string, key: CheckoutKey) {
    const checkout = await this.#one(key.storeId, key.checkoutId);
    const qr = await this.#service(() =>
      this.#client.createPrintedQr({ checkout_id: key.checkoutId, store_id: key.storeId, auto_create_checkout: true, wallet_id: checkout.wallet_id }),
    );
    await this.#record(OFFICE_PRINTED_QR, { by, store_id: key.storeId, checkout_id: key.checkoutId, printed_dynamic_qr_id: qr.printed_dynamic_qr_id, created: qr.created });
    return { checkout, qr };
  }

  /** The poster of a checkout that has its printed QR, read without changing anything. */
  async poster(key: CheckoutKey, lang: Lang): Promise<Poster> {
    const qr = (await this.#printedQrsOf(key.storeId, key.checkoutId)).get(key.checkoutId);
    if (qr === undefined) throw new CoreError('not_found', 'This checkout has no printed QR yet: print its QR poster first.', { problem: 'mode_needs_printed_qr' });
    const checkout = await this.#one(key.storeId, key.checkoutId);
    const store = (await this.stores()).find((s) => s.store_id === key.storeId);
    return {
      store_id: key.storeId,
      checkout_id: key.checkoutId,
      store_name: qr.store_name ?? store?.store_name ?? '',
      checkout_desc: checkout.checkout_desc,
      printed_dynamic_qr_id: qr.printed_dynamic_qr_id,
      qr_emvcode: checkedPosterEmv(qr.qr_emvcode),
      address: store?.address || null,
      lang,
    };
  }

  /** Use printed QR / Use dynamic QR (reference 4.3); printed mode without a printed QR is refused (rules.ts modeConfig). */
  async setMode(by: string, input: CheckoutKey & { mode: 'printed' | 'dynamic' }): Promise<OfficeCheckout> {
    const has = input.mode === 'printed' ? (await this.#printedQrsOf(input.storeId, input.checkoutId)).has(input.checkoutId) : false;
    const config = modeConfig(input.mode, has);
    await this.#service(() => this.#client.setConfig(input.storeId, input.checkoutId, config));
    await this.#record(OFFICE_MODE_SET, { by, store_id: input.storeId, checkout_id: input.checkoutId, mode: input.mode });
    return this.#one(input.storeId, input.checkoutId);
  }

  /** The Printed QRs list, a page at a time. */
  async printedQrs(page: number): Promise<PrintedQrList> {
    const answer = await this.#service(() => this.#client.listPrintedQrs({ page, page_size: PRINTED_QR_PAGE_SIZE }));
    const rows: PrintedQrRow[] = [];
    for (const s of answer.stores) {
      for (const c of s.checkouts) {
        for (const qr of c.printed_dynamic_qrs) {
          rows.push({ store_id: s.store_id, store_name: s.store_name, checkout_id: c.checkout_id, checkout_desc: c.checkout_desc, printed_dynamic_qr_id: qr.printed_dynamic_qr_id, address: qr.address });
        }
      }
    }
    return { total: answer.total, page: answer.page, page_size: answer.page_size, rows };
  }

  /**
   * What a start-up may ask (the embedded sandbox's first start, electron/compose.ts): the
   * checkout's printed QR made through Print QR poster, unless it has one already, so that a
   * manager's later Use dynamic QR is never undone by a restart.
   */
  async ensurePrintedQr(by: string, key: CheckoutKey): Promise<void> {
    if ((await this.#printedQrsOf(key.storeId, key.checkoutId)).has(key.checkoutId)) return;
    await this.#makePrintedQr(by, key);
  }
}
