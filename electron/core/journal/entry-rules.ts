/**
 * What every journal adapter refuses before it writes, and how it journals one webhook-id
 * once while deliveries race: the port's rules, written once for every backend so that a
 * refusal reads the same on each.
 */
import { CHAIN_STARTED, CORE_TOOK_OVER, SHIFT_CLOSED, SHIFT_OPENED, type EntryInput } from './port.ts';

export const MAX_WEBHOOK_ID = 256;

/** An entry is {type, data}; an operator action (and a shift's open or close) says who in `data.by`. */
export function checkEntry(input: EntryInput, operatorActions: ReadonlySet<string>): void {
  if (input === null || typeof input !== 'object' || input.data === null || typeof input.data !== 'object') {
    throw new TypeError('an entry is {type, data} with data an object');
  }
  // Only operator actions give `by` a meaning here; other entry types may use the name
  // for something else (the sale that displaced this one, say).
  if (operatorActions.has(input.type) || input.type === SHIFT_OPENED || input.type === SHIFT_CLOSED) {
    const by = input.data.by;
    if (typeof by !== 'string' || by.trim() === '') throw new TypeError(`entry ${input.type} is an operator action: data.by must name the operator who did it`);
  }
}

/** What `append` refuses on top: the entries with a way of their own (webhooks, shifts, a new chain, a takeover). */
export function checkAppendable(input: EntryInput, operatorActions: ReadonlySet<string>): void {
  checkEntry(input, operatorActions);
  if (input.data.webhook_id !== undefined) throw new TypeError('data.webhook_id is reserved: journal webhooks with recordWebhook, which deduplicates them');
  if (input.type === SHIFT_OPENED || input.type === SHIFT_CLOSED) throw new TypeError('open and close shifts with openShift/closeShift, which check the shift');
  if (input.type === CHAIN_STARTED) throw new TypeError('a new chain is started with startNewChain, over a broken chain only');
  if (input.type === CORE_TOOK_OVER) throw new TypeError('a takeover is journaled by the shared journal that took the lease (SharedJournal.recordTakeover)');
}

/** A webhook's entry as recordWebhook journals it: the input, checked, with its webhook-id. */
export function webhookEntry(webhookId: string, input: EntryInput, operatorActions: ReadonlySet<string>): EntryInput {
  if (typeof webhookId !== 'string' || webhookId === '' || webhookId.length > MAX_WEBHOOK_ID) {
    throw new TypeError(`a webhook-id is a string of 1 to ${MAX_WEBHOOK_ID} characters`);
  }
  checkEntry(input, operatorActions);
  if (input.data.webhook_id !== undefined && input.data.webhook_id !== webhookId) throw new TypeError('data.webhook_id differs from the webhook-id');
  return { type: input.type, data: { ...input.data, webhook_id: webhookId } };
}

/**
 * One attempt at a time per webhook-id: a delivery that finds another under way waits for
 * it and is a duplicate if it journaled; if it failed, this one tries again.
 */
export class WebhookOnce {
  readonly #inFlight = new Map<string, Promise<'recorded' | 'duplicate'>>();

  async run(webhookId: string, attempt: () => Promise<'recorded' | 'duplicate'>): Promise<'recorded' | 'duplicate'> {
    for (;;) {
      const earlier = this.#inFlight.get(webhookId);
      if (earlier) {
        try {
          await earlier;
          return 'duplicate';
        } catch {
          // The earlier attempt was not journaled: this one tries again.
          if (this.#inFlight.get(webhookId) === earlier) this.#inFlight.delete(webhookId);
          continue;
        }
      }
      // Registered before the first await, so a concurrent call with the same id sees it;
      // it is dropped only once the entry can be found, where the next check finds it.
      const mine = attempt();
      this.#inFlight.set(webhookId, mine);
      try {
        return await mine;
      } finally {
        if (this.#inFlight.get(webhookId) === mine) this.#inFlight.delete(webhookId);
      }
    }
  }
}
