import { describe, expect, it } from 'vitest';
import { readPoster } from '../../e2e/poster-pdf.ts';
import { buildPixBrCode } from '../../electron/shared/emv.ts';
import { A5, posterPdf, qrRuns } from './poster.ts';

const EMV = buildPixBrCode({ merchantName: 'Loja Centro', merchantCity: 'Sao Paulo', locationUrl: 'pix.example.com/qr/v2/cobv/9d36b84fc70b478fb95c12729b90ca25', pointOfInitiation: '11' });

describe('the printed QR poster PDF', () => {
  it('is one A5 page with the store, the checkout, the pay line and a QR that decodes to the EMV', async () => {
    const poster = await readPoster(await posterPdf(EMV, { storeName: 'Loja Centro', checkoutDesc: 'Caixa 1', payLine: 'Open your bank app, choose Pix and scan this code.' }));
    expect(poster.pages).toBe(1);
    expect([poster.width, poster.height]).toEqual([A5.width, A5.height]);
    expect(poster.text.join(' ')).toContain('Loja Centro');
    expect(poster.text).toContain('Caixa 1');
    expect(poster.text.join(' ')).toContain('scan this code.');
    expect(poster.qr).toBe(EMV);
  });

  it('prints the store’s address under its name and the Pix mark under the QR, in the customers’ words', async () => {
    const poster = await readPoster(
      await posterPdf(EMV, { storeName: 'Loja Centro', address: 'Rua Augusta, 1500 - Consolação', checkoutDesc: 'Caixa 1', pixMark: 'Pix', payLine: 'Abra o app do seu banco, escolha Pix, leia este código.' }),
    );
    expect(poster.text.slice(0, 3)).toEqual(['Loja Centro', 'Rua Augusta, 1500 - Consolação', 'Caixa 1']);
    expect(poster.text).toContain('Pix');
    expect(poster.text.indexOf('Pix')).toBeLessThan(poster.text.findIndex((t) => t.startsWith('Abra o app')));
    expect(poster.qr).toBe(EMV);
  });

  it('with a long address and pay line keeps one page and a QR that still decodes', async () => {
    const long = 'Avenida Brigadeiro Faria Lima, 3477, Torre Sul, 14º andar, Itaim Bibi, São Paulo - SP, 04538-133, Brasil';
    const payLine = 'Abra o app do seu banco, escolha Pix, leia este código e confirme o valor que o caixa informar. '.repeat(3);
    const poster = await readPoster(await posterPdf(EMV, { storeName: 'Loja Centro', address: long, checkoutDesc: 'Caixa 1', pixMark: 'Pix', payLine }));
    expect(poster.pages).toBe(1);
    expect(poster.text.join(' ')).toContain('Itaim Bibi');
    expect(poster.qr).toBe(EMV);
  });

  it('prints no address line for a store without one', async () => {
    const poster = await readPoster(await posterPdf(EMV, { storeName: 'Loja Centro', address: null, checkoutDesc: 'Caixa 1', pixMark: 'Pix', payLine: 'Scan this code.' }));
    expect(poster.text.slice(0, 2)).toEqual(['Loja Centro', 'Caixa 1']);
  });

  it('writes accented names, and a character its font cannot write as ? rather than failing', async () => {
    const poster = await readPoster(await posterPdf(EMV, { storeName: 'Padaria São João', checkoutDesc: 'Balcão ☕', payLine: 'Abra o app do seu banco, escolha Pix e leia este código.' }));
    expect(poster.text).toEqual(expect.arrayContaining(['Padaria São João', 'Balcão ?']));
    expect(poster.qr).toBe(EMV);
  });

  it('draws one rectangle per run of dark modules, never outside the matrix', () => {
    const { size, runs } = qrRuns(EMV);
    expect(runs.length).toBeGreaterThan(size);
    for (const r of runs) expect(r.col + r.length).toBeLessThanOrEqual(size);
  });
});
