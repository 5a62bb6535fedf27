import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import { QUIET_MODULES, qrRuns } from './qr.ts';

/**
 * The printed QR poster as an A5 PDF, made in the renderer from what the core sent (the
 * CRC-checked `qr_emvcode`, the names, the store's address) and the texts of the language of
 * the store's customers (never the manager's screen's): no secret is needed for it. The QR is
 * drawn as vector rectangles from the `qrcode` package's module matrix, so it prints sharp at
 * any size.
 */
export interface PosterText {
  storeName: string;
  /** The store's address, under its name; null or empty: none printed. */
  address?: string | null;
  checkoutDesc: string;
  /** The Pix text mark under the QR, so a payer sees at once how this code is paid. */
  pixMark?: string;
  /** The line telling the payer how to pay, in the customers' language. */
  payLine: string;
}

/** The Pix mark's teal, as payers know it from bank apps. */
const PIX_TEAL = rgb(0.196, 0.737, 0.678);

/** ISO 216 A5 in PDF points (148 × 210 mm). */
export const A5 = { width: 419.53, height: 595.28 } as const;
const MARGIN = 36;

/** The poster's QR runs (qr.ts), as its tests read them. */
export { qrRuns };

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

function centeredLines(font: PDFFont, text: string, size: number): string[] {
  return wrap(font, writable(font, text), size, A5.width - 2 * MARGIN);
}

function centered(page: PDFPage, font: PDFFont, text: string, size: number, y: number, color = rgb(0, 0, 0)): number {
  for (const line of centeredLines(font, text, size)) {
    page.drawText(line, { x: (A5.width - font.widthOfTextAtSize(line, size)) / 2, y, size, font, color });
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
  if (text.address) y = centered(page, regular, text.address, 12, y - 2);
  y = centered(page, regular, text.checkoutDesc, 16, y - 4);

  // Under the QR: the Pix mark and the pay line. The QR takes what height is left above them,
  // so a long address or pay line makes it smaller, never pushes text off the sheet.
  const pixSize = 26;
  const payLines = centeredLines(regular, text.payLine, 14).length;
  const footer = (text.pixMark ? pixSize * 1.3 + 6 : 0) + payLines * 14 * 1.3 + 12;
  const { size, runs } = qrRuns(emv);
  const side = Math.min(A5.width - 2 * MARGIN - 20, y - 10 - footer - MARGIN);
  const module = side / (size + 2 * QUIET_MODULES);
  const left = (A5.width - side) / 2 + QUIET_MODULES * module;
  const top = y - 10 - QUIET_MODULES * module;
  for (const run of runs) {
    page.drawRectangle({ x: left + run.col * module, y: top - (run.row + 1) * module, width: run.length * module, height: module, color: rgb(0, 0, 0) });
  }
  y = top - size * module - QUIET_MODULES * module - pixSize;
  if (text.pixMark) y = centered(page, bold, text.pixMark, pixSize, y, PIX_TEAL) - 6;
  centered(page, regular, text.payLine, 14, y - (text.pixMark ? 0 : 12));
  return doc.save();
}
