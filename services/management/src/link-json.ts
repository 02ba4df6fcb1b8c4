import type { Link as LinkJson } from "@kurz/contracts";
import type { Link } from "@kurz/db";

/** A branded domain as a link's JSON needs it: its host and the origin its short URLs use. */
export interface LinkDomainInfo {
  host: string;
  origin: string;
}

/**
 * The v1 link object (SPEC 2.1). The single-link read adds analytics_shared_fields. A link on a
 * branded domain (issue 13) has its short URL on that domain: `domains` maps the account's domain ids
 * to their origins (links-domains.ts); without an entry the link shows the service's own host.
 */
export function toLinkJson(
  link: Link,
  baseUrl: string,
  domains?: ReadonlyMap<number, LinkDomainInfo>,
): LinkJson {
  const domain = link.domainId != null ? domains?.get(link.domainId) : undefined;
  return {
    id: link.id,
    short_code: link.shortCode,
    short_url: `${domain?.origin ?? baseUrl}/${link.shortCode}`,
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
