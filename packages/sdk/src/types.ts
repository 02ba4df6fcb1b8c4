// The client's types, computed from RouteTypes (itself from the route records): a route's call input,
// its result, the names of each API generation and of the paginated lists.
import type { RouteTypes } from "./route-types.ts";

export type RouteName = keyof RouteTypes;

type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** `{member: T}`, optional when every member of T is (a query of defaults), absent when T is never. */
type Part<T, M extends string> = [T] extends [never]
  ? unknown
  : Record<string, never> extends T
    ? { [P in M]?: T }
    : { [P in M]: T };

/** What a call of route K takes: its path params, query and body, each only where the route has one. */
export type CallInput<K extends RouteName> = Simplify<
  Part<RouteTypes[K]["params"], "params"> &
    Part<RouteTypes[K]["query"], "query"> &
    Part<RouteTypes[K]["body"], "body">
>;

export interface CallOptions {
  /** Cancels the request (and any wait before a retry). */
  signal?: AbortSignal;
  /** Extra request headers (e.g. `X-Workspace-Id`). */
  headers?: Record<string, string>;
  /** The body's media type, for a route whose body is a file (default: the Blob's type, else octet-stream). */
  contentType?: string;
}

/** A call's arguments: the input may be left out when nothing in it is required. */
export type CallArgs<K extends RouteName> =
  Record<string, never> extends CallInput<K>
    ? [input?: CallInput<K>, options?: CallOptions]
    : [input: CallInput<K>, options?: CallOptions];

/** The whole answer of route K: its envelope, or the bytes of a route that answers an image. */
export type Envelope<K extends RouteName> = RouteTypes[K]["response"] extends ArrayBuffer
  ? Uint8Array
  : RouteTypes[K]["response"];

/** What a call resolves to: a v1 envelope's `data`; a legacy answer as it is. */
export type Result<K extends RouteName> =
  Envelope<K> extends { success: true; data: infer D } ? D : Envelope<K>;

type IsV1<K extends RouteName> = RouteTypes[K]["path"] extends `/api/v1/${string}` ? true : false;

/** `client.v1.createLink(…)`: every `/api/v1` route under its record's name. */
export type V1Api = {
  [K in RouteName as IsV1<K> extends true ? K : never]: (...args: CallArgs<K>) => Promise<Result<K>>;
};

/** `client.legacy.listDomains(…)`: every unversioned `/api` route, its record's name without `legacy`. */
export type LegacyApi = {
  [K in RouteName as IsV1<K> extends true ? never : LegacyMethodName<K>]: (
    ...args: CallArgs<K>
  ) => Promise<Result<K>>;
};
export type LegacyMethodName<K extends string> = K extends `legacy${infer R}` ? Uncapitalize<R> : K;

type ItemOf<A> = A extends readonly (infer I)[] ? I : never;
/** The item type of a paginated list (never: route K is not one). */
export type PageItem<K extends RouteName> = RouteTypes[K]["response"] extends {
  meta: { total_pages: number };
  data: infer D;
}
  ? ItemOf<D>
  : RouteTypes[K]["response"] extends { data: infer D extends { next_cursor: unknown } }
    ? { [P in keyof D]: ItemOf<D[P]> }[keyof D]
    : RouteTypes[K]["response"] extends { data: infer D extends { nextpage: unknown } }
      ? { [P in keyof D]: ItemOf<D[P]> }[keyof D]
      : never;

/** The routes `client.paginate` walks: v1 lists by page or cursor, and the legacy lists. */
export type PaginatedRoute = { [K in RouteName]: [PageItem<K>] extends [never] ? never : K }[RouteName];
