// Header reads for the click path straight from `req.rawHeaders`. Node builds `req.headers` lazily,
// on first access, from every header the client sent (a browser sends a dozen or more); the click
// needs a handful of them, so it scans the raw list instead of paying for that object on every click.
import { INTERNAL_HEADERS } from "@kurz/contracts";

/** The request headers a click event needs. Duplicates follow Node's rules for `req.headers`. */
export interface ClickHeaders {
  host: string | undefined;
  userAgent: string | undefined;
  referer: string | undefined;
  /** Every X-Forwarded-For line, joined with ", " as Node joins them. */
  forwardedFor: string | undefined;
  /**
   * The edge's request header (INTERNAL_HEADERS.edgeRequest, edge-click.ts); "" when it came more than
   * once, which no edge of ours sends: such a request gets a click id of its own.
   */
  edgeRequest: string | undefined;
  /** The first Accept-Language line: a smart link's language condition reads it (preferredLanguage). */
  acceptLanguage: string | undefined;
}

const EDGE_REQUEST = INTERNAL_HEADERS.edgeRequest;

// Exact-case checks first: clients send the canonical or the lower-case spelling almost always.
const is = (name: string, canonical: string, lower: string) =>
  name === canonical || name === lower || name.toLowerCase() === lower;

export function clickHeaders(raw: readonly string[]): ClickHeaders {
  let host: string | undefined;
  let userAgent: string | undefined;
  let referer: string | undefined;
  let forwardedFor: string | undefined;
  let edgeRequest: string | undefined;
  let acceptLanguage: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    switch (name.length) {
      case 4:
        if (host === undefined && is(name, "Host", "host")) host = raw[i + 1];
        break;
      case 7:
        if (referer === undefined && is(name, "Referer", "referer")) referer = raw[i + 1];
        break;
      case 10:
        if (userAgent === undefined && is(name, "User-Agent", "user-agent")) userAgent = raw[i + 1];
        break;
      case 15:
        // Accept-Encoding has this length too: the first letter tells the two wanted ones apart.
        if ((name.charCodeAt(0) | 0x20) === 0x78 /* x */) {
          if (is(name, "X-Forwarded-For", "x-forwarded-for")) {
            const value = raw[i + 1]!;
            forwardedFor = forwardedFor === undefined ? value : `${forwardedFor}, ${value}`;
          }
        } else if (acceptLanguage === undefined && is(name, "Accept-Language", "accept-language"))
          acceptLanguage = raw[i + 1];
        break;
      case 19: // EDGE_REQUEST.length, a literal so that the switch stays one of constants
        if (is(name, "X-Kurz-Edge-Request", EDGE_REQUEST))
          edgeRequest = edgeRequest === undefined ? raw[i + 1] : "";
        break;
    }
  }
  return { host, userAgent, referer, forwardedFor, edgeRequest, acceptLanguage };
}

/** The Host header, read from the raw list like clickHeaders (no `req.headers` on the hot path). */
export function rawHost(raw: readonly string[]): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && is(name, "Host", "host")) return raw[i + 1];
  }
  return undefined;
}
