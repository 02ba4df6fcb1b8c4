// Which tenant a request's Host names (issue 11 item 2, docs/redirect.md "Hosts"):
// - the public host (PUBLIC_BASE_URL's host name, on any port, or no Host at all): every link;
// - any other well-formed host: looked up as a branded domain, which serves only its owner's links;
//   a host that is not a (verified) branded domain serves nothing;
// - a Host that is not a host name at all: nothing, without a lookup.
// Hosts are compared in their canonical form (`parseHost` of packages/contracts: case, trailing dot,
// default ports, IDNA), so no spelling of a host can pass for another. The public host is compared
// by name only: the edge may drop or keep the port (nginx's `$host` drops it), and every port of the
// platform's own name is the platform's. Branded domains never carry a port (contracts' host.ts).
import { parseHost } from "@kurz/contracts";

/** The public host: every link resolves on it. */
export const PUBLIC_HOST = Symbol("public host");

/** Names of this machine: a loopback public host is reachable under each, and none can be branded. */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
const isLoopback = (name: string) => LOOPBACK_NAMES.includes(name) || /^127\.\d+\.\d+\.\d+$/.test(name);

export class HostClassifier {
  /** The public host exactly as clients send it for PUBLIC_BASE_URL: the fast path. */
  private readonly exact: string;
  private readonly publicName: string;
  /** A single-machine stack (`./kurz up`) answers on 127.0.0.1 and localhost alike. */
  private readonly publicIsLoopback: boolean;

  constructor(publicBaseUrl: string) {
    this.exact = new URL(publicBaseUrl).host;
    const parts = parseHost(this.exact);
    if (!parts) throw new Error(`PUBLIC_BASE_URL has no usable host: ${this.exact}`);
    this.publicName = parts.hostname;
    this.publicIsLoopback = isLoopback(this.publicName);
  }

  /** PUBLIC_HOST, the host name to look up as a branded domain, or null for a Host that is no host. */
  classify(host: string | undefined): typeof PUBLIC_HOST | string | null {
    if (host === undefined || host === this.exact) return PUBLIC_HOST;
    const parts = parseHost(host);
    if (parts === null) return null;
    if (parts.hostname === this.publicName) return PUBLIC_HOST;
    if (this.publicIsLoopback && isLoopback(parts.hostname)) return PUBLIC_HOST;
    return parts.hostname;
  }
}
