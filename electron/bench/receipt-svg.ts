import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { saleReceipt } from '../core/receipts/receipt.ts';
import { receiptSheetSvg } from '../core/receipts/render.ts';
import { reduceSale, type Sale, type SaleEvent } from '../core/sales/lifecycle.ts';
import { runToExit } from './report.ts';

/**
 * Draws `docs/receipt.svg`, the receipt the README shows (`npm run docs:receipt`): one paid
 * sale, made by the lifecycle's own reducer from the events a till journals, drawn by the same
 * code that prints it. `receipt-svg.test.ts` keeps the committed picture equal to this.
 */
export const RECEIPT_SVG_FILE = fileURLToPath(new URL('../../docs/receipt.svg', import.meta.url));

const AT = Date.UTC(2026, 10, 27, 18, 42, 7);
const SALE = 'sale-docs';

const EVENTS: readonly SaleEvent[] = [
  { type: 'sale.requested', sale_id: SALE, idempotency_key: 'k-docs', store_id: 1, checkout_id: 2, seq: 1, amount_cents: 4_790, external_id: 'pedido-1042', requested_by: 'Ana Souza', at: AT },
  { type: 'sale.created', sale_id: SALE, pix_id: 'pix_docs', service_id: 'svc_docs', qr_type: 'printed_dynamic', emv: 'E', pqr_emv: 'P', created_at: AT + 800, expires_at: AT + 300_000, at: AT + 800 },
  { type: 'payment.received', source: 'webhook', webhook_id: 'wh_docs', pix_id: 'pix_docs', service_id: 'svc_docs', amount_brl: '47.90', paid_at: AT + 41_000, e2e_id: 'E18236120202611271842s04b7c9d2e1f', at: AT + 41_500 },
];

function exampleSale(): Sale {
  let sale: Sale | undefined;
  for (const event of EVENTS) sale = reduceSale(sale, event);
  if (!sale) throw new Error('the example sale has no record');
  return sale;
}

/** The example receipt as a sheet for a page (render.ts receiptSheetSvg), as the README shows it. */
export function exampleReceiptSvg(): string {
  const built = saleReceipt(exampleSale(), {
    lang: 'pt-BR',
    timeZone: 'America/Sao_Paulo',
    store: { store_id: 1, name: 'Padaria Pão Quente', address: 'Rua das Flores, 12 · Centro, São Paulo' },
    till: { store_id: 1, checkout_id: 2 },
  });
  if (!built.ok) throw new Error(`the example sale has no receipt: ${built.refusal}`);
  return receiptSheetSvg(built.receipt) + '\n';
}

if (import.meta.main) runToExit(() => writeFile(RECEIPT_SVG_FILE, exampleReceiptSvg()));
