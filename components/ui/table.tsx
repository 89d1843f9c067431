// Tables that scroll sideways on a phone: the scroll box is focusable and labelled (a region), so
// keyboard users can scroll it too.
import type { ReactNode, ThHTMLAttributes, TdHTMLAttributes } from 'react';

/** `rowCount`: the rows the table has, header included, when not all are in the DOM (a virtualised body). */
export function TableScroll({ label, rowCount, children }: { label: string; rowCount?: number; children: ReactNode }) {
  return (
    <div
      role="region"
      aria-label={label}
      tabIndex={0}
      className="relative overflow-x-auto rounded-md focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
    >
      <table aria-rowcount={rowCount} className="min-w-full divide-y divide-slate-200 text-sm">
        {children}
      </table>
    </div>
  );
}

/** A header cell: its title, or the title with classes of its own (width, alignment). */
export type Column = string | { title: ReactNode; className?: string };

/** The header row of a table: one `Th` a column. */
export function TableHead({ columns }: { columns: Column[] }) {
  return (
    <thead className="bg-slate-50">
      <tr>
        {columns.map((column, index) =>
          typeof column === 'string' ? (
            <Th key={index}>{column}</Th>
          ) : (
            <Th key={index} className={column.className}>
              {column.title}
            </Th>
          ),
        )}
      </tr>
    </thead>
  );
}

/** A table with one header row of `columns` and the rows (`children`) in its body. */
export function Table({ label, columns, children }: { label: string; columns: Column[]; children: ReactNode }) {
  return (
    <TableScroll label={label}>
      <TableHead columns={columns} />
      <tbody className="divide-y divide-slate-100">{children}</tbody>
    </TableScroll>
  );
}

/** The last column of a table whose rows end in buttons: named for screen readers only. */
export const actionsColumn: Column = { title: <span className="sr-only">Actions</span> };

export function Th({ className = '', ...props }: ThHTMLAttributes<HTMLTableCellElement>) {
  return (
    <th scope="col" className={`whitespace-nowrap px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-700 ${className}`} {...props} />
  );
}

export function Td({ className = '', ...props }: TdHTMLAttributes<HTMLTableCellElement>) {
  return <td className={`whitespace-nowrap px-3 py-2 text-slate-900 ${className}`} {...props} />;
}
