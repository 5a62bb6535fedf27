import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DataTable, type Column } from './DataTable.tsx';

interface Sale {
  id: string;
  cents: number;
}

const COLUMNS: readonly Column<Sale>[] = [
  { header: 'Sale', rowHeader: true, cell: (s) => s.id },
  { header: 'Amount', className: 'num', attributes: (s) => ({ 'data-testid': `amount-${s.id}` }), cell: (s) => String(s.cents) },
];

const table = (props: Record<string, unknown>) => renderToStaticMarkup(createElement(DataTable<Sale>, props as never));

describe('DataTable', () => {
  it('draws a header per column, the naming cell of each row as a row header, and each cell with its class and attributes', () => {
    const html = table({ label: 'Sales', columns: COLUMNS, rows: [{ id: 'a', cents: 1250 }], rowKey: (s: Sale) => s.id, rowAttributes: (s: Sale) => ({ 'data-sale-id': s.id }) });
    expect(html).toBe(
      '<table aria-label="Sales"><thead><tr><th scope="col">Sale</th><th scope="col">Amount</th></tr></thead>' +
        '<tbody><tr data-sale-id="a"><th scope="row">a</th><td class="num" data-testid="amount-a">1250</td></tr></tbody></table>',
    );
  });

  it('says there is nothing in one row across every column, and only when told what to say', () => {
    expect(table({ className: 'report-table', columns: COLUMNS, rows: [], rowKey: (s: Sale) => s.id, empty: 'No sales yet.' })).toContain('<tbody><tr><td colSpan="2" class="muted">No sales yet.</td></tr></tbody>');
    expect(table({ columns: COLUMNS, rows: [], rowKey: (s: Sale) => s.id })).toContain('<tbody></tbody>');
  });

  it('wraps a wide table to scroll inside its card, and lets rows with state of their own draw themselves', () => {
    const html = table({
      wrap: true,
      labelledBy: 'sales-heading',
      headers: ['Sale', { header: 'Act', headerClassName: 'no-print' }],
      rows: [{ id: 'b', cents: 1 }],
      row: (s: Sale) => createElement('tr', { key: s.id, 'data-own': s.id }),
    });
    expect(html).toBe(
      '<div class="table-wrap"><table aria-labelledby="sales-heading"><thead><tr><th scope="col">Sale</th><th scope="col" class="no-print">Act</th></tr></thead>' +
        '<tbody><tr data-own="b"></tr></tbody></table></div>',
    );
  });
});
