// A visit's query added to its destination: `?utm_source=news` on the short link reaches the page.
// The destination's own parameters win on a clash (the link's owner set them on purpose); the
// fragment stays last. Pairs are copied as the visitor sent them, and the redirect percent-encodes
// anything a Location may not carry.

const nameOf = (pair: string): string => {
  const eq = pair.indexOf("=");
  const raw = (eq === -1 ? pair : pair.slice(0, eq)).replace(/\+/g, " ");
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
};

/**
 * The four parts as one flat string. A `+` or template joins them into a string of parts, which V8
 * copies into one in its runtime the first time a regular expression runs on it, and Node runs one on
 * every header value it sends (a Location): several times the cost of joining them flat here.
 */
const flat = (a: string, b: string, c: string, d: string): string => [a, b, c, d].join("");

/** `destination` with the pairs of `query` (raw, without `?`) its own query does not name. */
export function forwardQuery(destination: string, query: string): string {
  if (query === "") return destination;
  const hash = destination.indexOf("#");
  const base = hash === -1 ? destination : destination.slice(0, hash);
  const fragment = hash === -1 ? "" : destination.slice(hash);
  const q = base.indexOf("?");
  // A destination without a query of its own takes the visit's as it is, unless it has empty pairs.
  if (
    q === -1 &&
    query.charCodeAt(0) !== 38 &&
    query.charCodeAt(query.length - 1) !== 38 &&
    !query.includes("&&")
  )
    return flat(base, "?", query, fragment);
  const own = q === -1 ? "" : base.slice(q + 1);
  const taken = new Set(own === "" ? [] : own.split("&").map(nameOf));
  const added = query.split("&").filter((pair) => pair !== "" && !taken.has(nameOf(pair)));
  if (added.length === 0) return destination;
  const joiner = q === -1 ? "?" : own === "" || own.endsWith("&") ? "" : "&";
  return flat(base, joiner, added.join("&"), fragment);
}
