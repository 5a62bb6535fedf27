import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../log.ts';
import { readPayload, startWebhookReceiver, type AcceptOutcome, type WebhookDelivery, type WebhookReceiver } from './receiver.ts';

/**
 * Webhooks taken at any core (a journal shared by several cores: PostgreSQL). A standby core,
 * which waits for the merchant's lease and writes no journal, still listens on its webhook
 * address: it verifies each delivery with the same receiver and commits it to the inbox
 * before answering 2xx. The active core applies the inbox in order through the path its own
 * receiver takes (Terminal.acceptWebhook), so a delivery that reached both cores is journaled
 * once (the journal keeps one entry per webhook-id).
 *
 * The port is the core's; the adapter beside the journal's keeps it (electron/postgres/inbox.ts).
 */
export interface InboxDelivery {
  webhookId: string;
  timestampSec: number;
  event: string;
  /** The raw body, the bytes the signature covered. */
  body: Buffer;
}

export interface InboxRow extends Omit<InboxDelivery, 'event'> {
  /** The inbox's order: rows are applied by it. */
  id: number;
}

/** What applying a row did: journaled now, already journaled, or a kept body that no longer reads. */
export type InboxOutcome = AcceptOutcome | 'unreadable';

export interface WebhookInbox {
  /** Commits a verified delivery: 'duplicate' (and nothing changes) when its webhook-id is already in. */
  put(delivery: InboxDelivery, receivedAt: number): Promise<AcceptOutcome>;
  /** The oldest rows not applied yet, in the inbox's order. */
  pending(limit: number): Promise<InboxRow[]>;
  /** Marks a row applied, with what applying it did. */
  applied(id: number, outcome: InboxOutcome, at: number): Promise<void>;
  /** Rows not applied yet. */
  depth(): Promise<number>;
  /** Calls `wake` when a row arrives, until the returned stop is called. */
  watch(wake: () => void): Promise<() => Promise<void>>;
}

/**
 * A standby's webhook address: the core's receiver (signature verified before anything else,
 * 4xx for what is invalid), committing each delivery to the inbox; 503 when the inbox cannot
 * take it (the database does not answer), so the service delivers again.
 */
export function startInboxReceiver(options: { host: string; port: number; secret: string; clock: Clock; log: Logger; inbox: WebhookInbox }): Promise<WebhookReceiver> {
  const { inbox, clock } = options;
  return startWebhookReceiver({
    host: options.host,
    port: options.port,
    secret: options.secret,
    clock,
    log: options.log,
    accept: (delivery, raw) => within(PUT_WAIT_MS, inbox.put({ webhookId: delivery.webhookId, timestampSec: delivery.timestampSec, event: delivery.payload.event, body: raw }, clock.now())),
  });
}

/**
 * How long a standby's delivery waits for the inbox: a database that hangs instead of refusing
 * gets the service a 503 to deliver again, not a request held open until it gives up. A row
 * committed after all is a duplicate at the next delivery.
 */
const PUT_WAIT_MS = 5_000;

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the webhook inbox did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Rows applied per read of the inbox. */
const BATCH = 50;
/** The slow look for rows a lost notice did not announce. */
export const INBOX_POLL_MS = 5_000;
/** After a row could not be applied (the journal refused it): the next try. */
const RETRY_MS = 2_000;

export interface InboxApplierOptions {
  inbox: WebhookInbox;
  /** The path a received webhook takes (Terminal.acceptWebhook): resolves once the journal holds it. */
  accept: (delivery: WebhookDelivery) => Promise<AcceptOutcome>;
  clock: Clock;
  log: Logger;
  pollMs?: number;
}

/**
 * The active core's side: applies the inbox's rows in order, each marked applied only after
 * `accept` resolved (the journal made it durable). A row that fails stops the pass: it is
 * tried again first, never skipped, as the service would deliver it again. Woken by the
 * inbox's notices, and by a slow poll should one be lost; the first pass drains what was
 * left before this core took over.
 */
export class InboxApplier {
  readonly #o: InboxApplierOptions;
  #stopWatching: (() => Promise<void>) | null = null;
  #timer: NodeJS.Timeout | null = null;
  #draining: Promise<void> | null = null;
  #again = false;
  #stopped = false;
  #failing = false;

  constructor(options: InboxApplierOptions) {
    this.#o = options;
  }

  async start(): Promise<void> {
    this.#stopped = false;
    try {
      this.#stopWatching = await this.#o.inbox.watch(() => this.wake());
    } catch (err) {
      // The slow poll still finds every row.
      this.#o.log.warn('could not listen for the webhook inbox; it is read every few seconds instead', { error: err });
    }
    this.#schedule(0);
  }

  /** A row arrived (or may have): one pass now, or right after the one under way. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#draining) {
      this.#again = true;
      return;
    }
    this.#draining = this.#drain().finally(() => {
      this.#draining = null;
      if (this.#again && !this.#stopped) {
        this.#again = false;
        this.wake();
      }
    });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#stopWatching?.().catch(() => undefined);
    this.#stopWatching = null;
    await this.#draining;
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.wake();
    }, ms);
    this.#timer.unref();
  }

  async #drain(): Promise<void> {
    const { inbox, accept, clock, log } = this.#o;
    let next = this.#o.pollMs ?? INBOX_POLL_MS;
    try {
      for (;;) {
        if (this.#stopped) return;
        const rows = await inbox.pending(BATCH);
        for (const row of rows) {
          if (this.#stopped) return;
          const payload = readPayload(row.body);
          let outcome: InboxOutcome;
          if (typeof payload === 'string') {
            // It was verified and read when it was taken: only a damaged row reads so now.
            log.error('a webhook kept in the inbox no longer reads as an event; it is not applied', { webhookId: row.webhookId, reason: payload });
            outcome = 'unreadable';
          } else {
            outcome = await accept({ webhookId: row.webhookId, timestampSec: row.timestampSec, payload });
          }
          await inbox.applied(row.id, outcome, clock.now());
        }
        if (rows.length < BATCH) break;
      }
      if (this.#failing) log.info('the webhook inbox is applied again');
      this.#failing = false;
    } catch (err) {
      // Once per streak: a core that stepped down, or whose journal is down, tries every few seconds.
      if (!this.#failing) log.warn('a webhook from the inbox could not be applied yet; trying again every few seconds', { error: err });
      this.#failing = true;
      next = RETRY_MS;
    }
    this.#schedule(next);
  }
}
