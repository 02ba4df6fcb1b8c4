// Pagination of the older API's lists: `limit`/`page` in, `result`, `perpage`,
// `currentpage`, `nextpage`, `maxpage` out. A page past the end is an empty page, not an error, so
// a client walking pages stops on `nextpage: null` either way.
import type { LegacyListQuery } from "@kurz/contracts";

export interface NumberedPage<T> {
  result: number;
  perpage: number;
  currentpage: number;
  nextpage: number | null;
  maxpage: number;
  items: T[];
}

/** Counts the whole collection, then fetches the asked page unless it lies past the end. */
export async function numberedPage<T>(
  { limit, page }: LegacyListQuery,
  count: () => Promise<number>,
  fetch: (skip: number, take: number) => Promise<T[]>,
): Promise<NumberedPage<T>> {
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
