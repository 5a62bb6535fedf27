import { transform } from 'receiptline';
import { PAPER_COLUMNS, receiptMarkup, type Receipt } from './receipt.ts';

/**
 * A receipt for 80 mm paper: 48 characters a line (font A on 576 dots), Western European
 * code page (Portuguese and Spanish accents, R$). receiptline writes both the printer's
 * ESC/POS and the same receipt as SVG, so what the docs show is what the printer prints.
 */
const PAPER = { cpl: PAPER_COLUMNS, encoding: 'cp1252' } as const;

/** The bytes for an ESC/POS printer, ending with the paper cut (GS V). */
export function escposBytes(receipt: Receipt): Buffer {
  // receiptline returns the commands as a string of byte values 0–255.
  return Buffer.from(transform(receiptMarkup(receipt), { ...PAPER, command: 'escpos', cutting: true }), 'latin1');
}

/** The same receipt drawn as SVG. */
export function receiptSvg(receipt: Receipt): string {
  return transform(receiptMarkup(receipt), { ...PAPER, command: 'svg' });
}

/**
 * The receipt as a sheet for a page (the print dialog of an ordinary printer, the docs): a
 * white sheet behind it, the drawing's random element id fixed so the same receipt is the same
 * file, and no web font fetched (the monospace fallback stands in).
 */
export function receiptSheetSvg(receipt: Receipt): string {
  return receiptSvg(receipt)
    .replace(/receipt-[0-9a-f-]{36}/g, 'receipt-sheet')
    .replace(/<style type="text\/css"><!\[CDATA\[@import url\([^)]*\);\]\]><\/style>/, '')
    .replace(/(<svg [^>]*>)/, '$1<rect width="100%" height="100%" fill="#fff"/>');
}

/** The receipt as plain text, as the printer lays it out. */
export function receiptText(receipt: Receipt): string {
  return transform(receiptMarkup(receipt), { ...PAPER, command: 'text' });
}
