/**
 * Saving a text file from the renderer (the journal's CSV export). The pure part names and
 * prepares the file; `saveFile` is the small DOM step that hands it to the browser.
 */
export interface PreparedFile {
  name: string;
  type: string;
  text: string;
}

const BOM = '\uFEFF';

/**
 * A file name that every system accepts: no path, no control or reserved characters, the
 * extension kept or added. The core proposes the name; the renderer only makes it safe.
 */
export function safeFilename(name: string, extension: string): string {
  const ext = extension.startsWith('.') ? extension : `.${extension}`;
  const base = (name.split(/[\\/]/).pop() ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\w.-]+/g, '-')
    .replace(/^[.-]+/, '')
    .replace(/-{2,}/g, '-')
    .slice(0, 120);
  const stem = base.toLowerCase().endsWith(ext.toLowerCase()) ? base.slice(0, -ext.length) : base;
  return `${stem === '' ? 'export' : stem}${ext}`;
}

/**
 * The CSV as a download: UTF-8 with a byte-order mark, so spreadsheet programs read "R$" and
 * accented names correctly, and CRLF line ends as RFC 4180 asks.
 */
export function prepareCsv(filename: string, csv: string): PreparedFile {
  const body = csv.startsWith(BOM) ? csv.slice(1) : csv;
  const crlf = body.replace(/\r?\n/g, '\r\n');
  return { name: safeFilename(filename, '.csv'), type: 'text/csv;charset=utf-8', text: BOM + crlf };
}

/** Hands a prepared file to the browser as a download. */
export function saveFile(file: PreparedFile, doc: Document = document): void {
  saveBlob(file.name, new Blob([file.text], { type: file.type }), doc);
}

/** Hands any made file (the QR poster's PDF) to the browser as a download named `name`. */
export function saveBlob(name: string, blob: Blob, doc: Document = document): void {
  const url = URL.createObjectURL(blob);
  const a = doc.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  doc.body.append(a);
  a.click();
  a.remove();
  // Revoked later: some browsers read the blob after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
