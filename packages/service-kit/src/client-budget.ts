// The per-client budget for failed authentications, shared by the two services that answer API
// requests from the public origin: the gateway counts it, and the redirect (single-machine mode)
// reports it on the API paths it refuses before they reach the gateway (rate-limit headers are on
// every response). Both must key it identically, hence one home. The redirect's own per-client budgets
// (password attempts, unknown-code lookups, contact forms) count the same network (clientNetwork).
import { createHmac } from "node:crypto";
import { RATE_LIMIT_HEADERS, rateLimitKey } from "@kurz/contracts";
import ipaddr from "ipaddr.js";

/** The default of AUTH_FAILURE_LIMIT_PER_MINUTE (gateway and redirect). */
export const AUTH_FAILURE_LIMIT_DEFAULT = 30;

/** The clock-aligned window the failed-authentication budget is counted in. */
export const AUTH_FAILURE_WINDOW = { name: "1m", seconds: 60 } as const;

/**
 * The network a client address is counted under: an IPv4 address, or an IPv6 address's /64. One
 * subscriber line or host is routinely given a whole /64, so counting single IPv6 addresses would give
 * one client 2^64 budgets.
 */
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

/**
 * The client's network (clientNetwork), keyed-hashed: per-client budgets key on it and no raw IP is kept in Redis. Keyed
 * with the deployment's secret (shared by every instance) because a plain hash of an IPv4 address is
 * undone by hashing all 2^32 of them.
 */
export function clientBudgetHash(secret: string, ip: string): string {
  return createHmac("sha256", secret)
    .update(`client:${clientNetwork(ip)}`)
    .digest("hex")
    .slice(0, 32);
}

/** The rate-limit subject of a client's failed authentications. */
export const authFailureSubject = (clientHash: string): string => `auth-fail:${clientHash}`;

interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

/** Reads (never spends) the client's failed-authentication budget and reports it in X-RateLimit-* headers. */
export async function reportAuthFailureBudget(
  redis: { get(key: string): Promise<string | null> },
  res: HeaderSink,
  clientHash: string,
  limit: number,
  now = Date.now(),
): Promise<void> {
  const nowSec = Math.floor(now / 1000);
  const stored = Number(
    await redis.get(rateLimitKey(authFailureSubject(clientHash), AUTH_FAILURE_WINDOW, nowSec)),
  );
  const count = Number.isFinite(stored) ? stored : 0;
  res.setHeader(RATE_LIMIT_HEADERS.limit, String(limit));
  res.setHeader(RATE_LIMIT_HEADERS.remaining, String(Math.max(0, limit - count)));
  res.setHeader(
    RATE_LIMIT_HEADERS.reset,
    String((Math.floor(nowSec / AUTH_FAILURE_WINDOW.seconds) + 1) * AUTH_FAILURE_WINDOW.seconds),
  );
}
