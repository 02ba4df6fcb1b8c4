import type { IncomingMessage } from "node:http";

/**
 * The visitor's address. Behind `trustedHops` trusted proxies, each appends the address it saw to
 * X-Forwarded-For, so the client is the entry that many places from the right; anything further left
 * was written by the client and cannot be trusted. With no trusted proxy it is the socket's peer.
 */
export function clientIp(req: IncomingMessage, trustedHops: number): string | null {
  if (trustedHops > 0) {
    const xff = req.headers["x-forwarded-for"];
    const entries = (Array.isArray(xff) ? xff.join(",") : (xff ?? ""))
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const hit = entries[Math.max(0, entries.length - trustedHops)];
    if (hit) return stripV4Mapped(hit);
  }
  return stripV4Mapped(req.socket.remoteAddress ?? null);
}

// Dual-stack sockets report IPv4 peers as ::ffff:a.b.c.d; geolocation wants the plain form.
const stripV4Mapped = (addr: string | null) => (addr?.startsWith("::ffff:") ? addr.slice(7) : addr);
