/**
 * The webhook inbox (core/webhooks/inbox.ts) in the table of migrations/0004_webhook_inbox.sql.
 * A put is one statement: the row under its UNIQUE webhook-id (a delivery already there is a
 * duplicate and changes nothing) and a notice on the channel, sent when it commits. The active
 * core listens on that channel on a connection of the pool's own (postgres reconnects it).
 */
import type { InboxDelivery, InboxOutcome, InboxRow, WebhookInbox } from '../core/webhooks/inbox.ts';
import type { AcceptOutcome } from '../core/webhooks/receiver.ts';
import type { Sql } from './connect.ts';
import { countRow, decodeRows, inboxRow } from './rows.ts';

export const INBOX_CHANNEL = 'pos_webhook_inbox';

export class PostgresWebhookInbox implements WebhookInbox {
  readonly #sql: Sql;
  /** This core's name in the lease: who took or applied a row. */
  readonly #holder: string;

  constructor(sql: Sql, holder: string) {
    this.#sql = sql;
    this.#holder = holder;
  }

  async put(delivery: InboxDelivery, receivedAt: number): Promise<AcceptOutcome> {
    const rows = await this.#sql`
      with i as (
        insert into webhook_inbox (webhook_id, timestamp_sec, event, body, received_at, received_by)
        values (${delivery.webhookId}, ${delivery.timestampSec}, ${delivery.event}, ${delivery.body}, ${receivedAt}, ${this.#holder})
        on conflict (webhook_id) do nothing
        returning id)
      select pg_notify(${INBOX_CHANNEL}, id::text) from i`;
    return rows.length === 1 ? 'recorded' : 'duplicate';
  }

  async pending(limit: number): Promise<InboxRow[]> {
    const rows = decodeRows(inboxRow, 'webhook_inbox', await this.#sql`select id, webhook_id, timestamp_sec, body from webhook_inbox where applied_at is null order by id limit ${limit}`);
    return rows.map((r) => ({ id: r.id, webhookId: r.webhook_id, timestampSec: r.timestamp_sec, body: r.body }));
  }

  async applied(id: number, outcome: InboxOutcome, at: number): Promise<void> {
    await this.#sql`update webhook_inbox set applied_at = ${at}, applied_by = ${this.#holder}, outcome = ${outcome} where id = ${id} and applied_at is null`;
  }

  async depth(): Promise<number> {
    const [row] = decodeRows(countRow, 'webhook_inbox', await this.#sql`select count(*) as count from webhook_inbox where applied_at is null`);
    return row?.count ?? 0;
  }

  async watch(wake: () => void): Promise<() => Promise<void>> {
    const listening = await this.#sql.listen(INBOX_CHANNEL, () => wake(), wake);
    return () => listening.unlisten();
  }
}
