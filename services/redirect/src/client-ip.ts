import type { IncomingMessage } from "node:http";

/** The visitor's address: X-Forwarded-For's first hop only behind a trusted proxy, else the socket's. */
export function clientIp(req: IncomingMessage, trustProxy: boolean): string | null {
  if (trustProxy) {
    const xff = req.headers["x-forwarded-for"];
    const first = (Array.isArray(xff) ? xff[0] : xff)?.split(",")[0]?.trim();
    if (first) return first;
  }
  const addr = req.socket.remoteAddress ?? null;
  // Dual-stack sockets report IPv4 peers as ::ffff:a.b.c.d; geolocation wants the plain form.
  return addr?.startsWith("::ffff:") ? addr.slice(7) : addr;
}
