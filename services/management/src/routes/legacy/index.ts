// The older unversioned API: every legacy route, each paired with its record in contracts'
// routes-legacy.ts; app.ts mounts them (full paths under /api) with the v1 ones.
import type { PrismaClient } from "@kurz/db";
import type { MountedRoute } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import type { TxtLookup } from "../../domains/domain-verification.ts";
import type { DomainAndRotatorRecords } from "../../projections/domain-and-rotator-records.ts";
import type { RedirectRecords } from "../../projections/link-records.ts";
import type { OverlayRecords } from "../../projections/overlay-records.ts";
import { legacyAccountRoutes } from "./account.ts";
import { legacyCampaignsRoutes } from "./campaigns.ts";
import { legacyChannelsRoutes } from "./channels.ts";
import { legacyDomainsRoutes } from "./domains.ts";
import { legacyOverlaysRoutes } from "./overlays.ts";

export interface LegacyDeps {
  prisma: PrismaClient;
  redis: Redis;
  domainAndRotatorRecords: DomainAndRotatorRecords;
  baseUrl: string;
  /** PUBLIC_HOSTS: more names of the origin, none of which can be a branded domain. */
  publicHosts?: readonly string[];
  domainTxtLookup?: TxtLookup;
  overlayRecords: OverlayRecords;
  records: RedirectRecords;
  /** A domain's delete deletes its links (link.deleted events, retired codes). */
  onEventsWritten: () => void;
  retiredCodeGraceMs: number;
}

export function legacyRoutes(deps: LegacyDeps): MountedRoute[] {
  return [
    ...legacyAccountRoutes(deps),
    ...legacyDomainsRoutes(deps),
    ...legacyOverlaysRoutes(deps),
    ...legacyCampaignsRoutes(deps),
    ...legacyChannelsRoutes(deps),
  ];
}
