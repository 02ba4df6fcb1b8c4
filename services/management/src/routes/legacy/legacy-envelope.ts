// The older API's success envelopes: integer `error: 0` beside the answer's members, but
// string `error: "0"` on lists, as the documented samples show. Pages come from db/numbered-page.ts.
import type { NumberedPage } from "../../db/numbered-page.ts";

/** `{error: 0, ...fields}`. */
export const legacyOk = <T extends object>(fields: T) => ({ error: 0 as const, ...fields });

/** `{error: 0, message}`, the answer of most writes. */
export const legacyMessage = (message: string) => legacyOk({ message });

/** `{error: "0", data: {result, perpage, currentpage, nextpage, maxpage, <collection>: [...]}}`. */
export function legacyListBody<K extends string, T>(collection: K, page: NumberedPage<T>) {
  const { items, ...pagination } = page;
  const data = { ...pagination, [collection]: items } as Omit<NumberedPage<T>, "items"> & { [P in K]: T[] };
  return { error: "0" as const, data };
}
