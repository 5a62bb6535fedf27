/**
 * Reads a printed QR poster back, for the tests (the poster unit test and e2e/backoffice):
 * pdf-lib parses the file and inflates its page content, the vector rectangles the QR was
 * drawn with are painted onto a bitmap, and ZXing (a maintained QR decoder) decodes that:
 * the QR is read back from what was drawn, not compared with how it was made.
 */
import { BinaryBitmap, DecodeHintType, HybridBinarizer, QRCodeReader, RGBLuminanceSource } from '@zxing/library';
import { decodePDFRawStream, PDFArray, PDFDocument, PDFRawStream, type PDFObject } from 'pdf-lib';

export interface PosterContent {
  pages: number;
  width: number;
  height: number;
  /** The page's text runs, in drawing order. */
  text: string[];
  /** What the QR drawn on the page decodes to. */
  qr: string;
}

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

function streams(doc: PDFDocument, obj: PDFObject | undefined): PDFRawStream[] {
  const found = obj === undefined ? undefined : doc.context.lookup(obj);
  if (found instanceof PDFRawStream) return [found];
  if (found instanceof PDFArray) return found.asArray().flatMap((o) => streams(doc, o));
  return [];
}

/** pdf-lib draws a filled rectangle as `1 0 0 1 x y cm` (identity rotation and skew after it) `0 0 m 0 h l w h l w 0 l h f`. */
const RECT = /1 0 0 1 (-?[\d.]+) (-?[\d.]+) cm\s+(?:1 0 0 1 0 0 cm\s+)*0 0 m\s+0 (-?[\d.]+) l\s+(-?[\d.]+) -?[\d.]+ l\s+-?[\d.]+ 0 l\s+h\s+f/g;
const TEXT = /<([0-9A-Fa-f]*)> Tj/g;

function rects(content: string): Rect[] {
  return [...content.matchAll(RECT)].map((m) => ({ x: Number(m[1]), y: Number(m[2]), h: Number(m[3]), w: Number(m[4]) }));
}

/** The standard fonts write WinAnsi; for letters that is Latin-1. */
function hexText(hex: string): string {
  return Buffer.from(hex, 'hex').toString('latin1');
}

/** Paints the rectangles at `scale` pixels per point with a white border, and decodes the QR they make. */
export function decodeRects(shapes: readonly Rect[], pxPerModule = 6): string {
  if (shapes.length === 0) throw new Error('no rectangles on the page');
  const module = Math.min(...shapes.map((r) => r.h));
  const left = Math.min(...shapes.map((r) => r.x));
  const bottom = Math.min(...shapes.map((r) => r.y));
  const right = Math.max(...shapes.map((r) => r.x + r.w));
  const top = Math.max(...shapes.map((r) => r.y + r.h));
  // Each rectangle is snapped to whole modules before it is painted: rounding its edges in
  // pixels one by one would make modules of uneven width, which the decoder may not read.
  const units = (points: number) => Math.round(points / module);
  const border = 4 * pxPerModule;
  const width = units(right - left) * pxPerModule + 2 * border;
  const height = units(top - bottom) * pxPerModule + 2 * border;
  const pixels = new Uint8ClampedArray(width * height).fill(255);
  for (const r of shapes) {
    const x0 = border + units(r.x - left) * pxPerModule;
    const x1 = x0 + units(r.w) * pxPerModule;
    // PDF's y grows upwards, a bitmap's downwards.
    const y0 = border + units(top - (r.y + r.h)) * pxPerModule;
    const y1 = y0 + units(r.h) * pxPerModule;
    for (let y = y0; y < y1; y++) pixels.fill(0, y * width + x0, y * width + x1);
  }
  const bitmap = new BinaryBitmap(new HybridBinarizer(new RGBLuminanceSource(pixels, width, height)));
  // The image is a clean, axis-aligned symbol with its quiet zone: read it as such (ZXing's
  // PURE_BARCODE), not by the finder-pattern search meant for photos, which misses some.
  return new QRCodeReader().decode(bitmap, new Map([[DecodeHintType.PURE_BARCODE, true]])).getText();
}

/** Decodes a QR from a grey bitmap (one luminance byte per pixel): the customer display's QR image, painted on a canvas. */
export function decodeLuminance(pixels: Uint8ClampedArray, width: number, height: number): string {
  const bitmap = new BinaryBitmap(new HybridBinarizer(new RGBLuminanceSource(pixels, width, height)));
  return new QRCodeReader().decode(bitmap, new Map([[DecodeHintType.PURE_BARCODE, true]])).getText();
}

export async function readPoster(bytes: Uint8Array): Promise<PosterContent> {
  const doc = await PDFDocument.load(bytes);
  const page = doc.getPage(0);
  const content = streams(doc, page.node.Contents())
    .map((s) => Buffer.from(decodePDFRawStream(s).decode()).toString('latin1'))
    .join('\n');
  const { width, height } = page.getSize();
  return {
    pages: doc.getPageCount(),
    width,
    height,
    text: [...content.matchAll(TEXT)].map((m) => hexText(m[1] ?? '')),
    qr: decodeRects(rects(content)),
  };
}
