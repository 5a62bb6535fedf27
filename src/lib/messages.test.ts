import { describe, expect, it } from 'vitest';
import { LANGS, type SaleSummary } from '../../electron/core/contract.ts';
import { translate } from './i18n.ts';
import {
  attentionMessageKey,
  attentionSentence,
  brokenReasonText,
  codeText,
  eventTypeText,
  formatParams,
  journalProblemText,
  outcomeChanges,
  saleMessageKey,
  saleSentence,
  screenOutcome,
  screenSentence,
  statusWordKey,
} from './messages.ts';

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
    ).toBe('O cliente pagou R$ 10,00 na venda substituída de R$ 10,00; uma venda mais nova continua aberta — não cobre duas vezes.');
  });
  it('names no amount for the open sale: after two corrections the core names the sale in between', () => {
    for (const lang of LANGS) expect(translate(lang, 'msg.sale.paid_late.newer_open')).not.toContain('{newer_amount_cents}');
  });
  it('a refunded sale reads Refunded, not Paid, in every language, and says its money went back', () => {
    const words = { en: 'Refunded', 'pt-BR': 'Estornada', es: 'Reembolsada' } as const;
    for (const lang of LANGS) {
      expect(translate(lang, statusWordKey('refunded'))).toBe(words[lang]);
      expect(translate(lang, statusWordKey('refunded'))).not.toBe(translate(lang, statusWordKey('paid')));
    }
    expect(saleSentence('en', { key: 'sale.refunded', params: { amount_cents: 1000, received_cents: 1000, paid_at: null } })).toBe(
      'R$10.00 was received, then refunded to the customer: this sale brought no money.',
    );
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
  it('says plainly not to collect twice in every late-payment sentence, in every language', () => {
    const twice = { en: 'do not collect twice', 'pt-BR': 'não cobre duas vezes', es: 'no cobre dos veces' } as const;
    for (const lang of LANGS) {
      for (const open of [true, false]) {
        expect(attentionSentence(lang, { key: 'attention.paid_late', params: { received_cents: 1000, expected_cents: 1000, newer_open: open } }), `${lang} ${open}`).toContain(twice[lang]);
      }
      for (const key of ['sale.paid_late', 'sale.paid_late.newer_open'] as const) {
        expect(saleSentence(lang, { key, params: { received_cents: 1000, expected_cents: 1000 } }), `${lang} ${key}`).toContain(twice[lang]);
      }
    }
    expect(attentionSentence('en', { key: 'attention.paid_late', params: { received_cents: 1000, expected_cents: 1000, newer_open: false } })).toContain('the newer sale was not paid');
    expect(attentionSentence('en', { key: 'attention.paid_late', params: { received_cents: 1000, expected_cents: 1000, newer_open: false, newer_known: false } })).toContain('If the newer sale was paid too');
    expect(attentionSentence('en', { key: 'attention.paid_late', params: { received_cents: 1000, expected_cents: 1000, newer_paid: true } })).toContain('the customer has paid twice');
  });
  it('passes every other key through', () => {
    expect(attentionMessageKey({ key: 'attention.extra_payment', params: {} })).toBe('attention.extra_payment');
  });
});

describe('screenSentence', () => {
  const pending = {
    sale_id: 'a',
    status: 'pending',
    amount_cents: 500,
    received_cents: null,
    expires_at: 1,
    paid_at: null,
    description: { key: 'sale.pending', params: { amount_cents: 500, expires_at: 1 } },
  } as unknown as SaleSummary;
  it('follows the screen when it shows the sale expired before its status does', () => {
    expect(screenSentence('en', pending, 'expired')).toBe('Nobody paid R$5.00 within 5 minutes. Charge again if the customer still wants to pay.');
    expect(screenSentence('en', pending, 'expired')).not.toContain('waiting for payment');
  });
  it("is the sale's own sentence when the two agree", () => {
    expect(screenSentence('en', pending, 'pending')).toBe('R$5.00, waiting for payment.');
  });
});

describe('screenOutcome', () => {
  it('names the outcome a settled screen shows, and nothing else', () => {
    expect(screenOutcome({ kind: 'settled', sale_id: 'a', status: 'expired' })).toEqual({ sale_id: 'a', outcome: 'expired' });
    expect(screenOutcome({ kind: 'settled', sale_id: 'a', status: 'displaced' })).toBeNull();
    expect(screenOutcome({ kind: 'idle' })).toBeNull();
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
  const s = (id: string, status: SaleSummary['status']) => ({ sale_id: id, status }) as SaleSummary;
  const v = (...sales: SaleSummary[]) => ({ recent: sales, attention: [], newest: sales[0] ?? null });
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
  const details = { amount_cents: 1250, pix_id: 'pix_1', external_id: 'A-1', reason: null, source: 'webhook', evidence: null, note: null, related: 1, settlement_id: null };
  it('words them in the cashier language', async () => {
    const { eventDetailsText } = await import('./messages.ts');
    expect(eventDetailsText('en', details)).toBe('amount R$12.50 · pix_id pix_1 · reference A-1 · via webhook · +1 related sale(s)');
    expect(nbsp(eventDetailsText('pt-BR', details))).toBe('valor R$ 12,50 · pix_id pix_1 · referência A-1 · via webhook · +1 venda(s) relacionada(s)');
    expect(eventDetailsText('es', { ...details, related: 0, note: 'turno' })).toContain('nota: turno');
    // A settlement's entry names its settlement.
    const settled = { amount_cents: null, pix_id: null, external_id: null, reason: null, source: null, evidence: null, note: null, related: 0, settlement_id: 42 };
    expect(eventDetailsText('en', settled)).toBe('settlement 42');
    expect(eventDetailsText('pt-BR', settled)).toBe('liquidação 42');
  });
});

describe('journal codes in words', () => {
  it('words the event types, and shows a type it does not know as journaled', () => {
    expect(eventTypeText('en', 'payment.received')).toBe('Payment received');
    expect(eventTypeText('pt-BR', 'payment.received')).toBe('Pagamento recebido');
    expect(eventTypeText('es', 'shift.opened')).toBe('Turno abierto');
    expect(eventTypeText('pt-BR', 'sale.something_new')).toBe('sale.something_new');
    expect(eventTypeText('en', 'constructor')).toBe('constructor');
  });
  it.each([
    ['reason', 'paid_late', 'pagamento tardio'],
    ['reason', 'amount_mismatch', 'valor divergente'],
    ['source', 'webhook', 'webhook'],
    ['source', 'tx_status', 'consulta de Tx Status'],
    ['evidence', 'newer_sale_requested', 'uma venda mais nova foi solicitada'],
    ['evidence', 'newer_sale_created', 'a venda mais nova foi criada'],
    ['evidence', 'tx_not_found', 'o serviço não conhece mais a venda'],
    ['reason', 'brand_new', 'brand_new'],
  ] as const)('%s %s in pt-BR', (kind, code, text) => {
    expect(codeText('pt-BR', kind, code)).toBe(text);
  });
  it('words the reason, source and evidence of an event', async () => {
    const { eventDetailsText } = await import('./messages.ts');
    const details = { amount_cents: null, pix_id: null, external_id: null, reason: 'paid_late', source: 'tx_status', evidence: 'tx_not_found', note: null, related: 0, settlement_id: null };
    expect(eventDetailsText('es', details)).toBe('motivo: pago tardío · vía consulta de Tx Status · porque el servicio ya no conoce la venta');
  });
});

describe('journal integrity in words', () => {
  it.each([
    ['hash does not match the content', 'its content was changed after it was written'],
    ['expected seq 7, found 9', 'entry 9 found where 7 was expected (entries missing or out of order)'],
    ['last line is unterminated (torn write)', 'the last line was cut off (an interrupted write)'],
    ['not valid JSON', 'the line is not a well-formed journal entry'],
    ['segment is 10 bytes, but 20 were committed to it', 'the segment is 10 bytes, but 20 were committed to it'],
    ['something else entirely', 'the entry does not check out (something else entirely)'],
  ])('%j', (reason, text) => {
    expect(brokenReasonText('en', reason)).toBe(text);
  });
  it('translates the broken-entry reason in pt-BR', () => {
    expect(brokenReasonText('pt-BR', 'prev does not match the hash of the entry before it')).toBe('ele não segue do registro anterior (a corrente está quebrada)');
  });
  it("words the status's journal problem", () => {
    expect(journalProblemText('pt-BR', { state: 'corrupt', problem: 'entry 12 (journal-2024-01-01.jsonl, line 3) is broken: hash does not match the content' })).toBe(
      'o registro 12 (journal-2024-01-01.jsonl, linha 3) está quebrado: o conteúdo foi alterado depois de gravado',
    );
    expect(journalProblemText('es', { state: 'failed', problem: 'EACCES: permission denied' })).toBe('no se puede escribir el diario; los detalles están en el registro de la aplicación');
    expect(journalProblemText('en', { state: 'healthy', problem: null })).toBeNull();
  });
});
