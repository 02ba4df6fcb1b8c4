/**
 * The public origin's own hosts (docs/configuration.md, PUBLIC_HOSTS): the only hosts on which the API,
 * the docs page, the dashboard and every account's campaign pages answer, and on which every link
 * resolves. Any other Host is a branded domain (which serves only its owner's links, rotators and
 * campaign pages) or nothing. The redirect, the gateway and management's campaign page all ask this one
 * helper, so the line between the platform and a tenant's domain is drawn the same way everywhere.
 *
 * Hosts are compared by name in their canonical form (contracts' `parseHost`: case, trailing dot, IDNA),
 * without the port: an edge may drop or keep it (nginx's `$host` drops it), and every port of the
 * platform's own name is the platform's. Branded domains never carry a port.
 */
import { parseHost } from "@kurz/contracts";

/** Names of this machine; a loopback public origin is reachable under each, and none can be branded. */
export const LOOPBACK_HOST_NAMES: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];
const isLoopbackName = (name: string) => LOOPBACK_HOST_NAMES.includes(name) || /^127(?:\.\d+){3}$/.test(name);

export interface OriginHosts {
  /** True for one of the origin's own hosts, in any spelling and on any port; true without a Host. */
  has(host: string | undefined): boolean;
  /** The canonical names, PUBLIC_BASE_URL's first. */
  readonly names: readonly string[];
}

/**
 * `publicBaseUrl`'s host and each of `listed` (PUBLIC_HOSTS). When one of them is a loopback name, all of
 * this machine's names are (a local stack answers on 127.0.0.1 and localhost alike). Throws for a listed
 * entry that is not a host name, which config validation already refuses.
 */
export function originHosts(publicBaseUrl: string, listed: readonly string[] = []): OriginHosts {
  const names: string[] = [];
  for (const host of [new URL(publicBaseUrl).host, ...listed]) {
    const name = parseHost(host)?.hostname;
    if (name === undefined) throw new Error(`Not a host name: ${host}`);
    if (!names.includes(name)) names.push(name);
  }
  const set = new Set(names);
  const loopback = names.some(isLoopbackName);
  return {
    names,
    has(host) {
      if (host === undefined) return true;
      const name = parseHost(host)?.hostname;
      return name !== undefined && (set.has(name) || (loopback && isLoopbackName(name)));
    },
  };
}
