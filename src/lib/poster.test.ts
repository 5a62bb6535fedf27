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
