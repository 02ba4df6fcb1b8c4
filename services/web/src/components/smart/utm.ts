// The utm_* parameters of a destination URL: read from it and written into it, the URL's other
// parameters kept in their order.
import { UTM_PARAMS } from "@kurz/contracts";

export type UtmName = (typeof UTM_PARAMS)[number];

/** The utm_* parameters `url` carries; {} when it is not a URL yet. */
export function paramsOf(url: string): Partial<Record<UtmName, string>> {
  try {
    const q = new URL(url).searchParams;
    const out: Partial<Record<UtmName, string>> = {};
    for (const p of UTM_PARAMS) {
      const v = q.get(p);
      if (v !== null) out[p] = v;
    }
    return out;
  } catch {
    return {};
  }
}

/** `url` with its utm_* parameters replaced by `params` (empty ones removed); `url` if not a URL. */
export function withUtm(url: string, params: Partial<Record<UtmName, string>>): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  for (const p of UTM_PARAMS) {
    const v = params[p]?.trim();
    if (v) u.searchParams.set(p, v);
    else u.searchParams.delete(p);
  }
  return u.href;
}
