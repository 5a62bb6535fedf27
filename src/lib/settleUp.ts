import type { AttentionMessage, SaleSummary } from '../../electron/core/contract.ts';

/**
 * What an attention item asks of the person in money (issue 26): how much to give back to the
 * customer or to collect from them, from the core's own params; null where the item is not
 * about money owed either way (or the amounts are not known).
 * - `give_back`: `cents` go back to the customer, by a refund of this sale (`refundable`:
 *   what is left to refund on it covers them, so the refund flow can take it);
 * - `if_paid_twice`: the same, only if the customer did pay twice, which the person checks;
 * - `collect`: the customer still owes `cents`, to be taken another way;
 * - `refunded`: refunds of this sale, made or still on their way, already cover the `cents`
 *   to give back: never offered again (a second refund would pay the customer twice).
 */
export type SettleUp =
  | { kind: 'give_back' | 'if_paid_twice'; cents: number; refundable: boolean }
  | { kind: 'collect'; cents: number }
  | { kind: 'refunded'; cents: number }
  | null;

/** Refunds that gave money back or may have: all but the ones the service refused. */
function refundedOrOnTheirWay(sale: Pick<SaleSummary, 'refunds'>): number {
  return sale.refunds.filter((r) => r.state !== 'refused').reduce((sum, r) => sum + (r.state === 'made' ? (r.refunded_cents ?? r.amount_cents) : r.amount_cents), 0);
}

function cents(params: AttentionMessage['params'], name: string): number | null {
  const value = params[name];
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null;
}

export function settleUp(sale: Pick<SaleSummary, 'refundable_cents' | 'refunds'>, item: Pick<AttentionMessage, 'key' | 'params'>): SettleUp {
  const received = cents(item.params, 'received_cents');
  const expected = cents(item.params, 'expected_cents');
  const giveBack = (kind: 'give_back' | 'if_paid_twice', amount: number): SettleUp => {
    const given = refundedOrOnTheirWay(sale);
    if (given >= amount) return { kind: 'refunded', cents: amount };
    const left = amount - given;
    return { kind, cents: left, refundable: sale.refundable_cents >= left };
  };
  switch (item.key) {
    case 'attention.amount_mismatch': {
      if (received === null || expected === null) return null;
      if (item.params['direction'] === 'over' && received > expected) return giveBack('give_back', received - expected);
      if (item.params['direction'] === 'under' && received < expected) return { kind: 'collect', cents: expected - received };
      return null;
    }
    case 'attention.paid_late':
      if (received === null) return null;
      // The newer sale of the same customer was paid too: this payment goes back whole.
      if (item.params['newer_paid'] === true) return giveBack('give_back', received);
      if (item.params['newer_known'] === false) return giveBack('if_paid_twice', received);
      return null;
    case 'attention.paid_withdrawn':
      return received !== null && item.params['newer_paid'] === true ? giveBack('give_back', received) : null;
    case 'attention.paid_after_expiry':
      return received === null ? null : giveBack('if_paid_twice', received);
    default:
      return null;
  }
}
