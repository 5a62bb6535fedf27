import { describe, expect, it } from 'vitest';
import { prepareCsv, safeFilename } from './download.ts';

describe('safeFilename', () => {
  it.each([
    ['shift-2024-05-01-abcd1234.csv', 'shift-2024-05-01-abcd1234.csv'],
    ['shift', 'shift.csv'],
    ['../../etc/passwd', 'passwd.csv'],
    ['C:\\Users\\x\\report.CSV', 'report.csv'],
    ['turno café.csv', 'turno-cafe.csv'],
    ['=cmd|x.csv', 'cmd-x.csv'],
    ['.hidden.csv', 'hidden.csv'],
    ['', 'export.csv'],
    ['a/b/', 'export.csv'],
    ['x'.repeat(300), `${'x'.repeat(120)}.csv`],
  ])('%j -> %j', (name, safe) => {
    expect(safeFilename(name, 'csv')).toBe(safe);
  });
});

describe('prepareCsv', () => {
  it('adds one byte-order mark and CRLF line ends', () => {
    const file = prepareCsv('shift.csv', 'a,b\n1,2\r\n');
    expect(file.text).toBe('\uFEFFa,b\r\n1,2\r\n');
    expect(file.type).toBe('text/csv;charset=utf-8');
    expect(prepareCsv('s', file.text).text).toBe(file.text);
  });
});
