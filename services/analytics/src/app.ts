import type { KurzClickHouse } from "@kurz/clickhouse";
import {
  createApp,
  healthRoutes,
  installErrorHandlers,
  type Logger,
  requireForwarded,
} from "@kurz/service-kit";
import type { Express } from "express";
import type { LinkDirectory } from "./management-links.ts";
import { linkAnalyticsRouter } from "./routes/link-analytics.ts";
import { publicAnalyticsRouter } from "./routes/public-analytics.ts";

export function createAnalyticsApp(deps: {
  ch: KurzClickHouse;
  /** Management's word on which links exist and whose they are (read-your-writes). */
  links: LinkDirectory;
  logger: Logger;
  internalToken: string;
  readiness: Record<string, () => Promise<unknown>>;
}): Express {
  const app = createApp({ logger: deps.logger, envelope: "v1" });
  app.use(healthRoutes(deps.readiness));
  // Public analytics carry no identity: the gateway forwards them unauthenticated, and they show only
  // what a link's owner chose to publish.
  app.use("/api/v1/public/analytics", publicAnalyticsRouter(deps));
  app.use("/api/v1/analytics", requireForwarded(deps.internalToken), linkAnalyticsRouter(deps));
  installErrorHandlers(app, { logger: deps.logger, envelope: "v1" });
  return app;
}
