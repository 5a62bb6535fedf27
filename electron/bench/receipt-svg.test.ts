import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { exampleReceiptSvg, RECEIPT_SVG_FILE } from './receipt-svg.ts';

describe('docs/receipt.svg', () => {
  it('is the receipt the printing code draws today (npm run docs:receipt redraws it)', async () => {
    expect(await readFile(RECEIPT_SVG_FILE, 'utf8')).toBe(exampleReceiptSvg());
  });

  it('draws every field of a paid sale’s receipt', () => {
    const svg = exampleReceiptSvg();
    // SVG text is one tspan a character, one text element a column: read it back as drawn.
    const texts = [...svg.matchAll(/<text[^>]*>(.*?)<\/text>/g)].map((t) => [...(t[1] ?? '').matchAll(/<tspan[^>]*>([^<]*)<\/tspan>/g)].map((m) => m[1]).join(''));
    const drawn = texts.join(' ').replace(/&#xa0;/g, ' ');
    for (const text of ['Padaria Pão Quente', 'Comprovante de pagamento Pix', '27/11/2026, 15:42:48', 'E18236120202611271842s04b7c9d2e1f', 'pedido-1042', 'Caixa 2', 'Ana Souza', 'R$ 47,90']) {
      expect(drawn.replace(/\s+/g, ' ')).toContain(text);
    }
    expect(svg).not.toContain('@import');
  });
});
