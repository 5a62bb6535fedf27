import { describe, expect, it } from 'vitest';
import { decodeWireAmount } from '../../shared/money.ts';
import { DecodeError } from '../api/decode.ts';
import { ROUTES } from '../api/routes.ts';
import { readWebhook } from '../terminal/webhook-events.ts';
import { reduceSale, SALE_LIFETIME_MS } from './lifecycle.ts';
import type { PaymentReceived, Sale, SaleEvent } from './lifecycle.ts';

/**
 * One wire amount, three ways into the app: the 201 of create_dynamic_pix (API client), a
 * charge.paid webhook (webhook reader, then the lifecycle) and a Tx Status answer (API client,
 * then the lifecycle). Each starts from the JSON text the service would send and goes through
 * the modules the app runs; all three must read the same cents, or refuse alike. Before issue
 * 13 the client read "12.500" as 12.50 while the lifecycle refused it: a payment on one path,
 * a mismatch on the other.
 */

const T0 = Date.UTC(2026, 10, 21, 13, 45, 0);
const PAID_AT = '2026-11-21T13:46:30.000Z';

/** Raw JSON of `amount_brl`, exactly as it would stand in the body. */
const WIRE_VALUES: ReadonlyArray<readonly [json: string, cents: number | null]> = [
  ['"12.50"', 1250],
  ['"12.5"', 1250],
  ['12.5', 1250],
  ['12.50', 1250],
  ['1.25e1', 1250],
  ['1250e-2', 1250],
  ['"12.500"', null],
  ['" 12.50"', null],
  ['"12.50 "', null],
  ['"+12.5"', null],
  ['"1e3"', null],
  ['"12,50"', null],
  ['"0x10"', null],
  ['"-12.50"', null],
  ['-12.5', null],
  ['12.505', null],
  ['1e21', null],
  ['""', null],
  ['"NaN"', null],
  ['null', null],
  ['true', null],
];

function saleCreatedFor(expectedCents: number): SaleEvent[] {
  return [
    { type: 'sale.requested', sale_id: 's1', idempotency_key: 'k1', store_id: 1, checkout_id: 1, seq: 1, amount_cents: expectedCents, requested_by: 'ana', at: T0 },
    {
      type: 'sale.created',
      sale_id: 's1',
      pix_id: 'pix_1',
      service_id: 'svc_1',
      qr_type: 'dynamic',
      emv: 'EMV',
      pqr_emv: null,
      amount_brl: '12.50',
      store_id: 1,
      checkout_id: 1,
      created_at: T0 + 1_000,
      expires_at: T0 + 1_000 + SALE_LIFETIME_MS,
      at: T0 + 1_000,
    },
  ];
}

function saleAfter(report: PaymentReceived): Sale {
  let sale: Sale | undefined;
  for (const e of [...saleCreatedFor(1250), report]) sale = reduceSale(sale, e);
  if (!sale) throw new Error('the events made no sale');
  return sale;
}

function byWebhook(json: string): Sale {
  const payload = JSON.parse(`{"event":"charge.paid","pix_id":"pix_1","service_id":"svc_1","external_id":null,"amount_brl":${json},"paid_at":"${PAID_AT}","e2e_id":"E1","store_id":1,"checkout_id":1}`) as Record<string, unknown> & { event: string };
  const fact = readWebhook(payload, 'wh-1', T0 + 95_000);
  if (fact.kind !== 'payment') throw new Error(`charge.paid read as ${fact.kind}`);
  return saleAfter(fact.report);
}

function byTxStatus(json: string): Sale {
  const body: unknown = JSON.parse(`{"pix_id":"pix_1","service_id":"svc_1","status":"paid","amount_brl":${json},"paid_at":"${PAID_AT}","e2e_id":"E1"}`);
  const answer = ROUTES['sales.status'].decode(body, 200, { pix_id: 'pix_1' });
  if (!answer.found) throw new Error('Tx Status read as not found');
  // The terminal's report of a paid Tx Status answer (terminal.ts, poll): the amount as it came.
  return saleAfter({ type: 'payment.received', source: 'tx_status', pix_id: answer.pix_id, service_id: answer.service_id, amount_brl: answer.amount_brl, paid_at: Date.parse(PAID_AT), e2e_id: answer.e2e_id, at: T0 + 95_000 });
}

function byCreate(json: string): number | null {
  const body: unknown = JSON.parse(
    `{"pix_id":"pix_1","service_id":"svc_1","operation_id":"op_1","qr_type":"dynamic","emv":"EMV","printed_dynamic_qr_data":null,"amount_brl":${json},"external_id":null,"store_id":1,"checkout_id":1,"created_at":"2026-11-21T13:45:00.000Z","expires_at":"2026-11-21T13:50:00.000Z"}`,
  );
  try {
    return ROUTES['sales.create'].decode(body, 201, { amount_cents: 1250 }).amount_cents;
  } catch (err) {
    if (err instanceof DecodeError) return null;
    throw err;
  }
}

describe('the same wire amount along every path', () => {
  it.each(WIRE_VALUES)('amount_brl %s reads as %s on the create, webhook and Tx Status paths', (json, cents) => {
    const webhook = byWebhook(json);
    const txStatus = byTxStatus(json);
    expect(webhook.payments.map((p) => p.received_cents)).toEqual([cents]);
    expect(txStatus.payments.map((p) => p.received_cents)).toEqual([cents]);
    expect(txStatus.paid?.amount_check).toBe(webhook.paid?.amount_check);
    expect(webhook.paid?.amount_check).toBe(cents === 1250 ? 'equal' : 'invalid');
    expect(txStatus.status).toBe(webhook.status);
    expect(byCreate(json)).toBe(cents);
    const decoded = decodeWireAmount(JSON.parse(json), { scale: 2 });
    expect(decoded.ok ? decoded.minor : null).toBe(cents);
  });
});
