// Which tenant a request's Host names (docs/redirect.md "Hosts"):
// - one of the origin's own hosts (PUBLIC_BASE_URL's and PUBLIC_HOSTS' names, on any port, or no Host
//   at all; service-kit's origin-hosts.ts): every link, and the API, docs, dashboard and campaign pages;
// - any other well-formed host: looked up as a branded domain, which serves only its owner's links,
//   rotators and campaign pages; a host that is not a (verified) branded domain serves nothing;
// - a Host that is not a host name at all: nothing, without a lookup.
// Hosts are compared in their canonical form (`parseHost` of packages/contracts: case, trailing dot,
// default ports, IDNA), so no spelling of a host can pass for another.
import { parseHost } from "@kurz/contracts";
import { type OriginHosts, originHosts } from "@kurz/service-kit";

/** One of the origin's own hosts: every link resolves on it. */
export const PUBLIC_HOST = Symbol("public host");

/**
 * How many distinct Host values keep their answer. classify() of a Host other than the exact public
 * one parses it as a URL (~1 µs, 2–3% of a redirect's CPU in the benchmark, whose Host carries another
 * port). A deployment sees a handful of Hosts (the public name's spellings and its branded domains), so
 * answers are kept per raw value; the map is emptied when full, so random Hosts cannot grow it.
 */
const MEMO_MAX = 1024;
const MEMO_KEY_MAX = 260;

type HostClass = typeof PUBLIC_HOST | string | null;

export class HostClassifier {
  /** The public host exactly as clients send it for PUBLIC_BASE_URL: the fast path. */
  readonly exact: string;
  private readonly origin: OriginHosts;
  private readonly memo = new Map<string, HostClass>();
  /** PUBLIC_BASE_URL's scheme with its colon (`https:`): how short URLs are spelled in pages. */
  readonly protocol: string;

  constructor(publicBaseUrl: string, publicHosts: readonly string[] = []) {
    const base = new URL(publicBaseUrl);
    this.exact = base.host;
    this.protocol = base.protocol;
    if (!parseHost(this.exact)) throw new Error(`PUBLIC_BASE_URL has no usable host: ${this.exact}`);
    this.origin = originHosts(publicBaseUrl, publicHosts);
  }

  /** PUBLIC_HOST, the host name to look up as a branded domain, or null for a Host that is no host. */
  classify(host: string | undefined): HostClass {
    if (host === undefined || host === this.exact) return PUBLIC_HOST;
    const known = this.memo.get(host);
    if (known !== undefined) return known;
    const answer = this.parse(host);
    // Only Hosts that can be names are kept (a header may be kilobytes long).
    if (host.length <= MEMO_KEY_MAX) {
      if (this.memo.size >= MEMO_MAX) this.memo.clear();
      this.memo.set(host, answer);
    }
    return answer;
  }

  private parse(host: string): HostClass {
    const parts = parseHost(host);
    if (parts === null) return null;
    return this.origin.has(host) ? PUBLIC_HOST : parts.hostname;
  }
}
