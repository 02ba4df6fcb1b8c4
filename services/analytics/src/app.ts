import type { KurzClickHouse } from "@kurz/clickhouse";
import { authenticatedPrefixes } from "@kurz/contracts";
import {
  createApp,
  healthRoutes,
  installErrorHandlers,
  type Logger,
  type MountedRoute,
  mountRoutes,
  requireForwarded,
} from "@kurz/service-kit";
import type { Express } from "express";
import type { LinkDirectory } from "./management-links.ts";
import { campaignAnalyticsRoutes } from "./routes/campaign-analytics.ts";
import { analyticsExportRoutes } from "./routes/exports.ts";
import { linkAnalyticsRoutes } from "./routes/link-analytics.ts";
import { publicAnalyticsRoutes } from "./routes/public-analytics.ts";

export interface AnalyticsAppDeps {
  ch: KurzClickHouse;
  /** Management's word on which links exist and whose they are (read-your-writes). */
  links: LinkDirectory;
  logger: Logger;
  internalToken: string;
  readiness: Record<string, () => Promise<unknown>>;
}

/** The public API routes this service answers (records from contracts' ROUTES). */
export function analyticsRoutes(deps: AnalyticsAppDeps): MountedRoute[] {
  return [
    ...publicAnalyticsRoutes(deps),
    ...campaignAnalyticsRoutes(deps),
    ...linkAnalyticsRoutes(deps),
    ...analyticsExportRoutes(deps),
  ];
}

export function createAnalyticsApp(deps: AnalyticsAppDeps): Express {
  const app = createApp({ logger: deps.logger, envelope: "v1" });
  app.use(healthRoutes(deps.readiness));
  // Every route of this service takes the gateway's forwarding credential except the public ones
  // (their records say which): those carry no identity, and show only what a link's owner published.
  app.use(authenticatedPrefixes("analytics"), requireForwarded(deps.internalToken));
  mountRoutes(app, analyticsRoutes(deps));
  installErrorHandlers(app, { logger: deps.logger, envelope: "v1" });
  return app;
}
