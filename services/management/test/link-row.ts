// A links row as Prisma reads it, for tests that hand one to a projection or an event without a
// database: an active plain link (no password, overlay, domain or smart rules), `fields` on top.
import type { Link } from "@kurz/db";
import { NO_SMART_COLUMNS } from "../src/links/smart-fields.ts";

export function linkRow(
  fields: Pick<Link, "id" | "accountId" | "shortCode" | "originalUrl" | "title" | "expiresAt" | "createdAt">,
): Link {
  return {
    passwordHash: null,
    isActive: true,
    clicksCount: 0n,
    analyticsPublic: false,
    analyticsSharedFields: null,
    updatedAt: fields.createdAt,
    overlayId: null,
    domainId: null,
    frameable: null,
    frameCheckedAt: null,
    version: 1n,
    ...NO_SMART_COLUMNS,
    brokenUrl: null,
    brokenSince: null,
    ...fields,
  };
}
