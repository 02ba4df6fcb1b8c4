import type { ComponentChildren } from "preact";
import { Failed, Loading } from "../pages/common.tsx";

/**
 * A column's heading: its words, or its words and its cells' classes (`col-hide`: left out at phone
 * width, `col-num`: a right-aligned number).
 */
export type Column = string | [label: string, classes: string];

/**
 * A page's list as a table in a card: its load failure above, a loading line until it arrives, a sentence
 * when it is empty. The head is `columns`, then the row buttons' column when `actions` is set; `children`
 * are the table's body; the caption is for screen readers.
 */
export function TableCard({
  query,
  actionError = null,
  isEmpty,
  loading,
  empty,
  caption,
  columns,
  actions,
  class: extra,
  children,
}: {
  query: { data: unknown; error: unknown };
  /** A row action's failure, shown under the list's own. */
  actionError?: unknown;
  isEmpty: boolean;
  loading: string;
  empty: string;
  caption: string;
  columns: Column[];
  actions?: boolean;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <>
      {query.error !== undefined && <Failed error={query.error} />}
      {actionError !== null && <Failed error={actionError} />}
      <div class={extra ? `card table-card ${extra}` : "card table-card"}>
        {!query.data ? (
          <Loading what={loading} />
        ) : isEmpty ? (
          <p class="empty">{empty}</p>
        ) : (
          <Table caption={caption} columns={columns} actions={actions}>
            {children}
          </Table>
        )}
      </div>
    </>
  );
}

/** The table: its caption for screen readers, its head (see TableHead), its body (`children`). */
export function Table({
  caption,
  columns,
  actions,
  children,
}: {
  caption: string;
  columns: Column[];
  actions?: boolean;
  children: ComponentChildren;
}) {
  return (
    <table>
      <caption class="sr-only">{caption}</caption>
      <TableHead columns={columns} actions={actions} />
      {children}
    </table>
  );
}

/** A table's head row: one heading a column, then the row buttons' column when `actions` is set. */
function TableHead({ columns, actions }: { columns: Column[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((c) =>
          typeof c === "string" ? (
            <th key={c} scope="col">
              {c}
            </th>
          ) : (
            <th key={c[0]} scope="col" class={c[1]}>
              {c[0]}
            </th>
          ),
        )}
        {actions && <ActionsHeader />}
      </tr>
    </thead>
  );
}

/** The head of a table's last column, which holds each row's buttons. */
export function ActionsHeader() {
  return (
    <th scope="col">
      <span class="sr-only">Actions</span>
    </th>
  );
}
