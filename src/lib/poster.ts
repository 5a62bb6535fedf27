import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import { create } from 'qrcode';

/**
 * The printed QR poster as an A5 PDF, made in the renderer from what the core sent (the
 * CRC-checked `qr_emvcode`, the names) and the texts of the app's language: no secret is
 * needed for it. The QR is drawn as vector rectangles from the `qrcode` package's module
 * matrix, so it prints sharp at any size.
 */
export interface PosterText {
  storeName: string;
  checkoutDesc: string;
  /** The line telling the payer how to pay, in the app's language. */
  payLine: string;
}

/** ISO 216 A5 in PDF points (148 × 210 mm). */
export const A5 = { width: 419.53, height: 595.28 } as const;
const MARGIN = 36;
/** ISO/IEC 18004 asks for a quiet zone of 4 modules around the symbol. */
const QUIET_MODULES = 4;

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

/** What the standard font cannot write (it is WinAnsi) becomes '?', rather than failing the whole poster. */
function writable(font: PDFFont, text: string): string {
  return [...text]
    .map((ch) => {
      try {
        font.encodeText(ch);
        return ch;
      } catch {
        return '?';
      }
    })
    .join('');
}

/** Lines of at most `width` points at `size`, broken between words. */
function wrap(font: PDFFont, text: string, size: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    const next = line === '' ? word : `${line} ${word}`;
    if (font.widthOfTextAtSize(next, size) <= width || line === '') line = next;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

function centered(page: PDFPage, font: PDFFont, text: string, size: number, y: number): number {
  const lines = wrap(font, writable(font, text), size, A5.width - 2 * MARGIN);
  for (const line of lines) {
    page.drawText(line, { x: (A5.width - font.widthOfTextAtSize(line, size)) / 2, y, size, font, color: rgb(0, 0, 0) });
    y -= size * 1.3;
  }
  return y;
}

export async function posterPdf(emv: string, text: PosterText): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(writable(await doc.embedFont(StandardFonts.Helvetica), `${text.storeName} · ${text.checkoutDesc}`));
  doc.setCreator('Pix cashier');
  const page = doc.addPage([A5.width, A5.height]);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const regular = await doc.embedFont(StandardFonts.Helvetica);

  let y = A5.height - MARGIN - 22;
  y = centered(page, bold, text.storeName, 22, y);
  y = centered(page, regular, text.checkoutDesc, 16, y - 4);

  const { size, runs } = qrRuns(emv);
  const side = A5.width - 2 * MARGIN - 20;
  const module = side / (size + 2 * QUIET_MODULES);
  const left = (A5.width - side) / 2 + QUIET_MODULES * module;
  const top = y - 10 - QUIET_MODULES * module;
  for (const run of runs) {
    page.drawRectangle({ x: left + run.col * module, y: top - (run.row + 1) * module, width: run.length * module, height: module, color: rgb(0, 0, 0) });
  }
  y = top - size * module - QUIET_MODULES * module - 24;
  centered(page, regular, text.payLine, 14, y);
  return doc.save();
}
