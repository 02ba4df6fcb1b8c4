import type { ComponentChildren } from "preact";
import { Failed, Loading } from "../pages/common.tsx";

/**
 * A page's list as a table in a card: its load failure above, a loading line until it arrives, a sentence
 * when it is empty. `children` are the table's head and body; the caption is for screen readers.
 */
export function TableCard({
  query,
  actionError = null,
  isEmpty,
  loading,
  empty,
  caption,
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
          <table>
            <caption class="sr-only">{caption}</caption>
            {children}
          </table>
        )}
      </div>
    </>
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
