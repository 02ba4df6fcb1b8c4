/**
 * One canonical form for host names, so that two spellings of the same host always compare equal
 * (docs/security.md "Branded domains"): lower case, no trailing dot, no default port
 * (:80, :443), internationalised names in their ASCII (IDNA/punycode) form, IPv4 in dotted decimal,
 * IPv6 in brackets. Anything that is not just a host with an optional port (userinfo, a path, spaces,
 * an empty or over-long label) has no canonical form: `null`.
 *
 * The WHATWG URL parser does the IDNA mapping and the IP literal forms (`new URL`, available in Node
 * and in browsers); this module adds what URL leaves alone (trailing dots, :443 on http) and the
 * label rules URL does not enforce.
 */

/** RFC 1035: 253 characters for a name written without its trailing dot, 63 per label. */
export const HOST_NAME_MAX_LENGTH = 253;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^(?:\d{1,3}\.){3}\d{1,3}$/;
// Bytes that never belong in a Host header or a domain field: whitespace and controls, userinfo,
// path, query, fragment and escape characters.
const FORBIDDEN = /[\s\p{Cc}/\\?#@%]/u;
// Longest input worth parsing: 253 ASCII characters after IDNA can be ~4× longer as Unicode, plus a port.
const INPUT_MAX_LENGTH = 1024;

export interface HostParts {
  /** Lower-case ASCII name, dotted-decimal IPv4 or bracketed IPv6. */
  hostname: string;
  /** A non-default port, or null. */
  port: number | null;
}

/** The canonical form of a Host header or host name (`name` or `name:port`), or null for garbage. */
export function normalizeHost(host: string): string | null {
  const parts = parseHost(host);
  if (!parts) return null;
  return parts.port === null ? parts.hostname : `${parts.hostname}:${parts.port}`;
}

/** Like `normalizeHost`, split into name and port. */
export function parseHost(host: string): HostParts | null {
  if (typeof host !== "string" || host.length === 0 || host.length > INPUT_MAX_LENGTH) return null;
  if (FORBIDDEN.test(host)) return null;
  let url: URL;
  try {
    url = new URL(`http://${host}/`);
  } catch {
    return null;
  }
  if (url.username || url.password || url.pathname !== "/" || url.search || url.hash) return null;
  const port = url.port === "" || url.port === "443" ? null : Number(url.port);
  if (port === 0) return null;
  if (url.hostname.startsWith("[")) return { hostname: url.hostname, port };
  const hostname = url.hostname.replace(/\.+$/, "");
  if (hostname.length === 0 || hostname.length > HOST_NAME_MAX_LENGTH) return null;
  if (IPV4.test(hostname)) return { hostname, port };
  if (!hostname.split(".").every((label) => LABEL.test(label))) return null;
  return { hostname, port };
}

/** True for an IPv4 or bracketed IPv6 literal in canonical form (output of `parseHost`). */
export function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith("[") || IPV4.test(hostname);
}

/**
 * A branded domain is a DNS name an owner can publish a TXT record under: no IP literal, no port,
 * no single-label name (`localhost`, `intranet`) and nothing under `.localhost`. Returns the
 * canonical name, or why it cannot be a branded domain.
 */
export function brandedDomainHost(host: string): { ok: true; host: string } | { ok: false; reason: string } {
  const parts = parseHost(host);
  if (!parts) return { ok: false, reason: "Not a valid host name" };
  if (isIpLiteral(parts.hostname))
    return { ok: false, reason: "A branded domain must be a DNS name, not an IP address" };
  if (parts.port !== null) return { ok: false, reason: "A branded domain cannot have a port" };
  if (!parts.hostname.includes("."))
    return { ok: false, reason: "A branded domain must be a fully qualified name" };
  if (parts.hostname === "localhost" || parts.hostname.endsWith(".localhost")) {
    return { ok: false, reason: "A branded domain must be a public DNS name" };
  }
  return { ok: true, host: parts.hostname };
}
