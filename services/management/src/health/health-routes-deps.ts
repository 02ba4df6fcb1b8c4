// What the health routes need, and how the service builds it from its settings: the destination
// checker shares the title fetch's allow-list and DNS servers (TITLE_FETCH_ALLOW_HOSTS,
// TITLE_FETCH_DNS_SERVERS), so one setting says which hosts outbound fetches may reach.
import type { ManagementConfig } from "../config.ts";
import { serversResolve } from "../security/public-address-guard.ts";
import { DestinationChecker, SiteLimiter } from "./check-destination.ts";

export interface HealthDeps {
  checker: Pick<DestinationChecker, "check">;
  limiter: SiteLimiter;
  /** Checks on demand per workspace per clock minute. */
  checksPerMinute: number;
  now: () => number;
}

/** Checks on demand a workspace may start in a minute (POST /api/v1/links/:id/health/check). */
export const HEALTH_CHECKS_PER_MINUTE = 10;

export function healthDepsFrom(
  config: Pick<ManagementConfig, "TITLE_FETCH_ALLOW_HOSTS" | "TITLE_FETCH_DNS_SERVERS">,
  now: () => number = Date.now,
): HealthDeps & { close(): Promise<void> } {
  const checker = new DestinationChecker({
    allowHosts: config.TITLE_FETCH_ALLOW_HOSTS,
    now,
    ...(config.TITLE_FETCH_DNS_SERVERS.length > 0
      ? { resolve: serversResolve(config.TITLE_FETCH_DNS_SERVERS) }
      : {}),
  });
  return {
    checker,
    limiter: new SiteLimiter(1_000, now),
    checksPerMinute: HEALTH_CHECKS_PER_MINUTE,
    now,
    close: () => checker.close(),
  };
}
