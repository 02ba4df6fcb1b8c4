// Every public route in one record, keyed by name (ROUTES.getLink), and the plain route list the
// gateway's 405 table and the tests read.

import { ACCOUNT_DELETION_ROUTES } from "./account-deletion.ts";

import { AUDIT_ROUTES } from "./audit.ts";
import { EXPORT_ROUTES } from "./exports.ts";
import { HEALTH_ROUTES } from "./health.ts";
import { IMPORT_ROUTES } from "./imports.ts";
import { type ApiRoute, type RouteDef, V1_ROUTES } from "./routes.ts";
import { CAMPAIGN_ROUTES } from "./routes-campaigns.ts";
import { LEGACY_ROUTES } from "./routes-legacy.ts";
import { OVERLAY_ROUTES } from "./routes-overlays.ts";
import { SMART_LINK_ROUTES } from "./routes-smart-links.ts";
import { TWO_FACTOR_ROUTES } from "./routes-two-factor.ts";
import { WORKSPACE_ROUTES } from "./routes-workspaces.ts";
import { SSO_ROUTES } from "./sso.ts";
import { WEBHOOK_ROUTES } from "./webhooks.ts";

export const ROUTES = {
  ...V1_ROUTES,
  ...SMART_LINK_ROUTES,
  ...HEALTH_ROUTES,
  ...TWO_FACTOR_ROUTES,
  ...IMPORT_ROUTES,
  ...EXPORT_ROUTES,
  ...WEBHOOK_ROUTES,
  ...WORKSPACE_ROUTES,
  ...SSO_ROUTES,

  ...AUDIT_ROUTES,
  ...LEGACY_ROUTES,
  ...OVERLAY_ROUTES,
  ...CAMPAIGN_ROUTES,
  ...ACCOUNT_DELETION_ROUTES,
} as const;
export type RouteKey = keyof typeof ROUTES;

/** Every route record, in declaration order. */
export const ROUTE_DEFS: readonly RouteDef[] = Object.freeze(Object.values(ROUTES));

/** Every route the public API serves (method, path, tag), for the gateway and the document. */
export const API_ROUTES: readonly ApiRoute[] = Object.freeze(
  ROUTE_DEFS.map(({ method, path, tag }) => Object.freeze({ method, path, tag })),
);
