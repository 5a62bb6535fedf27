import { create } from 'qrcode';

/**
 * A Pix QR's modules, from the `qrcode` package's matrix (error correction M, as the service's
 * own codes), for the two places that draw one: the screen's image (QrImage, as SVG) and the
 * printed poster (poster.ts, as PDF rectangles). Synchronous and without a canvas.
 */

/** ISO/IEC 18004 asks for a quiet zone of 4 modules around the symbol. */
export const QUIET_MODULES = 4;

/** The dark modules of the QR, row by row, as runs: one rectangle per run of dark modules. */
export function qrRuns(emv: string): { size: number; runs: { row: number; col: number; length: number }[] } {
  const { modules } = create(emv, { errorCorrectionLevel: 'M' });
  const runs: { row: number; col: number; length: number }[] = [];
  for (let row = 0; row < modules.size; row++) {
    let col = 0;
    while (col < modules.size) {
      if (!modules.get(row, col)) {
        col++;
        continue;
      }
      const start = col;
      while (col < modules.size && modules.get(row, col)) col++;
      runs.push({ row, col: start, length: col - start });
    }
  }
  return { size: modules.size, runs };
}

/**
 * The QR as an SVG document `size` pixels square: black modules on white, the quiet zone
 * inside the square, one unit of the view box a module, edges kept crisp. One path of
 * rectangles (a run of dark modules each), so it is drawn at any scale without blur.
 */
export function qrSvg(emv: string, size: number): string {
  const { size: modules, runs } = qrRuns(emv);
  const side = modules + 2 * QUIET_MODULES;
  const dark = runs.map((r) => `M${r.col + QUIET_MODULES} ${r.row + QUIET_MODULES}h${r.length}v1h-${r.length}z`).join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${side} ${side}" shape-rendering="crispEdges">` +
    `<path fill="#ffffff" d="M0 0h${side}v${side}H0z"/><path fill="#000000" d="${dark}"/></svg>`
  );
}

/** qrSvg as an image address (`data:` URL), for an <img>. */
export function qrSvgUrl(emv: string, size: number): string {
  return `data:image/svg+xml,${encodeURIComponent(qrSvg(emv, size))}`;
}
