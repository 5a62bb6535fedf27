/**
 * Webhook delivery (contract section 4): Standard Webhooks signatures, at-least-once, the
 * retry schedule on SANDBOX time, and the webhook faults of faults.ts.
 *
 * - Every event gets one webhook-id, identical on every retry; the body bytes are fixed when
 *   the event is enqueued; each attempt is signed with the attempt's own timestamp (sandbox
 *   clock, epoch seconds), so a retry an hour later is not refused as stale by a receiver
 *   that shares the sandbox clock.
 * - An attempt fails on a non-2xx answer or on no answer within 10 s of sandbox time (which
 *   is never longer than 10 real seconds, as the sandbox clock only moves forward). After a
 *   failure: 5 more attempts, 5 s, 30 s, 2 min, 10 min and 1 h after the previous failure.
 * - Up to `concurrency` attempts are under way at once (default 8; 1 sends one at a time).
 *   Contract 4 promises no order, so a receiver that is slow or failing for one event holds
 *   one slot, not the whole outbox. Attempts start in the order they became due, and the
 *   events of one sale (same pix_id) go one at a time, so charge.paid still precedes its
 *   charge.done when the receiver is healthy; so do the events a reorder fault releases, in
 *   the order it gives. Retries and delays make no promise.
 * - The outbox lives in the state, so pending deliveries survive a restart.
 *
 * S2 emits `settlement.settled` through ctx.webhooks.enqueueEvent.
 */
import { randomUUID } from 'node:crypto';
import { Agent } from 'undici';
import type { Clock } from '../shared/clock.ts';
import { webhookHeaders } from '../shared/standard-webhooks.ts';
import type { FaultBook } from './faults.ts';
import type { SandboxState, WebhookAttemptRecord, WebhookEventRecord } from './state.ts';
import { nextId } from './state.ts';
import type { SandboxTimers } from './timers.ts';

/** Contract 4: 5 more attempts after 5 s, 30 s, 2 min, 10 min and 1 h. */
export const RETRY_SCHEDULE_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 3_600_000];
/** Contract 4: no answer within 10 s is a failure. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** The attempt log keeps the newest entries only, so a long-running sandbox stays bounded. */
const MAX_ATTEMPT_LOG = 20_000;
/** Attempts under way at once unless the sandbox is told otherwise. */
export const DEFAULT_WEBHOOK_CONCURRENCY = 8;

/** What route modules (and S2) use to emit an event. */
export interface WebhookApi {
  /**
   * Queues `{event, ...payload}` for the merchant's configured endpoint and returns its
   * webhook-id. Never throws for delivery problems; delivery happens in the background.
   */
  enqueueEvent(merchantId: number, event: string, payload: object): string;
}

export interface WebhookDispatcherDeps {
  state: () => SandboxState;
  clock: Clock;
  timers: SandboxTimers;
  faults: FaultBook;
  persist: () => void;
  log: (line: string) => void;
  /** Attempts under way at once (DEFAULT_WEBHOOK_CONCURRENCY); 1 sends one at a time. */
  concurrency?: number;
}

/** An attempt waiting for a free slot. */
interface QueuedAttempt {
  record: WebhookEventRecord;
  duplicate: boolean;
  key: string;
}

type AttemptOutcome = { status: number; error: null } | { status: null; error: string };

export class WebhookDispatcher implements WebhookApi {
  readonly #deps: WebhookDispatcherDeps;
  readonly #concurrency: number;
  readonly #agent: Agent;
  readonly #inFlight = new Set<AbortController>();
  readonly #cancels = new Set<() => void>();
  /** Attempts due, oldest first, waiting for a slot (or for their sale's previous event). */
  #queue: QueuedAttempt[] = [];
  /** Order keys (a sale's pix_id) with an attempt under way. */
  readonly #busyKeys = new Set<string>();
  #active = 0;
  readonly #keys = new WeakMap<WebhookEventRecord, string>();
  /** Bumped by reset/close: answers to attempts of an older generation are ignored. */
  #generation = 0;
  #closed = false;
  /** Deliveries wait (queued, not sent) until resume(): the receiver is not listening yet. */
  #held = false;

  constructor(deps: WebhookDispatcherDeps) {
    this.#deps = deps;
    const concurrency = deps.concurrency ?? DEFAULT_WEBHOOK_CONCURRENCY;
    if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new Error(`webhook concurrency must be a whole number of at least 1, got ${concurrency}`);
    this.#concurrency = concurrency;
    // One connection per slot: an attempt never waits inside the agent, where its 10 s would
    // run. undici rather than node:http: at 64 tills the sandbox posts about a thousand
    // webhooks a second on the core's machine, and node:http's client took about 1.7 times
    // the CPU per POST (20,000 POSTs side by side on loopback, 2026-11-26).
    this.#agent = new Agent({ connections: concurrency });
  }

  enqueueEvent(merchantId: number, event: string, payload: object): string {
    const state = this.#deps.state();
    const now = this.#deps.clock.now();
    const webhookId = `msg_${randomUUID().replaceAll('-', '')}`;
    const record: WebhookEventRecord = {
      webhook_id: webhookId,
      merchant_id: merchantId,
      event,
      body: JSON.stringify({ event, ...payload }),
      created_at: now,
      attempts: 0,
      next_attempt_at: now,
      state: 'pending',
      duplicates: 0,
      seq: nextId(state, 'webhook_event'),
    };
    state.webhookEvents[webhookId] = record;
    // The order key from the payload at hand, not parsed back from the body just written.
    this.#keys.set(record, orderKey((payload as { pix_id?: unknown }).pix_id, webhookId));
    this.#deps.persist();
    if (!this.#held && this.#endpoint(record) === null) {
      record.state = 'no_endpoint';
      record.next_attempt_at = null;
      return webhookId;
    }
    let delayMs = 0;
    for (const fault of this.#deps.faults.takeWebhookFaults(event, webhookId)) {
      if (fault.fault === 'drop') record.state = 'dropped';
      else if (fault.fault === 'duplicate') record.duplicates += 1;
      else if (fault.fault === 'delay') delayMs = Math.max(delayMs, fault.delay_seconds * 1000);
      else if (fault.fault === 'reorder') {
        if (record.state !== 'dropped') record.state = 'held';
        // The fault is full: send what it gathered, newest first.
        if (fault.held.length >= fault.count) this.releaseHeld([...fault.held].reverse());
        return webhookId;
      }
    }
    if (record.state === 'dropped') {
      record.next_attempt_at = null;
      return webhookId;
    }
    if (delayMs > 0) this.#schedule(record, now + delayMs);
    else this.#sendFirst(record);
    return webhookId;
  }

  /**
   * Sends held events (a full reorder fault, or faults cleared) one at a time in the order
   * given: they share one order key, since the order is what the fault is about.
   */
  releaseHeld(webhookIds: readonly string[]): void {
    const state = this.#deps.state();
    const batch = `held:${webhookIds[0] ?? ''}`;
    for (const id of webhookIds) {
      const record = state.webhookEvents[id];
      if (record === undefined || record.state !== 'held') continue;
      record.state = 'pending';
      this.#sendFirst(record, batch);
    }
  }

  /** Until resume(): events are queued as pending and nothing is sent. */
  hold(): void {
    this.#held = true;
  }

  /** After loading a persisted state (or a hold): reschedule what was still to deliver. */
  resume(): void {
    this.#held = false;
    const state = this.#deps.state();
    const open = Object.values(state.webhookEvents)
      .filter((e) => e.state === 'pending' || e.state === 'in_flight' || e.state === 'held')
      .sort((a, b) => a.seq - b.seq);
    for (const record of open) {
      record.state = 'pending';
      this.#schedule(record, record.next_attempt_at ?? this.#deps.clock.now());
    }
  }

  /** Forgets every delivery under way (the state they belonged to is gone). */
  reset(): void {
    this.#generation += 1;
    for (const cancel of this.#cancels) cancel();
    this.#cancels.clear();
    for (const controller of this.#inFlight) controller.abort();
    this.#inFlight.clear();
    this.#queue = [];
    this.#busyKeys.clear();
    this.#active = 0;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.reset();
    await this.#agent.destroy();
  }

  #endpoint(record: WebhookEventRecord): { url: string; secret: string } | null {
    const endpoint = this.#deps.state().webhookEndpoints[String(record.merchant_id)];
    if (endpoint === undefined || endpoint.url === null) return null;
    return { url: endpoint.url, secret: endpoint.secret };
  }

  #sendFirst(record: WebhookEventRecord, key?: string): void {
    if (this.#held) {
      record.next_attempt_at = this.#deps.clock.now();
      return;
    }
    this.#enqueueAttempt(record, false, key);
  }

  #schedule(record: WebhookEventRecord, dueMs: number): void {
    record.next_attempt_at = dueMs;
    if (this.#held) return;
    const cancel = this.#deps.timers.at(dueMs, () => {
      this.#cancels.delete(cancel);
      this.#enqueueAttempt(record, false);
    });
    this.#cancels.add(cancel);
  }

  /** Every attempt (first, retry, duplicate copy) waits here for one of the slots. */
  #enqueueAttempt(record: WebhookEventRecord, duplicate: boolean, key = this.#orderKey(record)): void {
    if (this.#closed) return;
    this.#queue.push({ record, duplicate, key });
    this.#pump();
  }

  /** Starts queued attempts while a slot is free, oldest first, one per sale at a time. */
  #pump(): void {
    while (this.#active < this.#concurrency) {
      const index = this.#queue.findIndex((job) => !this.#busyKeys.has(job.key));
      if (index < 0) return;
      const [job] = this.#queue.splice(index, 1) as [QueuedAttempt];
      const generation = this.#generation;
      this.#active += 1;
      this.#busyKeys.add(job.key);
      void this.#attempt(job.record, job.duplicate)
        .catch((error: unknown) => this.#deps.log(`webhook ${job.record.webhook_id} attempt crashed: ${String(error)}`))
        .finally(() => {
          // reset() already forgot the slots of an older generation.
          if (generation !== this.#generation) return;
          this.#active -= 1;
          this.#busyKeys.delete(job.key);
          this.#pump();
        });
    }
  }

  /** A sale's events share a key (its pix_id), so they go out one at a time; others have their own. */
  #orderKey(record: WebhookEventRecord): string {
    let key = this.#keys.get(record);
    if (key === undefined) {
      let pixId: unknown;
      try {
        pixId = (JSON.parse(record.body) as { pix_id?: unknown }).pix_id;
      } catch {
        pixId = undefined;
      }
      key = orderKey(pixId, record.webhook_id);
      this.#keys.set(record, key);
    }
    return key;
  }

  async #attempt(record: WebhookEventRecord, duplicate: boolean): Promise<void> {
    if (this.#closed) return;
    const generation = this.#generation;
    const endpoint = this.#endpoint(record);
    if (endpoint === null) {
      record.state = 'no_endpoint';
      record.next_attempt_at = null;
      this.#deps.persist();
      return;
    }
    const now = this.#deps.clock.now();
    if (!duplicate) {
      record.attempts += 1;
      record.state = 'in_flight';
      record.next_attempt_at = null;
    }
    const row: WebhookAttemptRecord = {
      webhook_id: record.webhook_id,
      event: record.event,
      attempt: record.attempts,
      url: endpoint.url,
      status: null,
      at: new Date(now).toISOString(),
      error: null,
      duplicate,
    };
    const log = this.#deps.state().webhookAttempts;
    log.push(row);
    if (log.length > MAX_ATTEMPT_LOG) log.splice(0, log.length - MAX_ATTEMPT_LOG);
    let outcome: AttemptOutcome;
    try {
      const headers = webhookHeaders(endpoint.secret, record.webhook_id, Math.floor(now / 1000), record.body);
      outcome = await this.#post(endpoint.url, headers, record.body);
    } catch (error) {
      outcome = { status: null, error: error instanceof Error ? error.message : String(error) };
    }
    if (generation !== this.#generation) return;
    row.status = outcome.status;
    row.error = outcome.error;
    if (duplicate) return;
    if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
      record.state = 'delivered';
      if (record.duplicates > 0) {
        record.duplicates -= 1;
        this.#enqueueAttempt(record, true);
      }
    } else {
      const wait = RETRY_SCHEDULE_MS[record.attempts - 1];
      if (wait === undefined) {
        record.state = 'failed';
        this.#deps.log(`webhook ${record.webhook_id} (${record.event}) failed after ${record.attempts} attempts`);
      } else {
        record.state = 'pending';
        this.#schedule(record, this.#deps.clock.now() + wait);
      }
    }
    this.#deps.persist();
  }

  /** One POST; resolves with the status answered, or with the reason there was none. */
  #post(url: string, headers: Record<string, string>, body: string): Promise<AttemptOutcome> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve({ status: null, error: 'invalid_url' });
    }
    const secure = target.protocol === 'https:';
    if (!secure && target.protocol !== 'http:') return Promise.resolve({ status: null, error: 'unsupported_scheme' });
    const controller = new AbortController();
    this.#inFlight.add(controller);
    return new Promise<AttemptOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: AttemptOutcome): void => {
        if (settled) return;
        settled = true;
        this.#inFlight.delete(controller);
        this.#cancels.delete(cancelTimeout);
        cancelTimeout();
        resolve(outcome);
      };
      // Contract 4: 10 s without an answer is a failure (sandbox time, see the header).
      const cancelTimeout = this.#deps.timers.after(ATTEMPT_TIMEOUT_MS, () => {
        controller.abort();
        finish({ status: null, error: 'timeout' });
      });
      this.#cancels.add(cancelTimeout);
      this.#agent
        .request({
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          signal: controller.signal,
          headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'pix-sandbox-webhooks/1' },
          body,
        })
        .then((res) => {
          finish({ status: res.statusCode, error: null });
          res.body.dump().catch(() => undefined);
        })
        .catch((error: NodeJS.ErrnoException) => finish({ status: null, error: error.code ?? error.message }));
    });
  }
}

/** A sale's events (same pix_id) share their order key; an event of no sale has its own. */
function orderKey(pixId: unknown, webhookId: string): string {
  return typeof pixId === 'string' ? `pix:${pixId}` : `id:${webhookId}`;
}
