// Who a per-client budget counts (password attempts, unknown-code lookups). An IPv6 client is its
// /64: one subscriber line or host is routinely given a whole /64, so counting single addresses would
// give it 2^64 budgets. The key is a hash: Redis keys show up in monitoring tools, raw addresses must
// not (docs/redirect.md).
import { createHash } from "node:crypto";
import ipaddr from "ipaddr.js";

/** The network a client address is counted under: an IPv4 address, or an IPv6 address's /64. */
export function clientNetwork(ip: string | null): string {
  if (ip === null || ip === "") return "unknown";
  if (ipaddr.IPv6.isValid(ip)) {
    const addr = ipaddr.IPv6.parse(ip);
    if (addr.isIPv4MappedAddress()) return addr.toIPv4Address().toString();
    const prefix = addr.parts
      .slice(0, 4)
      .map((part) => part.toString(16))
      .join(":");
    return `${prefix}::/64`;
  }
  // An IPv4 address, or whatever a trusted proxy put in X-Forwarded-For: counted as given.
  return ip.length > 64 ? ip.slice(0, 64) : ip;
}

export function clientKey(ip: string | null): string {
  return createHash("sha256").update(clientNetwork(ip)).digest("base64url").slice(0, 22);
}
