import { describe, expect, it } from 'vitest';
import type { SaleView } from '../../electron/core/contract.ts';
import { attentionMessageKey, attentionSentence, formatParams, outcomeChanges, saleMessageKey, saleSentence } from './messages.ts';

const nbsp = (s: string) => s.replace(/\s/g, ' ');

describe('saleMessageKey / saleSentence', () => {
  it('picks the mismatch variant from the direction', () => {
    expect(saleMessageKey({ key: 'sale.amount_mismatch', params: { direction: 'under' } })).toBe('msg.sale.amount_mismatch.under');
    expect(saleMessageKey({ key: 'sale.amount_mismatch', params: { direction: 'over' } })).toBe('msg.sale.amount_mismatch.over');
    expect(saleMessageKey({ key: 'sale.amount_mismatch', params: { direction: 'weird' } })).toBe('msg.sale.amount_mismatch.invalid');
    expect(saleMessageKey({ key: 'sale.amount_mismatch', params: {} })).toBe('msg.sale.amount_mismatch.invalid');
  });
  it('formats cents as money in the language', () => {
    expect(saleSentence('en', { key: 'sale.amount_mismatch', params: { expected_cents: 1250, received_cents: 500, direction: 'under', amount_brl: '5.00' } })).toBe(
      'Expected R$12.50, received R$5.00: less than expected.',
    );
    expect(nbsp(saleSentence('pt-BR', { key: 'sale.paid', params: { amount_cents: 1000, received_cents: 1000, paid_at: null } }))).toBe('R$ 10,00 recebidos.');
  });
  it('says plainly not to collect twice when the newer sale is still open', () => {
    expect(
      nbsp(
        saleSentence('pt-BR', {
          key: 'sale.paid_late.newer_open',
          params: { expected_cents: 1000, received_cents: 1000, amount_matches: true, newer_sale_id: 'b', newer_amount_cents: 1200, newer_status: 'pending' },
        }),
      ),
    ).toBe('O cliente pagou R$ 10,00 na venda substituída; a venda mais nova de R$ 12,00 continua aberta — não cobre duas vezes.');
  });
  it('shows a dash for a missing amount rather than a placeholder or "null"', () => {
    expect(saleSentence('en', { key: 'sale.paid', params: { received_cents: null } })).toBe('— received.');
  });
});

describe('attention messages', () => {
  it('chooses the late-payment sentence by whether the newer sale is still open', () => {
    expect(attentionMessageKey({ key: 'attention.paid_late', params: { newer_open: true } })).toBe('attention.paid_late.newer_open');
    expect(attentionMessageKey({ key: 'attention.paid_late', params: { newer_open: false } })).toBe('attention.paid_late.closed');
    expect(attentionSentence('en', { key: 'attention.paid_late', params: { received_cents: 1000, expected_cents: 1000, newer_open: true } })).toContain(
      'R$10.00 on the displaced sale of R$10.00; the newer sale is still open — do not collect twice',
    );
  });
  it('passes every other key through', () => {
    expect(attentionMessageKey({ key: 'attention.extra_payment', params: {} })).toBe('attention.extra_payment');
  });
});

describe('formatParams', () => {
  it('formats *_cents as money and *_at as a time, keeps ids', () => {
    const out = formatParams('en', { amount_cents: 5, pix_id: 'pix_1', confirmed: true, nothing: null, paid_at: Date.UTC(2024, 0, 1, 12, 0, 0) });
    expect(out['amount_cents']).toBe('R$0.05');
    expect(out['pix_id']).toBe('pix_1');
    expect(out['nothing']).toBe('—');
    expect(String(out['paid_at'])).toMatch(/\d{1,2}:\d{2}:\d{2}/);
  });
});

describe('outcomeChanges', () => {
  const s = (id: string, status: SaleView['status']) => ({ sale_id: id, status }) as SaleView;
  const v = (...sales: SaleView[]) => ({ recent: sales, attention: [], newest: sales[0] ?? null });
  it('reports a sale reaching an outcome, and nothing on the first view', () => {
    expect(outcomeChanges(null, v(s('a', 'paid')))).toEqual([]);
    expect(outcomeChanges(v(s('a', 'pending')), v(s('a', 'paid')))).toEqual([{ sale_id: 'a', outcome: 'paid' }]);
    expect(outcomeChanges(v(s('a', 'paid')), v(s('a', 'paid')))).toEqual([]);
  });
  it('ignores a displacement and a new sale being created', () => {
    expect(outcomeChanges(v(s('a', 'pending')), v(s('b', 'requested'), s('a', 'displaced')))).toEqual([]);
  });
  it('reports a late payment on a displaced sale', () => {
    expect(outcomeChanges(v(s('b', 'pending'), s('a', 'displaced')), v(s('b', 'pending'), s('a', 'paid_late')))).toEqual([{ sale_id: 'a', outcome: 'paid_late' }]);
  });
});

describe('journal event details', () => {
  const details = { amount_cents: 1250, pix_id: 'pix_1', external_id: 'A-1', reason: null, source: 'webhook', evidence: null, note: null, related: 1 };
  it('words them in the cashier language', async () => {
    const { eventDetailsText } = await import('./messages.ts');
    expect(eventDetailsText('en', details)).toBe('amount R$12.50 · pix_id pix_1 · reference A-1 · via webhook · +1 related sale(s)');
    expect(nbsp(eventDetailsText('pt-BR', details))).toBe('valor R$ 12,50 · pix_id pix_1 · referência A-1 · via webhook · +1 venda(s) relacionada(s)');
    expect(eventDetailsText('es', { ...details, related: 0, note: 'turno' })).toContain('nota: turno');
  });
});
