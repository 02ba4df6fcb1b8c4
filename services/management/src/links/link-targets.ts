// What a link may point its visitors through besides its destination: one of the account's
// CTA overlays, and one of its verified branded domains. Checked before a link is written; another
// account's overlay or domain is refused exactly like one that does not exist, so ids reveal nothing.
import { parseHost, parseUrl } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { ApiError } from "@kurz/service-kit";

const invalid = (field: string, message: string) =>
  new ApiError(400, "VALIDATION_ERROR", `${field}: ${message}`, {
    _errors: [],
    [field]: { _errors: [message] },
  });

/** The overlay id when it is the account's; 400 otherwise. */
export async function ownOverlayId(
  prisma: PrismaClient,
  accountId: string,
  overlayId: number,
): Promise<number> {
  const overlay = await prisma.overlay.findFirst({
    where: { id: overlayId, accountId },
    select: { id: true },
  });
  if (!overlay) throw invalid("overlay_id", "No such overlay in your account");
  return overlay.id;
}

/** `go.example.com` or `https://go.example.com/` → `go.example.com` (canonical); null when no host. */
export function domainHostOf(value: string): string | null {
  const hostPart = /^[a-z][a-z0-9+.-]*:\/\//i.test(value)
    ? (parseUrl(value)?.host ?? "")
    : value.replace(/\/+$/, "");
  const parsed = parseHost(hostPart);
  return parsed && parsed.port === null ? parsed.hostname : null;
}

/**
 * The id of the account's branded domain `value`: 400 when the account has no such domain (another
 * account's included), 403 while it is not verified (docs/security.md: only proved domains serve).
 */
export async function ownVerifiedDomainId(
  prisma: PrismaClient,
  accountId: string,
  value: string,
): Promise<number> {
  const host = domainHostOf(value);
  const domain = host ? await prisma.domain.findFirst({ where: { host, accountId } }) : null;
  if (!domain) throw invalid("domain", "Not a branded domain of your account");
  if (domain.status !== "verified") {
    throw new ApiError(
      403,
      "FORBIDDEN",
      "This domain is not verified yet: publish its DNS TXT record and verify it (POST /api/domain/:id/verify)",
    );
  }
  return domain.id;
}

/** The account's domain id for a list filter, or null when it has none by that name. */
export async function domainFilterId(
  prisma: PrismaClient,
  accountId: string,
  value: string,
): Promise<number | null> {
  const host = domainHostOf(value);
  if (!host) return null;
  const domain = await prisma.domain.findFirst({ where: { host, accountId }, select: { id: true } });
  return domain?.id ?? null;
}
