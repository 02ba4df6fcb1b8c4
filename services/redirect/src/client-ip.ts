import type { IncomingMessage } from "node:http";

/**
 * The visitor's address. Behind `trustedHops` trusted proxies, each appends the address it saw to
 * X-Forwarded-For, so the client is the entry that many places from the right; anything further left
 * was written by the client and cannot be trusted. With no trusted proxy it is the socket's peer.
 * Scans from the right without splitting: this runs on every counted click.
 */
export function clientIp(req: IncomingMessage, trustedHops: number): string | null {
  if (trustedHops > 0) {
    const xff = req.headers["x-forwarded-for"];
    const value = Array.isArray(xff) ? xff.join(",") : xff;
    if (value) {
      let hit: string | null = null;
      let found = 0;
      let end = value.length;
      while (end > 0 && found < trustedHops) {
        const comma = value.lastIndexOf(",", end - 1);
        const entry = value.slice(comma + 1, end).trim();
        if (entry !== "") {
          hit = entry;
          found++;
        }
        end = comma === -1 ? 0 : comma;
      }
      if (hit !== null) return stripV4Mapped(hit);
    }
  }
  return stripV4Mapped(req.socket.remoteAddress ?? null);
}

// Dual-stack sockets report IPv4 peers as ::ffff:a.b.c.d; geolocation wants the plain form.
const stripV4Mapped = (addr: string | null) => (addr?.startsWith("::ffff:") ? addr.slice(7) : addr);
