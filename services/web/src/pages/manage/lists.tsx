// The manage pages' lists: the account's whole lists (domains, campaigns, channels, overlays) and how
// they are fetched, the page's head (title, its one action, a sentence on what the page is for), the
// list of cards the domains and campaigns show, and the lists in an item's panel (a campaign's or
// channel's links, an overlay's submissions).
import { LEGACY_LIMIT_MAX, ROUTES } from "@kurz/contracts";
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { invalidate, type Query, useQuery } from "../../api/cache.ts";
import { call } from "../../api/client.ts";
import { Table } from "../../components/TableCard.tsx";
import { Failed, Loading, PageHead } from "../common.tsx";

/** The older API's list routes page at most this many; the dashboard asks for one full page. */
const LIST_QUERY = { limit: String(LEGACY_LIMIT_MAX) };
/** The same for the v1 list routes (overlays). */
export const V1_LIST_QUERY = { page: "1", per_page: "100" };

/**
 * The account's lists, each under its own cache key (its name) and fetched one way: a manage page, the
 * link form and the links table's filters that show the same list share one copy of it.
 */
const LISTS = {
  domains: () => call(ROUTES.legacyListDomains, { query: LIST_QUERY }).then((r) => r.data.domains),
  campaigns: () => call(ROUTES.legacyListCampaigns, { query: LIST_QUERY }).then((r) => r.data.campaigns),
  channels: () => call(ROUTES.legacyListChannels, { query: LIST_QUERY }).then((r) => r.data.channels),
  overlays: () => call(ROUTES.listOverlays, { query: V1_LIST_QUERY }).then((r) => r.data),
};
type ListName = keyof typeof LISTS;
type ListOf<K extends ListName> = Awaited<ReturnType<(typeof LISTS)[K]>>;

/** One of the account's lists; not fetched while `wanted` is false. */
export function useList<K extends ListName>(name: K, wanted = true): Query<ListOf<K>> {
  return useQuery(wanted ? name : null, LISTS[name] as () => Promise<ListOf<K>>);
}

/** A manage page's list: useList, fetched again on each visit (see useFreshQuery). */
export function useFreshList<K extends ListName>(name: K): Query<ListOf<K>> {
  return useFreshQuery(name, LISTS[name] as () => Promise<ListOf<K>>);
}

/**
 * The page's list, refetched on every visit: scripts change the same data through the API, so a copy
 * cached on an earlier visit is shown only until the fresh one arrives.
 */
export function useFreshQuery<T>(key: string, fetcher: () => Promise<T>) {
  const query = useQuery(key, fetcher);
  useEffect(() => invalidate(key), [key]);
  return query;
}

/**
 * The hosts of the account's verified branded domains: where a new link may live besides the service's
 * own host. Not fetched while `wanted` is false.
 */
export function useVerifiedHosts(wanted = true): string[] {
  const domains = useList("domains", wanted);
  return (domains.data ?? []).filter((d) => d.status === "verified").map((d) => new URL(d.domain).host);
}

/** The choices of a link's host: the service's own ("", the default), then each verified domain's. */
export const hostOptions = (hosts: string[]) => [
  { value: "", label: `${location.host} (default)` },
  ...hosts.map((h) => ({ value: h, label: h })),
];

/**
 * The page's title with its one primary action beside it (none for a role that may only read), and
 * what the page is for below.
 */
export function ManageHead({
  title,
  action,
  onAction,
  children,
}: {
  title: string;
  action?: string;
  onAction: () => void;
  children: ComponentChildren;
}) {
  return (
    <>
      <PageHead title={title}>
        {action && (
          <button type="button" class="btn primary" onClick={onAction}>
            {action}
          </button>
        )}
      </PageHead>
      <p class="muted">{children}</p>
    </>
  );
}

/**
 * A list of cards, one per item: its load failure above, a loading line until it arrives, a sentence
 * in a card when it is empty. `card` gives an item's `<li class="card item">`.
 */
export function CardList<T>({
  query,
  loading,
  empty,
  card,
}: {
  query: Query<T[]>;
  loading: string;
  empty: string;
  card: (item: T) => ComponentChildren;
}) {
  return (
    <>
      {query.error !== undefined && <Failed error={query.error} />}
      {!query.data ? (
        <Loading what={loading} />
      ) : query.data.length === 0 ? (
        <div class="card">
          <p class="empty">{empty}</p>
        </div>
      ) : (
        <ul class="cards">{query.data.map(card)}</ul>
      )}
    </>
  );
}

interface PanelListProps {
  failures: unknown[];
  loaded: boolean;
  isEmpty: boolean;
  loading: string;
  empty: string;
  children: ComponentChildren;
}

/**
 * A list in an item's panel: the failures of what it is made from above, a loading line until it has
 * `loaded`, a sentence when it is empty, else `children`.
 */
export function PanelList({ failures, loaded, isEmpty, loading, empty, children }: PanelListProps) {
  return (
    <>
      {failures.map((error, i) => error !== undefined && <Failed key={i} error={error} />)}
      {!loaded ? <Loading what={loading} /> : isEmpty ? <p class="empty">{empty}</p> : children}
    </>
  );
}

/** A PanelList that is a Table: `columns` head it (and the row buttons' column with `actions`). */
export function PanelTable({
  caption,
  columns,
  actions,
  children,
  ...list
}: Omit<PanelListProps, "children"> & Parameters<typeof Table>[0]) {
  return (
    <PanelList {...list}>
      <div class="table-card manage-table">
        <Table caption={caption} columns={columns} actions={actions}>
          {children}
        </Table>
      </div>
    </PanelList>
  );
}
