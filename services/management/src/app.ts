import type { RequestListener } from "node:http";
import { IMPORT_MAX_BYTES, OG_IMAGE_READ_MAX_BYTES, ROUTES } from "@kurz/contracts";
import { isDatabaseUnavailable, type PrismaClient } from "@kurz/db";
import {
  createApp,
  directRoutes,
  healthRoutes,
  type InternalRoute,
  installErrorHandlers,
  type Logger,
  type MountedRoute,
  mountInternal,
  mountRoutes,
  originHosts,
  requireForwarded,
  trackRequestCallers,
} from "@kurz/service-kit";
import type { Express } from "express";
import type { Redis } from "ioredis";
import { createTxtLookup, type TxtLookup } from "./domains/domain-verification.ts";
import { SiteLimiter } from "./health/check-destination.ts";
import { type HealthDeps, healthDepsFrom } from "./health/health-routes-deps.ts";
import type { KeyLimits } from "./keys/api-keys.ts";
import type { QrRenderer } from "./links/qr-renderer.ts";
import type { Mailer } from "./mail/mailer.ts";
import type { DomainAndRotatorRecords } from "./projections/domain-and-rotator-records.ts";
import type { RedirectRecords } from "./projections/link-records.ts";
import { OverlayRecords } from "./projections/overlay-records.ts";
import { accountRoutes } from "./routes/account.ts";
import { auditRoutes } from "./routes/audit.ts";
import { authRoutes } from "./routes/auth.ts";
import { bulkRoutes } from "./routes/bulk.ts";
import { exportsRoutes } from "./routes/exports.ts";
import { linkHealthRoutes } from "./routes/health.ts";
import { importsRoutes } from "./routes/imports.ts";
import { internalLinkAndKeyRoutes } from "./routes/internal.ts";
import { internalAdminRoutes } from "./routes/internal-admin.ts";
import { internalAnalyticsRoutes } from "./routes/internal-analytics.ts";
import { internalDomainAndRotatorRoutes } from "./routes/internal-domains-and-rotators.ts";
import { internalOverlayRoutes } from "./routes/internal-overlays.ts";
import { internalSessionRoutes } from "./routes/internal-sessions.ts";
import { keysRoutes } from "./routes/keys.ts";
import { leaveRoutes } from "./routes/leave.ts";
import { campaignPageRouter } from "./routes/legacy/campaign-page.ts";
import { legacyRoutes } from "./routes/legacy/index.ts";
import { linksRoutes } from "./routes/links.ts";
import { overlaysRoutes } from "./routes/overlays.ts";
import { qrRoutes } from "./routes/qr.ts";
import { smartLinksRoutes } from "./routes/smart-links.ts";
import { ssoRoutes } from "./routes/sso.ts";
import { twoFactorRoutes } from "./routes/two-factor.ts";
import { webhooksRoutes } from "./routes/webhooks.ts";
import { workspacesRoutes } from "./routes/workspaces.ts";
import type { SigninLimits } from "./sessions/signin-limits.ts";
import type { SsoSettings } from "./sso/sso-settings.ts";
import type { TitleFetcher } from "./titles/title-fetcher.ts";
import { relyingPartyFrom } from "./two-factor/factors.ts";
import type { WebhookEndpointDeps } from "./webhooks/endpoints.ts";
import type { SecretBox } from "./webhooks/secrets.ts";

export interface ManagementAppDeps {
  prisma: PrismaClient;
  records: RedirectRecords;
  redis: Redis;
  /** Rate limits stored on keys created through the API. */
  keyLimits: KeyLimits;
  qr: QrRenderer;
  /** Titles for links created without one. */
  titles: Pick<TitleFetcher, "titleFor" | "enabled"> & Partial<Pick<TitleFetcher, "framingAllowed">>;
  domainAndRotatorRecords: DomainAndRotatorRecords;
  /** CTA overlays for the redirect (`overlay:<id>`); built from `redis` when absent. */
  overlayRecords?: OverlayRecords;
  /** DNS TXT lookups for branded-domain verification (system resolvers when absent). */
  domainTxtLookup?: TxtLookup;
  logger: Logger;
  internalToken: string;
  /** ADMIN_TOKEN: the operators' credential for /internal/admin; absent, those routes are off. */
  adminToken?: string;
  baseUrl: string;
  /** PUBLIC_HOSTS: more names of the public origin besides baseUrl's (service-kit's origin-hosts.ts). */
  publicHosts?: readonly string[];
  readiness: Record<string, () => Promise<unknown>>;
  onEventsWritten: () => void;
  /** How long a deleted code stays reserved to its former owner (RETIRED_CODE_DAYS). */
  retiredCodeGraceMs: number;
  /** An import job was queued (wakes the import worker). */
  onImportQueued?: () => void;
  /** Webhook endpoints: the secret box, the SSRF guard for their URLs, the retry window. */
  webhooks: Omit<WebhookEndpointDeps, "prisma">;
  /** SIGNUP: "closed" refuses sign-up through the API (the admin CLI still creates accounts). */
  signup: "open" | "closed";
  /** SESSION_TTL_HOURS in milliseconds: a session's idle lifetime. */
  sessionTtlMs: number;
  /** SESSION_MAX_AGE_DAYS in milliseconds: a session ends this long after sign-in, however used. */
  sessionMaxAgeMs: number;
  signinLimits: SigninLimits;
  /** Outgoing e-mail (SMTP_URL); null: links are shown to whoever would have mailed them. */
  mailer?: Mailer | null;
  /** Seals TOTP secrets: a SecretBox of WEBHOOK_SECRETS_KEY with the purpose "totp". */
  totpSecrets: SecretBox;

  /** Single sign-on: the server's provider (OIDC_*), sealed secrets, guarded provider clients. */
  sso: SsoSettings;
  /** Destination health checks; absent: a checker with no allow-list and the system's DNS. */
  health?: HealthDeps;
}

/** The public API routes this service answers (records from contracts' ROUTES). */
export function managementRoutes(input: ManagementAppDeps): MountedRoute[] {
  // The audit log names each change's actor and origin from the request being answered.
  trackRequestCallers();
  const deps = withOverlayRecords(input);
  return [
    ...authRoutes({ ...deps, mailer: deps.mailer ?? null }),
    ...twoFactorRoutes({ ...deps, mailer: deps.mailer ?? null }),
    ...accountRoutes(deps),
    ...keysRoutes(deps),
    ...linksRoutes(deps),
    ...linkHealthRoutes({
      ...deps,
      health:
        deps.health ??
        healthDepsFrom({ TITLE_FETCH_ALLOW_HOSTS: [], TITLE_FETCH_DNS_SERVERS: [] }, new SiteLimiter()),
    }),
    ...smartLinksRoutes(deps),
    ...bulkRoutes(deps),
    ...importsRoutes({ prisma: deps.prisma, onImportQueued: deps.onImportQueued ?? (() => {}) }),
    ...exportsRoutes(deps),
    ...qrRoutes(deps),
    ...overlaysRoutes(deps),
    ...webhooksRoutes({ prisma: deps.prisma, ...deps.webhooks }),
    ...workspacesRoutes({ ...deps, mailer: deps.mailer ?? null }),
    ...leaveRoutes(deps),
    ...ssoRoutes({
      ...deps,
      mailer: deps.mailer ?? null,
      domainTxtLookup: deps.domainTxtLookup ?? createTxtLookup({ servers: [] }),
    }),
    ...auditRoutes(deps),
    ...legacyRoutes(deps),
  ];
}

/** The internal routes this service answers (records from contracts' INTERNAL_ROUTES). */
export function managementInternalRoutes(input: ManagementAppDeps): InternalRoute[] {
  const deps = withOverlayRecords(input);
  return [
    ...internalAdminRoutes(deps),
    ...internalLinkAndKeyRoutes(deps),
    ...internalSessionRoutes(deps),
    ...internalDomainAndRotatorRoutes(deps),
    ...internalOverlayRoutes(deps),
    ...internalAnalyticsRoutes(deps),
  ];
}

/** Overlay records are written through the same Redis as link records; built here unless given. */
const withOverlayRecords = (deps: ManagementAppDeps) => ({
  ...deps,
  relyingParty: relyingPartyFrom(deps.baseUrl, deps.publicHosts),
  overlayRecords: deps.overlayRecords ?? new OverlayRecords(deps.redis, deps.logger),
});

/**
 * Records answered on plain node:http before Express (decision 0044): the hottest keyed read, and since
 * decision 0044 the create, when its body is plain JSON (anything else still goes through Express).
 */
const DIRECT: ReadonlySet<unknown> = new Set([ROUTES.getLink, ROUTES.createLink]);

/** The service's request listener: the direct routes, then the Express app for everything else. */
export function createManagementListener(input: ManagementAppDeps): RequestListener {
  const deps = withOverlayRecords(input);
  return directRoutes(
    {
      routes: managementRoutes(deps).filter((r) => DIRECT.has(r.def)),
      internalToken: deps.internalToken,
      logger: deps.logger,
      isUnavailable: isDatabaseUnavailable,
    },
    createManagementApp(deps),
  );
}

export function createManagementApp(input: ManagementAppDeps): Express {
  const deps = withOverlayRecords(input);
  const app = createApp({
    logger: deps.logger,
    envelope: "auto",
    // An import's body is the file itself (CSV or JSON of several megabytes), read as raw bytes; so
    // is an image's (a 400 names its limit up to the read limit, 413 above).
    rawBodies: [
      { method: ROUTES.createImport.method, path: ROUTES.createImport.path, limit: IMPORT_MAX_BYTES },
      { method: ROUTES.uploadImage.method, path: ROUTES.uploadImage.path, limit: OG_IMAGE_READ_MAX_BYTES },
    ],
  });
  app.use(healthRoutes(deps.readiness));
  // Internal endpoints take the credential their record names and never a user's identity
  // (docs/security.md); the operators' routes take the admin credential, which no service holds.
  mountInternal(app, managementInternalRoutes(deps), deps);
  // Public campaign list pages (no identity): the gateway forwards /c/ here.
  app.use("/c", campaignPageRouter({ ...deps, originHosts: originHosts(deps.baseUrl, deps.publicHosts) }));
  // Only requests the gateway forwarded, with the identity it established.
  app.use("/api", requireForwarded(deps.internalToken));
  mountRoutes(app, managementRoutes(deps));
  installErrorHandlers(app, { logger: deps.logger, envelope: "auto", isUnavailable: isDatabaseUnavailable });
  return app;
}
