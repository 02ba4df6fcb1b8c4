// What the health routes and the scheduler need, and how the service builds it from its settings: the
// destination checker shares the title fetch's allow-list and DNS servers (TITLE_FETCH_ALLOW_HOSTS,
// TITLE_FETCH_DNS_SERVERS), so one setting says which hosts outbound fetches may reach; the per-site
// politeness is kept in Redis (site-slots.ts), so it holds across management instances.
import type { ManagementConfig } from "../config.ts";
import { serversResolve } from "../security/public-address-guard.ts";
import { DestinationChecker } from "./check-destination.ts";

export interface HealthDeps {
  checker: Pick<DestinationChecker, "check">;
  /** Runs a check holding its site's slot (SiteSlots; SiteLimiter in process for a bare app). */
  limiter: { run<T>(hostname: string, task: () => Promise<T>): Promise<T> };
  /** Checks on demand per workspace per clock minute. */
  checksPerMinute: number;
  now: () => number;
}

/** Checks on demand a workspace may start in a minute (POST /api/v1/links/:id/health/check). */
export const HEALTH_CHECKS_PER_MINUTE = 10;

/** The checker the settings describe (the routes' and the scheduler's). */
export function destinationCheckerFrom(
  config: Pick<ManagementConfig, "TITLE_FETCH_ALLOW_HOSTS" | "TITLE_FETCH_DNS_SERVERS">,
  now: () => number = Date.now,
): DestinationChecker {
  return new DestinationChecker({
    allowHosts: config.TITLE_FETCH_ALLOW_HOSTS,
    now,
    ...(config.TITLE_FETCH_DNS_SERVERS.length > 0
      ? { resolve: serversResolve(config.TITLE_FETCH_DNS_SERVERS) }
      : {}),
  });
}

export function healthDepsFrom(
  config: Pick<ManagementConfig, "TITLE_FETCH_ALLOW_HOSTS" | "TITLE_FETCH_DNS_SERVERS">,
  limiter: HealthDeps["limiter"],
  now: () => number = Date.now,
): HealthDeps & { checker: DestinationChecker; close(): Promise<void> } {
  const checker = destinationCheckerFrom(config, now);
  return {
    checker,
    limiter,
    checksPerMinute: HEALTH_CHECKS_PER_MINUTE,
    now,
    close: () => checker.close(),
  };
}
