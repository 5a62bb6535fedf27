import { describe, expect, it } from 'vitest';
import { decodeLuminance } from '../../e2e/poster-pdf.ts';
import { buildPixBrCode } from '../../electron/shared/emv.ts';
import { QUIET_MODULES, qrRuns, qrSvg, qrSvgUrl } from './qr.ts';

const EMV = buildPixBrCode({ merchantName: 'Loja Centro', merchantCity: 'Sao Paulo', locationUrl: 'pix.example.com/qr/v2/cobv/9d36b84fc70b478fb95c12729b90ca25', pointOfInitiation: '12' });

/** The SVG's dark rectangles (`M x y h w v1 h-w z`), painted at `px` pixels a unit on white, then decoded. */
function decodeSvg(svg: string, px = 4): { text: string; side: number; rects: { x: number; y: number; w: number }[] } {
  const side = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)?.[1]);
  const dark = /<path fill="#000000" d="([^"]*)"\/>/.exec(svg)?.[1] ?? '';
  const rects = [...dark.matchAll(/M(\d+) (\d+)h(\d+)v1h-\3z/g)].map((m) => ({ x: Number(m[1]), y: Number(m[2]), w: Number(m[3]) }));
  // Every command of the path is one such rectangle: nothing else is drawn dark.
  expect(rects.map((r) => `M${r.x} ${r.y}h${r.w}v1h-${r.w}z`).join('')).toBe(dark);
  const width = side * px;
  const pixels = new Uint8ClampedArray(width * width).fill(255);
  for (const r of rects) {
    for (let y = r.y * px; y < (r.y + 1) * px; y++) pixels.fill(0, y * width + r.x * px, y * width + (r.x + r.w) * px);
  }
  return { text: decodeLuminance(pixels, width, width), side, rects };
}

describe('the QR drawn as SVG', () => {
  it('decodes to the EMV it was made from', () => {
    expect(decodeSvg(qrSvg(EMV, 240)).text).toBe(EMV);
  });

  it('is `size` pixels square on white, with a quiet zone of four modules inside the square', () => {
    const svg = qrSvg(EMV, 360);
    const { size } = qrRuns(EMV);
    const { side, rects } = decodeSvg(svg);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="360" height="360" /);
    expect(side).toBe(size + 2 * QUIET_MODULES);
    expect(svg).toContain(`<path fill="#ffffff" d="M0 0h${side}v${side}H0z"/>`);
    expect(Math.min(...rects.map((r) => r.x))).toBe(QUIET_MODULES);
    expect(Math.min(...rects.map((r) => r.y))).toBe(QUIET_MODULES);
    expect(Math.max(...rects.map((r) => r.x + r.w))).toBe(side - QUIET_MODULES);
    expect(Math.max(...rects.map((r) => r.y + 1))).toBe(side - QUIET_MODULES);
  });

  it('draws exactly the dark modules of the matrix the poster prints', () => {
    const { runs } = qrRuns(EMV);
    const { rects } = decodeSvg(qrSvg(EMV, 200));
    expect(rects).toEqual(runs.map((r) => ({ x: r.col + QUIET_MODULES, y: r.row + QUIET_MODULES, w: r.length })));
  });

  it('is an image address that holds the same SVG, every # and quote escaped', () => {
    const url = qrSvgUrl(EMV, 240);
    expect(url.startsWith('data:image/svg+xml,')).toBe(true);
    expect(url).not.toMatch(/[#"<> ]/);
    expect(decodeURIComponent(url.slice('data:image/svg+xml,'.length))).toBe(qrSvg(EMV, 240));
  });

  it('throws for a text no QR can hold, so the screen shows its blank square instead', () => {
    expect(() => qrSvg('9'.repeat(8000), 240)).toThrow();
  });
});
