// The data layer: one cache entry per key (a route and its input), shared by every component that
// shows it, refetched when a mutation invalidates its prefix. Small on purpose (decision 0024): the
// dashboard needs dedup, stale-while-revalidate and invalidation, not a general query library.
// Entries are kept per workspace: a key names what a page shows, and the same key in another workspace
// is other data, so the chosen workspace is part of every entry's key.
import { useEffect, useState } from "preact/hooks";
import { currentWorkspace } from "./client.ts";

interface Entry {
  /** Its key in `entries` (adoptDefault moves an entry to another). */
  key: string;
  data?: unknown;
  error?: unknown;
  promise?: Promise<void>;
  stale: boolean;
  fetcher: () => Promise<unknown>;
}

const entries = new Map<string, Entry>();
const listeners = new Map<string, Set<() => void>>();

/** The entry's key in the chosen workspace; `key` follows the separator, for invalidate's prefixes. */
const SEP = "\u0000";
const scoped = (key: string) => `${currentWorkspace() ?? ""}${SEP}${key}`;
const unscoped = (key: string) => key.slice(key.indexOf(SEP) + 1);

function notify(key: string): void {
  for (const l of listeners.get(key) ?? []) l();
}

/**
 * Fetches `key` unless a fetch is under way; an invalidation during a fetch marks the entry stale, and
 * the entry is fetched again when that one ends, so an answer older than a mutation never stays.
 */
function load(entry: Entry): void {
  if (entry.promise) {
    entry.stale = true;
    return;
  }
  entry.stale = false;
  entry.promise = entry
    .fetcher()
    .then(
      (data) => {
        entry.data = data;
        entry.error = undefined;
      },
      (error: unknown) => {
        entry.error = error;
      },
    )
    .finally(() => {
      entry.promise = undefined;
      if (entry.stale && listeners.get(entry.key)?.size) load(entry);
      else notify(entry.key);
    });
}

export interface Query<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
}

/** The cached value of `key`, loading it with `fetcher` when absent or invalidated. */
export function useQuery<T>(name: string | null, fetcher: () => Promise<T>): Query<T> {
  const key = name === null ? null : scoped(name);
  const [, setTick] = useState(0);
  const rerender = () => setTick((n) => n + 1);
  useEffect(() => {
    if (key === null) return;
    const set = listeners.get(key) ?? new Set<() => void>();
    listeners.set(key, set);
    set.add(rerender);
    const entry = entries.get(key) ?? { key, stale: true, fetcher };
    entries.set(key, entry);
    entry.fetcher = fetcher;
    // A failed answer is tried again by the next page that shows it (e.g. a 401 fetched while the
    // first session check ran, before signing in).
    if (entry.stale || entry.error !== undefined) load(entry);
    return () => {
      set.delete(rerender);
    };
  }, [key]);
  const entry = key === null ? undefined : entries.get(key);
  return {
    data: entry?.data as T | undefined,
    error: entry?.error,
    loading: key !== null && (!entry || entry.promise !== undefined) && entry?.data === undefined,
  };
}

/** Marks every key starting with one of `prefixes` (in every workspace) stale and refetches those on screen. */
export function invalidate(...prefixes: string[]): void {
  for (const [key, entry] of entries) {
    if (!prefixes.some((p) => unscoped(key).startsWith(p))) continue;
    if (listeners.get(key)?.size) load(entry);
    else entry.stale = true;
  }
}

/**
 * Before the session is known, reads go without a workspace and the server answers from the user's
 * first; once the session names that one `id`, those answers are its own and stay (no second fetch).
 */
export function adoptDefault(id: string): void {
  for (const [key, entry] of entries) {
    if (!key.startsWith(SEP)) continue;
    entries.delete(key);
    entry.key = `${id}${key}`;
    entries.set(entry.key, entry);
  }
}

/** Forgets everything (signing out: the next account must not see this one's data). */
export function clearCache(): void {
  entries.clear();
}
