// The health scheduler the service's settings ask for (docs/configuration.md, HEALTH_*): none with
// HEALTH_SCHEDULE=off, so an instance can serve without checking links (the test stacks do).
import type { ManagementConfig } from "../config.ts";
import { HealthScheduler, type HealthSchedulerDeps } from "./schedule-runner.ts";

export function healthSchedulerFrom(
  config: Pick<ManagementConfig, "HEALTH_SCHEDULE" | "HEALTH_CHECK_CONCURRENCY" | "HEALTH_SCHEDULE_POLL_MS">,
  deps: Pick<HealthSchedulerDeps, "prisma" | "records" | "onEventsWritten" | "slots" | "checker" | "logger">,
): HealthScheduler | null {
  if (config.HEALTH_SCHEDULE === "off") return null;
  return new HealthScheduler({
    ...deps,
    concurrency: config.HEALTH_CHECK_CONCURRENCY,
    pollMs: config.HEALTH_SCHEDULE_POLL_MS,
  });
}
