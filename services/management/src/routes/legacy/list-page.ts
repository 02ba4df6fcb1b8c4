// Pagination of the older API's lists (SPEC 4.2): `limit`/`page` in, `result`, `perpage`,
// `currentpage`, `nextpage`, `maxpage` out. A page past the end is an empty page, not an error, so
// a client walking pages stops on `nextpage: null` either way.
import { LegacyListQuery } from "@kurz/contracts";

export interface LegacyPage<T> {
  result: number;
  perpage: number;
  currentpage: number;
  nextpage: number | null;
  maxpage: number;
  items: T[];
}

export async function legacyPage<T>(
  query: unknown,
  count: () => Promise<number>,
  fetch: (skip: number, take: number) => Promise<T[]>,
): Promise<LegacyPage<T>> {
  const { limit, page } = LegacyListQuery.parse(query);
  const result = await count();
  const maxpage = Math.ceil(result / limit);
  const items = page > maxpage ? [] : await fetch((page - 1) * limit, limit);
  return {
    result,
    perpage: limit,
    currentpage: page,
    nextpage: page < maxpage ? page + 1 : null,
    maxpage,
    items,
  };
}

/** The list envelope: string `error: "0"` as the SPEC samples show, the collection under its own name. */
export function legacyListBody<T>(collection: string, page: LegacyPage<T>) {
  const { items, ...pagination } = page;
  return { error: "0" as const, data: { ...pagination, [collection]: items } };
}
