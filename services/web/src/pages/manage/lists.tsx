// The manage pages' lists: the queries that fetch a whole list, the page's head (title, its one action,
// a sentence on what the page is for), and the list of cards the domains and campaigns show.
import { LEGACY_LIMIT_MAX } from "@kurz/contracts";
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { invalidate, useQuery } from "../../api/cache.ts";
import { Failed, Loading, PageHead } from "../common.tsx";

/** The older API's list routes page at most this many; the dashboard asks for one full page. */
export const LIST_QUERY = { limit: String(LEGACY_LIMIT_MAX) };
/** The same for the v1 list routes (overlays). */
export const V1_LIST_QUERY = { page: "1", per_page: "100" };

/**
 * The page's list, refetched on every visit: scripts change the same data through the API, so a copy
 * cached on an earlier visit is shown only until the fresh one arrives.
 */
export function useFreshQuery<T>(key: string, fetcher: () => Promise<T>) {
  const query = useQuery(key, fetcher);
  useEffect(() => invalidate(key), [key]);
  return query;
}

/** The page's title with its one primary action beside it, and what the page is for below. */
export function ManageHead({
  title,
  action,
  onAction,
  children,
}: {
  title: string;
  action: string;
  onAction: () => void;
  children: ComponentChildren;
}) {
  return (
    <>
      <PageHead title={title}>
        <button type="button" class="btn primary" onClick={onAction}>
          {action}
        </button>
      </PageHead>
      <p class="muted">{children}</p>
    </>
  );
}

/**
 * A list of cards, one per item: its load failure above, a loading line until it arrives, a sentence
 * in a card when it is empty. `children` are the `<li class="card item">` of the items.
 */
export function CardList({
  query,
  isEmpty,
  loading,
  empty,
  children,
}: {
  query: { data: unknown; error: unknown };
  isEmpty: boolean;
  loading: string;
  empty: string;
  children: ComponentChildren;
}) {
  return (
    <>
      {query.error !== undefined && <Failed error={query.error} />}
      {!query.data ? (
        <Loading what={loading} />
      ) : isEmpty ? (
        <div class="card">
          <p class="empty">{empty}</p>
        </div>
      ) : (
        <ul class="cards">{children}</ul>
      )}
    </>
  );
}
