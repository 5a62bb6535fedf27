import type { Lang } from '../../shared/lang.ts';
import type { FloorBoard } from '../board/board.ts';
import type { ClaimNotice, ClaimsDesk } from '../claims/desk.ts';
import type { EventHub } from '../events.ts';
import type { Logger } from '../log.ts';
import type { AuthStatus } from '../operators/operators.ts';
import { sameCanonical } from '../sales/order.ts';
import type { SettlementNotice } from '../settlements/reconciler.ts';
import type { CheckoutKey, Terminal } from '../terminal/terminal.ts';
import type { CheckoutView, SaleSummary, ScreenView } from '../terminal/views.ts';
import type { CoreStatus } from './status-board.ts';

/**
 * What a customer display may read of its checkout: the screen and whether the customer must
 * wait, in the language of the store's customers; nothing of other sales, alerts or people.
 */
export interface DisplayView {
  store_id: number;
  checkout_id: number;
  now: number;
  lang: Lang;
  screen: ScreenView;
  /** A payment on this checkout waits for a person: the customer is asked to wait. */
  hold: boolean;
}

/** Every sale of the merchant, on any checkout, that still needs a person: a supervisor's list. */
export interface AttentionView {
  items: SaleSummary[];
  /** MED claims whose status moved in the last day (issue 12). */
  claims: ClaimNotice[];
  /** Settlements that need a person until each difference is acknowledged (issue 11). */
  settlements: SettlementNotice[];
}

/**
 * Push events, core → renderer. The map IS the contract for `listen`. Each shell sends a
 * connection only what is its (routing.ts): its checkout's views, and the merchant's
 * attention list when a supervisor or a manager is signed in on it.
 */
export interface PushEvents {
  'core.status': CoreStatus;
  /** A checkout's sales changed: its new view, sent to that checkout's tills. */
  'checkout.changed': CheckoutView;
  /** A checkout's display state changed: sent to that checkout's tills and customer displays. */
  'display.changed': DisplayView;
  /** The merchant-wide list of sales needing a person changed: sent to supervisors and managers. */
  'attention.changed': AttentionView;
  /**
   * The core ended sign-ins (idle, an operator's PIN or role changed, disabled): every till
   * receives its own sign-in as it stands now, so a page signed out shows Sign in at once.
   */
  'auth.changed': AuthStatus;
  /** The floor board changed (issue 29): sent only to the sessions that opened it (board.view), coalesced. */
  'board.changed': FloorBoard;
}

export function toDisplayView(view: CheckoutView, lang: Lang): DisplayView {
  return { store_id: view.store_id, checkout_id: view.checkout_id, now: view.now, lang, screen: view.screen, hold: view.hold !== null };
}

const ATTENTION_COALESCE_MS = 250;

export interface CheckoutPushDeps {
  events: EventHub<PushEvents>;
  log: Logger;
  /** The terminal once the core is ready (it throws before). */
  terminal: () => Terminal;
  claims: () => ClaimsDesk | null;
  /** The language the checkout's customers read: its store's (backoffice/customer-lang.ts). */
  lang: (checkout: CheckoutKey) => Lang;
  ready: () => boolean;
  /** After views are pushed: what they changed in the status goes out too, coalesced. */
  afterPush: () => void;
}

/** The views each checkout's tills and displays are sent, and the merchant's attention list. */
export class CheckoutPush {
  readonly #d: CheckoutPushDeps;
  /**
   * The last checkout and display views pushed, per checkout: a change that leaves a view as
   * it was (a charge.done after its payment: a quarter of the pushes with 64 tills, issue 9)
   * is not pushed again. `now` aside, which every view carries.
   */
  readonly #pushed = new Map<string, { view: CheckoutView; display: DisplayView }>();
  #lastAttentionJson = '';
  #attentionTimer: NodeJS.Timeout | null = null;

  constructor(deps: CheckoutPushDeps) {
    this.#d = deps;
  }

  async displayView(checkout: CheckoutKey): Promise<DisplayView> {
    return toDisplayView(await this.#d.terminal().checkoutView(checkout), this.#d.lang(checkout));
  }

  /** Every sale of the merchant that needs a person, newest first. */
  async attention(): Promise<AttentionView> {
    return { items: await this.#d.terminal().attentionEverywhere(), claims: this.#d.claims()?.notices() ?? [], settlements: this.#d.terminal().reconciler.notices() };
  }

  async push(checkouts: readonly CheckoutKey[]): Promise<void> {
    const unique = new Map(checkouts.map((c) => [`${c.storeId}/${c.checkoutId}`, c]));
    for (const [key, checkout] of unique) {
      try {
        const view = await this.#d.terminal().checkoutView(checkout);
        const display = toDisplayView(view, this.#d.lang(checkout));
        const last = this.#pushed.get(key);
        this.#pushed.set(key, { view, display });
        if (last === undefined || !sameCanonical({ ...last.view, now: 0 }, { ...view, now: 0 })) this.#d.events.emit('checkout.changed', view);
        if (last === undefined || !sameCanonical({ ...last.display, now: 0 }, { ...display, now: 0 })) this.#d.events.emit('display.changed', display);
      } catch (err) {
        this.#d.log.warn('could not build a checkout view', { error: err });
      }
    }
    this.scheduleAttention();
    this.#d.afterPush();
  }

  /**
   * The merchant-wide list is read anew at most every ATTENTION_COALESCE_MS, however many
   * sales change meanwhile: a busy store's payments do not each rebuild it.
   */
  scheduleAttention(): void {
    if (this.#attentionTimer !== null) return;
    this.#attentionTimer = setTimeout(() => {
      this.#attentionTimer = null;
      if (this.#d.ready()) void this.#emitAttentionIfChanged();
    }, ATTENTION_COALESCE_MS);
    this.#attentionTimer.unref();
  }

  stop(): void {
    if (this.#attentionTimer !== null) clearTimeout(this.#attentionTimer);
    this.#attentionTimer = null;
  }

  async #emitAttentionIfChanged(): Promise<void> {
    try {
      const attention = await this.attention();
      const json = JSON.stringify([attention.items.map((s) => [s.sale_id, s.status, s.description.attention]), attention.claims.map((c) => [c.med_case_id, c.status]), attention.settlements.map((s) => [s.settlement_id, s.open])]);
      if (json === this.#lastAttentionJson) return;
      this.#lastAttentionJson = json;
      this.#d.events.emit('attention.changed', attention);
    } catch (err) {
      this.#d.log.warn('could not build the attention list', { error: err });
    }
  }
}
