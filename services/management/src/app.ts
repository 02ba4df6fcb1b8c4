import type { PrismaClient } from "@kurz/db";
import {
  createApp,
  healthRoutes,
  installErrorHandlers,
  type Logger,
  requireInternal,
} from "@kurz/service-kit";
import type { Express } from "express";
import type { RedirectRecords } from "./redirect-records.ts";
import { internalRouter } from "./routes/internal.ts";
import { linksRouter } from "./routes/links.ts";

export interface ManagementAppDeps {
  prisma: PrismaClient;
  records: RedirectRecords;
  logger: Logger;
  internalToken: string;
  baseUrl: string;
  readiness: Record<string, () => Promise<unknown>>;
  onEventsWritten: () => void;
}

export function createManagementApp(deps: ManagementAppDeps): Express {
  const app = createApp({ logger: deps.logger, envelope: "auto" });
  app.use(healthRoutes(deps.readiness));
  // Only the gateway (and sibling services) may call in; it vouches for the caller's identity.
  app.use("/internal", requireInternal(deps.internalToken), internalRouter(deps));
  app.use("/api", requireInternal(deps.internalToken));
  app.use("/api/v1/links", linksRouter(deps));
  installErrorHandlers(app, { logger: deps.logger, envelope: "auto" });
  return app;
}
