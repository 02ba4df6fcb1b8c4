// Edits and deletes reach every redirect instance at once through Redis pub/sub. Messages published
// while this instance's subscriber is disconnected are lost, so after every reconnection the caches are
// dropped: a missed edit is then bounded by the outage, not by the cache TTL.
import { INVALIDATION_CHANNEL, invalidationEntries } from "@kurz/contracts";
import type { Redis } from "ioredis";
import type { Resolver } from "./resolver.ts";

export function followInvalidations(
  subscriber: Redis,
  resolver: Resolver,
  logger: { warn(o: object, m?: string): void },
): void {
  let connectedBefore = false;
  subscriber.on("ready", () => {
    if (connectedBefore) {
      resolver.clear();
      logger.warn({}, "invalidation channel reconnected; in-process caches dropped");
    }
    connectedBefore = true;
  });
  // A message may name several entries (the creates that finished together, decision 0052).
  subscriber.on("message", (_channel: string, message: string) => {
    for (const entry of invalidationEntries(message)) resolver.invalidate(entry);
  });
  // Not awaited: a redirect started while Redis is down must still serve (through management);
  // ioredis subscribes again on every reconnection.
  subscriber.subscribe(INVALIDATION_CHANNEL).catch((err: unknown) => {
    logger.warn({ err: String(err) }, "invalidation channel unavailable; relying on the cache TTL");
  });
}
