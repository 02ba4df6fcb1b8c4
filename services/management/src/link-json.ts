import type { Link as LinkJson } from "@kurz/contracts";
import type { Link } from "@kurz/db";

/** The v1 link object (SPEC 2.1). The single-link read adds analytics_shared_fields. */
export function toLinkJson(link: Link, baseUrl: string): LinkJson {
  return {
    id: link.id,
    short_code: link.shortCode,
    short_url: `${baseUrl}/${link.shortCode}`,
    original_url: link.originalUrl,
    title: link.title,
    is_active: link.isActive,
    has_password: link.passwordHash !== null,
    expires_at: link.expiresAt?.toISOString() ?? null,
    clicks_count: Number(link.clicksCount),
    analytics_public: link.analyticsPublic,
    created_at: link.createdAt.toISOString(),
    updated_at: link.updatedAt.toISOString(),
  };
}
