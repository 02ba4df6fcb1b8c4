import type { Link as LinkJson } from "@kurz/contracts";
import type { Link } from "@kurz/db";
import { type DomainOrigins, shortUrlOf } from "./short-url.ts";

/**
 * The v1 link object (SPEC 2.1). The single-link read adds analytics_shared_fields. A link on a
 * branded domain (issue 13) has its short URL on that domain: `domains` maps the account's domain ids
 * to their origins (short-url.ts).
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
  };
}
