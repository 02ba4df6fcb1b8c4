import type { IncomingMessage } from "node:http";
import { clickHeaders } from "./raw-headers.ts";

/** The visitor's address for a request (see addressFrom). */
export function clientIp(req: IncomingMessage, trustedHops: number): string | null {
  return addressFrom(
    req.socket.remoteAddress,
    trustedHops > 0 ? clickHeaders(req.rawHeaders).forwardedFor : undefined,
    trustedHops,
  );
}

/**
 * Behind `trustedHops` trusted proxies, each appends the address it saw to X-Forwarded-For, so the
 * client is the entry that many places from the right; anything further left was written by the
 * client and cannot be trusted. With no trusted proxy it is the socket's peer.
 * Scans from the right without splitting: this runs on every counted click.
 */
export function addressFrom(
  socketAddress: string | undefined,
  xff: string | undefined,
  trustedHops: number,
): string | null {
  if (trustedHops > 0 && xff) {
    let hit: string | null = null;
    let found = 0;
    let end = xff.length;
    while (end > 0 && found < trustedHops) {
      const comma = xff.lastIndexOf(",", end - 1);
      const entry = xff.slice(comma + 1, end).trim();
      if (entry !== "") {
        hit = entry;
        found++;
      }
      end = comma === -1 ? 0 : comma;
    }
    if (hit !== null) return stripV4Mapped(hit);
  }
  return stripV4Mapped(socketAddress ?? null);
}

// Dual-stack sockets report IPv4 peers as ::ffff:a.b.c.d; geolocation wants the plain form.
const stripV4Mapped = (addr: string | null) => (addr?.startsWith("::ffff:") ? addr.slice(7) : addr);
