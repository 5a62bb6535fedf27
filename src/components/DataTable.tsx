import type { Key, ReactNode, TdHTMLAttributes } from 'react';

/** What a cell may carry besides its content: a test id, a data attribute, a title. */
export type CellAttributes = TdHTMLAttributes<HTMLTableCellElement> & { [data: `data-${string}`]: string | number | boolean | undefined };

/** A row's own attributes: its data-* names for tests and styles, whether it is the current one. */
export type RowAttributes = { className?: string | undefined; 'aria-current'?: 'true' | undefined } & { [data: `data-${string}`]: string | number | boolean | undefined };

export interface Column<R> {
  header: ReactNode;
  /** A header that must not be printed, say (the column of a screen-only action). */
  headerClassName?: string;
  cell: (row: R) => ReactNode;
  /** `num` for figures (right-aligned), `nowrap` for dates and times. */
  className?: string;
  attributes?: (row: R) => CellAttributes;
  /** The cell that names its row (`<th scope="row">`): a screen reader reads it before each cell of the row. */
  rowHeader?: boolean;
}

interface Labelled {
  /** The id of the heading that names the table, or the name itself. */
  labelledBy?: string;
  label?: string;
  className?: string;
  /** Wide tables scroll inside their card rather than widen the page. */
  wrap?: boolean;
}

interface TableProps<R> extends Labelled {
  columns: readonly Column<R>[];
  rows: readonly R[];
  rowKey: (row: R) => Key;
  rowAttributes?: (row: R) => RowAttributes;
  /** Said in the table's one row when there are no rows; without it an empty table has no body rows. */
  empty?: ReactNode;
}

/** A row whose cells keep state of their own (a form, a confirmation): the row draws itself. */
interface OwnRowsProps<R> extends Labelled {
  /** Each column's header: its text, or the text with a class. */
  headers: readonly (string | Pick<Column<R>, 'header' | 'headerClassName'>)[];
  rows: readonly R[];
  row: (row: R) => ReactNode;
  empty?: ReactNode;
}

/**
 * Every table of the back office: column headers, one row per item, and the sentence saying
 * there is nothing (in the table's place, so the layout does not jump).
 */
export function DataTable<R>(props: TableProps<R> | OwnRowsProps<R>) {
  const headers = 'columns' in props ? props.columns : props.headers.map((h) => (typeof h === 'string' ? { header: h } : h));
  const body =
    'columns' in props
      ? props.rows.map((r) => (
          <tr key={props.rowKey(r)} {...props.rowAttributes?.(r)}>
            {props.columns.map((c, i) => (c.rowHeader ? <th key={i} scope="row" className={c.className} {...c.attributes?.(r)}>{c.cell(r)}</th> : <td key={i} className={c.className} {...c.attributes?.(r)}>{c.cell(r)}</td>))}
          </tr>
        ))
      : props.rows.map(props.row);
  const table = (
    <table className={props.className} aria-labelledby={props.labelledBy} aria-label={props.label}>
      <thead>
        <tr>
          {headers.map((h, i) => (
            <th key={i} scope="col" className={h.headerClassName}>
              {h.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.length === 0 && props.empty !== undefined ? (
          <tr>
            <td colSpan={headers.length} className="muted">
              {props.empty}
            </td>
          </tr>
        ) : (
          body
        )}
      </tbody>
    </table>
  );
  return props.wrap ? <div className="table-wrap">{table}</div> : table;
}
