// The client's keyed address hash (client-budget.ts), for per-client budgets and for upstreams.
import type { IncomingMessage } from "node:http";
import { clientBudgetHash, isProxiedSocket } from "@kurz/service-kit";
import { LRUCache } from "lru-cache";
import proxyAddr from "proxy-addr";
import type { GatewayConfig } from "./config.ts";

/** Clients whose address hash is kept in memory (client-budget.ts), about 100 bytes each. */
const CLIENT_HASHES_MAX = 10_000;

export type ClientHash = (req: IncomingMessage) => string;
/** The client's address as the budgets and the audit log's prefix see it ("" when unknown). */
export type ClientAddress = (req: IncomingMessage) => string;

export function createClientAddress(
  config: Pick<GatewayConfig, "TRUST_PROXY" | "SPLICE_TRUST_PROXY">,
): ClientAddress {
  // The client's address (per-client limits on public endpoints) is the visitor's, not that of the
  // proxies in front: TRUST_PROXY hops of X-Forwarded-For are believed, with Express's semantics
  // (proxy-addr is what Express itself uses), and only its keyed hash is kept (client-budget.ts).
  const trustHops = config.TRUST_PROXY;
  const trust = (_address: string, hop: number) => hop < trustHops;
  // A spliced connection (decision 0038) carries the client's bytes as the redirect received them, and
  // its peer is the one the redirect saw (the PROXY header): the redirect's hops are the ones to believe.
  const splicedHops = config.SPLICE_TRUST_PROXY;
  const splicedTrust = (_address: string, hop: number) => hop < splicedHops;
  return (req) => proxyAddr(req, isProxiedSocket(req.socket) ? splicedTrust : trust) ?? "";
}

export function createClientHash(
  config: Pick<GatewayConfig, "INTERNAL_TOKEN">,
  address: ClientAddress,
): ClientHash {
  // An HMAC per request was measurable and a client sends many: each address's hash is kept (bounded,
  // least recently used dropped first; the addresses stay in this process's memory only).
  const clientHashes = new LRUCache<string, string>({ max: CLIENT_HASHES_MAX });
  return (req) => {
    const client = address(req);
    let hash = clientHashes.get(client);
    if (hash === undefined) {
      hash = clientBudgetHash(config.INTERNAL_TOKEN, client);
      clientHashes.set(client, hash);
    }
    return hash;
  };
}
