// The SSRF guard every outbound fetch of management goes through (title fetcher, webhooks): only public
// addresses, checked after DNS and with the connection pinned to the checked address, so a second DNS
// answer (rebinding) cannot swap in a private one. Allow-listed host names skip the check; they exist
// for tests that serve from loopback and are empty by default.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { Resolver } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/** Why an outbound request was not made. */
export class OutboundRefused extends Error {
  override name = "OutboundRefused";
}

/** The resolver the guard asks; node's by default, replaceable in tests (DNS rebinding). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/**
 * True for a globally routable unicast address. Everything else is refused: loopback, private,
 * link-local (169.254.169.254 metadata included), CGNAT, multicast, reserved, unique-local (fd00:ec2::254
 * metadata), IPv4-mapped/translated forms of those, and any IPv6 outside 2000::/3.
 */
export function isPublicAddress(ip: string): boolean {
  const bare = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  if (isIP(bare) === 0) return false;
  let addr: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(bare);
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  if (addr.kind() === "ipv6" && (addr.toByteArray()[0]! & 0xe0) !== 0x20) return false;
  return addr.range() === "unicast";
}

/** A resolver that asks the given DNS servers (A and AAAA) instead of the system's. */
export function serversResolve(servers: string[], timeoutMs = 5_000): Resolve {
  return async (hostname) => {
    const resolver = new Resolver({ timeout: Math.ceil(timeoutMs / 2), tries: 2 });
    resolver.setServers(servers);
    const none = (err: NodeJS.ErrnoException) => {
      if (err.code === "ENODATA" || err.code === "ENOTFOUND") return [] as string[];
      throw err;
    };
    const [v4, v6] = await Promise.all([
      resolver.resolve4(hostname).catch(none),
      resolver.resolve6(hostname).catch(none),
    ]);
    const all = [
      ...v4.map((address) => ({ address, family: 4 })),
      ...v6.map((address) => ({ address, family: 6 })),
    ];
    if (all.length === 0)
      throw Object.assign(new Error(`${hostname} does not resolve`), { code: "ENOTFOUND" });
    return all;
  };
}

export class PublicAddressGuard {
  private readonly allowHosts: Set<string>;

  constructor(
    allowHosts: readonly string[] = [],
    private readonly resolve: Resolve = systemResolve,
  ) {
    this.allowHosts = new Set(allowHosts.map((h) => h.trim().toLowerCase()).filter(Boolean));
  }

  isAllowListed(hostname: string): boolean {
    return this.allowHosts.has(hostname.toLowerCase());
  }

  /** Refuses a non-http(s) URL and a non-public IP literal (IP literals never reach the lookup). */
  assertUrl(url: URL): void {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new OutboundRefused(`${url.protocol} URLs are not fetched`);
    }
    const host = url.hostname.toLowerCase();
    if (this.allowHosts.has(host)) return;
    const bare = host.startsWith("[") ? host.slice(1, -1) : host;
    if (isIP(bare) !== 0 && !isPublicAddress(bare)) {
      throw new OutboundRefused(`${host} is not a public address`);
    }
  }

  /** The host's addresses when every one is public (or the host is allow-listed); throws otherwise. */
  async addressesOf(hostname: string): Promise<LookupAddress[]> {
    const bare = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
    if (isIP(bare) !== 0) {
      if (!this.allowHosts.has(hostname.toLowerCase()) && !isPublicAddress(bare)) {
        throw new OutboundRefused(`${hostname} is not a public address`);
      }
      return [{ address: bare, family: isIP(bare) }];
    }
    const addresses = await this.resolve(hostname);
    if (!this.allowHosts.has(hostname.toLowerCase())) {
      if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) {
        throw new OutboundRefused(`${hostname} resolves to a non-public address`);
      }
    }
    return addresses;
  }

  /** A socket lookup that connects only to addresses this guard has just checked. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.addressesOf(hostname).then(
      (addresses) => {
        if (options.all)
          return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        const first = addresses[0]!;
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, "", 0),
    );
  };
}
