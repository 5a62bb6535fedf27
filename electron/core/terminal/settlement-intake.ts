import type { JournalEntry, Projection } from '../journal/port.ts';
import type { AcceptOutcome, WebhookDelivery } from '../webhooks/receiver.ts';
import { SETTLEMENTS_LOCK, type TerminalContext } from './context.ts';

/** The settlement_ids journaled so far, kept by the journal as a checkpointed projection. */
export const SETTLED_PROJECTION = 'terminal.settled';
export const settledProjection: Projection<readonly number[]> = {
  initial: [],
  reduce: (ids: readonly number[], entry: JournalEntry) => {
    const id = entry.type === 'settlement.settled' ? entry.data.settlement_id : null;
    return typeof id === 'number' && !ids.includes(id) ? [...ids, id] : ids;
  },
};

/**
 * Settlement intake: `settlement.settled` webhooks journaled once per settlement_id
 * (reference 6.1: repeated deliveries with the same settlement_id are no-ops after the
 * first, whatever their webhook-id).
 */
export class SettlementIntake {
  readonly #ctx: TerminalContext;
  /** settlement_ids already journaled, read from the journal's projection on first use. */
  #settled: Set<number> | null = null;

  constructor(ctx: TerminalContext) {
    this.#ctx = ctx;
  }

  /** One at a time, so two deliveries at once journal it once. */
  async record(delivery: WebhookDelivery, settlementId: number | null): Promise<AcceptOutcome> {
    const { journal, locks } = this.#ctx;
    const entry = { type: 'settlement.settled', data: { settlement_id: settlementId, payload: delivery.payload } };
    if (settlementId === null) return journal.recordWebhook(delivery.webhookId, entry);
    return locks.exclusive(SETTLEMENTS_LOCK, async () => {
      this.#settled ??= new Set(journal.projection<readonly number[]>(SETTLED_PROJECTION));
      if (this.#settled.has(settlementId)) return 'duplicate';
      const outcome = await journal.recordWebhook(delivery.webhookId, entry);
      this.#settled.add(settlementId);
      return outcome;
    });
  }
}
