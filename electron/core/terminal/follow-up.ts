import { ServiceError } from '../api/errors.ts';
import { EXPIRY_GRACE_MS, openSales, planTxStatus, type FollowUp } from '../sales/checkout.ts';
import type { Sale } from '../sales/lifecycle.ts';
import type { Charging } from './charging.ts';
import { checkoutOf, keyOf, planningSales, type CheckoutKey, type TerminalContext } from './context.ts';
import { saleFact } from './entries.ts';
import type { PaymentIntake } from './payment-intake.ts';

/**
 * Follow-up polling: every open sale the journal holds is followed to its end. Creates resent
 * after a crash or a lost answer, and Tx Status as the fallback when no webhook comes,
 * bounded per checkout and backing off while the sale stays pending. A sale past its expiry
 * is closed only by its last read, made a minute after expires_at (issue 24: a payment just
 * before expiry is found), and a sale our newer sale displaced is read once (checkout.ts).
 */
export interface PollPolicy {
  /** How often the follow-up loop runs. */
  tickMs: number;
  /** First Tx Status this long after a sale is created: a webhook usually comes first. */
  firstPollMs: number;
  /** Growth of the interval after each "still pending", up to maxIntervalMs. */
  growth: number;
  maxIntervalMs: number;
  /** After a failed poll. */
  errorIntervalMs: number;
  /** Bound on Tx Status requests: at most one per checkout per tick. */
  perCheckoutPerTick: number;
}

/**
 * The statuses the follow-up polls: the journal keeps every such sale in its working set
 * (core.ts passes these as openStatuses), so byStatus of them never reads history.
 */
export const FOLLOWED_STATUSES: readonly string[] = ['requested', 'pending', 'withdrawn', 'uncertain'];

export const DEFAULT_POLL: PollPolicy = {
  tickMs: 1_000,
  firstPollMs: 3_000,
  growth: 1.5,
  maxIntervalMs: 30_000,
  errorIntervalMs: 10_000,
  perCheckoutPerTick: 1,
};

interface PollState {
  nextAt: number;
  intervalMs: number;
}

export class FollowUpLoop {
  readonly #ctx: TerminalContext;
  readonly #charging: Charging;
  readonly #payments: PaymentIntake;
  readonly #poll: PollPolicy;
  readonly #pollState = new Map<string, PollState>();
  /** Creates resent by the loop and not awaited by it (see #perform). */
  readonly #resends = new Set<Promise<unknown>>();
  #timer: NodeJS.Timeout | null = null;
  #ticking: Promise<void> | null = null;
  #stopped = false;

  /** Further open work each pass resumes (the refunds left unanswered: refunding.ts). */
  readonly #alsoFollow: () => Promise<void>;

  constructor(ctx: TerminalContext, charging: Charging, payments: PaymentIntake, poll: PollPolicy, alsoFollow: () => Promise<void> = async () => {}) {
    this.#ctx = ctx;
    this.#alsoFollow = alsoFollow;
    this.#charging = charging;
    this.#payments = payments;
    this.#poll = poll;
  }

  start(): void {
    this.#stopped = false;
    this.#timer = setInterval(() => void this.tick(), this.#poll.tickMs);
    this.#timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#ticking;
    await Promise.allSettled([...this.#resends]);
  }

  /** Sales with a Tx Status schedule. */
  followed(): number {
    return this.#pollState.size;
  }

  /** One pass of the loop; exposed so tests can run it deterministically. */
  tick(): Promise<void> {
    if (this.#ticking) return this.#ticking;
    this.#ticking = this.#pass()
      .catch((err: unknown) => this.#ctx.log.error('following open sales failed; will try again', { error: err }))
      .finally(() => {
        this.#ticking = null;
      });
    return this.#ticking;
  }

  async #pass(): Promise<void> {
    const { journal, clock } = this.#ctx;
    const open = new Map<string, CheckoutKey>();
    const openIds = new Set<string>();
    for (const status of FOLLOWED_STATUSES) {
      for (const row of await journal.sales.byStatus(status)) {
        const k = checkoutOf(row.sale);
        open.set(keyOf(k), k);
        openIds.add(row.sale.sale_id);
      }
    }
    const changed: CheckoutKey[] = [];
    for (const checkout of open.values()) {
      if (this.#stopped) return;
      const now = clock.now();
      const sales = await planningSales(journal, checkout);
      const followed = openSales(sales, now).filter((f) => f.how !== 'webhook_only');
      // A displaced sale still owed its one read keeps its schedule (see below).
      for (const f of followed) openIds.add(f.sale_id);
      const due = followed
        .map((f) => ({ f, at: this.#dueAt(f, sales, now) }))
        .filter((d) => d.at <= now)
        .sort((a, b) => a.at - b.at)
        .slice(0, this.#poll.perCheckoutPerTick);
      for (const { f } of due) {
        if (await this.#perform(f, checkout)) changed.push(checkout);
      }
    }
    // A sale paid by webhook, displaced or settled otherwise is no longer followed: its
    // schedule goes, so the map is never larger than the open sales.
    for (const saleId of this.#pollState.keys()) if (!openIds.has(saleId)) this.#pollState.delete(saleId);
    if (changed.length > 0) this.#ctx.onChange(changed);
    if (!this.#stopped) await this.#alsoFollow();
  }

  #dueAt(f: FollowUp, sales: readonly Sale[], now: number): number {
    const state = this.#pollState.get(f.sale_id);
    if (state) return state.nextAt;
    const sale = sales.find((s) => s.sale_id === f.sale_id);
    // A create interrupted by a crash is resumed at once; a new sale is first left to its webhook.
    if (f.how !== 'tx_status') return now;
    return (sale?.created?.created_at ?? now) + this.#poll.firstPollMs;
  }

  #schedule(saleId: string, outcome: 'pending' | 'error'): void {
    const prev = this.#pollState.get(saleId)?.intervalMs ?? this.#poll.firstPollMs;
    const intervalMs = outcome === 'error' ? this.#poll.errorIntervalMs : Math.min(prev * this.#poll.growth, this.#poll.maxIntervalMs);
    this.#pollState.set(saleId, { nextAt: this.#ctx.clock.now() + intervalMs, intervalMs });
  }

  /** Carries out one follow-up; true when it journaled something. */
  async #perform(f: FollowUp, checkout: CheckoutKey): Promise<boolean> {
    const { journal, clock, log, locks } = this.#ctx;
    switch (f.how) {
      case 'retry_create': {
        this.#schedule(f.sale_id, 'error');
        // Not awaited: a create the service holds for its whole deadline must not stall the
        // other checkouts' polling and expiry. Still one create in flight per checkout:
        // Charging holds one per sale, sends only the checkout's newest sale, and a charge
        // waits while that one is in flight. Charging announces its own outcome.
        const retry = this.#charging.create(f.sale_id, true).catch((err: unknown) => log.error('resending a sale create failed; will try again', { saleId: f.sale_id, error: err }));
        this.#resends.add(retry);
        void retry.finally(() => this.#resends.delete(retry));
        return false;
      }
      case 'mark_uncertain': {
        await locks.exclusive(keyOf(checkout), async () => {
          const row = await journal.sales.get(f.sale_id);
          if (row?.sale.status !== 'requested') return;
          await journal.append([saleFact([{ type: 'sale.create_uncertain', sale_id: f.sale_id, reason: 'interrupted', attempts: 0, at: clock.now() }])]);
        });
        return true;
      }
      case 'tx_status':
        return this.#pollTxStatus(f.sale_id, f.pix_id, checkout);
      case 'webhook_only':
        return false;
    }
  }

  async #pollTxStatus(saleId: string, pixId: string, checkout: CheckoutKey): Promise<boolean> {
    const { journal, client, clock, log, locks, stats } = this.#ctx;
    stats.polls++;
    // Issue 24: the last read is one made a minute past expires_at, so its time is when it was sent.
    const sentAt = clock.now();
    let answer;
    try {
      answer = await client.txStatus(pixId, { deadlineMs: 8_000 });
    } catch (err) {
      stats.pollErrors++;
      this.#schedule(saleId, 'error');
      log.warn('Tx Status failed; will poll again', err instanceof ServiceError ? err.logFields() : { error: err });
      return false;
    }
    if (answer.found && (answer.status === 'paid' || answer.status === 'refunded')) {
      await this.#payments.recordTxStatus(answer);
      this.#pollState.delete(saleId);
      return true;
    }
    if (answer.found && answer.status === 'pending') {
      this.#schedule(saleId, 'pending');
      return false;
    }
    // Expired, or TX not found (contract 3: a displaced sale).
    const now = clock.now();
    return locks.exclusive(keyOf(checkout), async () => {
      const row = await journal.sales.get(saleId);
      if (!row) return false;
      const events = planTxStatus(row.sale, answer.found ? 'expired' : 'not_found', sentAt);
      if (events.length === 0) {
        this.#schedule(saleId, 'pending');
        // Expired, but read too early to be the last read: read again exactly when it is due.
        const lastReadAt = (row.sale.created?.expires_at ?? now) + EXPIRY_GRACE_MS;
        const state = this.#pollState.get(saleId);
        if (answer.found && state && lastReadAt > now && lastReadAt < state.nextAt) this.#pollState.set(saleId, { ...state, nextAt: lastReadAt });
        return false;
      }
      await journal.append([saleFact(events)]);
      this.#pollState.delete(saleId);
      return true;
    });
  }
}
