import type { PrismaClient } from "@kurz/db";
import {
  createApp,
  healthRoutes,
  installErrorHandlers,
  type Logger,
  requireInternal,
} from "@kurz/service-kit";
import type { Express } from "express";
import type { Redis } from "ioredis";
import type { KeyLimits } from "./api-keys.ts";
import type { LegacyRecords } from "./legacy-records.ts";
import type { QrRenderer } from "./qr-renderer.ts";
import type { RedirectRecords } from "./redirect-records.ts";
import { accountRouter } from "./routes/account.ts";
import { bulkRouter } from "./routes/bulk.ts";
import { internalRouter } from "./routes/internal.ts";
import { internalLegacyRouter } from "./routes/internal-legacy.ts";
import { keysRouter } from "./routes/keys.ts";
import { campaignPageRouter } from "./routes/legacy/campaign-page.ts";
import { legacyRouter } from "./routes/legacy/index.ts";
import { linksRouter } from "./routes/links.ts";
import { qrRouter } from "./routes/qr.ts";
import type { TitleFetcher } from "./title-fetcher.ts";

export interface ManagementAppDeps {
  prisma: PrismaClient;
  records: RedirectRecords;
  redis: Redis;
  /** Rate limits stored on keys created through the API. */
  keyLimits: KeyLimits;
  qr: QrRenderer;
  /** Titles for links created without one. */
  titles: Pick<TitleFetcher, "titleFor">;
  legacyRecords: LegacyRecords;
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
  app.use("/internal", requireInternal(deps.internalToken), internalLegacyRouter(deps));
  // Public campaign list pages (no identity): the gateway forwards /c/ here.
  app.use("/c", campaignPageRouter(deps));
  app.use("/api", requireInternal(deps.internalToken));
  // Before the links router, whose `/:id` would otherwise take "bulk" for an id.
  app.use("/api/v1/links/bulk", bulkRouter(deps));
  app.use("/api/v1/links", linksRouter(deps));
  app.use("/api/v1/account/keys", keysRouter(deps));
  app.use("/api/v1/account", accountRouter(deps));
  app.use("/api/v1/qr", qrRouter(deps));
  app.use("/api", legacyRouter(deps));
  installErrorHandlers(app, { logger: deps.logger, envelope: "auto" });
  return app;
}
