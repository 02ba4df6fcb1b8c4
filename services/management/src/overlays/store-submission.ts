// Storing a contact submission a visitor left through the redirect.
import type { OverlaySubmissionBody } from "@kurz/contracts";
import type { Link, Overlay, OverlaySubmission, PrismaClient } from "@kurz/db";
import { ApiError } from "@kurz/service-kit";

/**
 * Stores a visitor's contact form for the link `shortCode`, when that link carries a contact overlay.
 * Only the fields the overlay asks for are kept, and at least one must be filled. Returns null when
 * the link has no contact overlay (the redirect answers 404 then). No address or user agent is kept.
 */
export async function storeSubmission(
  prisma: PrismaClient,
  shortCode: string,
  body: OverlaySubmissionBody,
): Promise<OverlaySubmission | null> {
  const link: (Link & { overlay: Overlay | null }) | null = await prisma.link.findUnique({
    where: { shortCode },
    include: { overlay: true },
  });
  const overlay = link?.overlay;
  if (!link || !overlay || overlay.type !== "contact" || !link.isActive) return null;
  const asked = new Set(Array.isArray(overlay.fields) ? (overlay.fields as string[]) : []);
  const pick = <K extends keyof OverlaySubmissionBody>(k: K) => (asked.has(k) ? (body[k] ?? null) : null);
  const data = { name: pick("name"), email: pick("email"), phone: pick("phone"), message: pick("message") };
  if (Object.values(data).every((v) => v === null)) {
    throw new ApiError(400, "VALIDATION_ERROR", "Fill in at least one field");
  }
  if (asked.has("email") && data.email === null) {
    throw new ApiError(400, "VALIDATION_ERROR", "An e-mail address is required");
  }
  return prisma.overlaySubmission.create({
    data: { overlayId: overlay.id, accountId: link.accountId, linkId: link.id, ...data },
  });
}
