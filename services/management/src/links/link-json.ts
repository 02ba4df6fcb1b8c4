// A link as the API shows it, and as the export writes it: one mapping, the export's row
// derived from the API's object so the two never disagree on a field.
import type { AnalyticsSharedField, ExportedLink, Link as LinkJson } from "@kurz/contracts";
import type { Link } from "@kurz/db";
import { type DomainOrigins, shortUrlOf } from "./short-url.ts";
import { SMART_MEMBERS, smartJson } from "./smart-fields.ts";

/**
 * The v1 link object. A link on a branded domain has its short URL on that domain: `domains` maps the
 * account's domain ids to their origins (short-url.ts).
 */
export function toLinkJson(link: Omit<Link, "version">, baseUrl: string, domains: DomainOrigins): LinkJson {
  const domain = link.domainId != null ? domains.get(link.domainId) : undefined;
  return {
    id: link.id,
    short_code: link.shortCode,
    short_url: shortUrlOf(link, baseUrl, domains),
    original_url: link.originalUrl,
    title: link.title,
    is_active: link.isActive,
    has_password: link.passwordHash !== null,
    expires_at: link.expiresAt?.toISOString() ?? null,
    clicks_count: Number(link.clicksCount),
    analytics_public: link.analyticsPublic,
    created_at: link.createdAt.toISOString(),
    updated_at: link.updatedAt.toISOString(),
    overlay_id: link.overlayId ?? null,
    domain: domain?.host ?? null,
    ...smartJson(link, baseUrl),
    broken_url: link.brokenUrl,
    broken_since: link.brokenSince?.toISOString() ?? null,
  };
}

/** The fields of its analytics a link's owner made public (null: none chosen). */
export function sharedFieldsOf(link: Pick<Link, "analyticsSharedFields">): AnalyticsSharedField[] | null {
  const shared = link.analyticsSharedFields;
  return Array.isArray(shared) ? (shared as AnalyticsSharedField[]) : null;
}

/**
 * One link of the export (contracts' LINK_EXPORT_COLUMNS, in that order): the API's object without its
 * overlay, domain (the short URL carries the domain), smart members and health members, with the shared analytics fields.
 */
export function toExportedLink(link: Link, baseUrl: string, domains: DomainOrigins): ExportedLink {
  const {
    overlay_id: _overlay,
    domain: _domain,
    created_at,
    updated_at,
    broken_url: _brokenUrl,
    broken_since: _brokenSince,
    ...json
  } = toLinkJson(link, baseUrl, domains);
  for (const member of SMART_MEMBERS) delete json[member];
  return { ...json, analytics_shared_fields: sharedFieldsOf(link), created_at, updated_at };
}
