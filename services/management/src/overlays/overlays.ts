// CTA overlays (docs/legacy-api.md "CTA overlays", decision 0026): the owner's create, read, edit and
// delete, and the contact submissions visitors leave through the redirect. Every lookup is scoped to
// the account, so another account's overlay is a 404 exactly like a missing one.
import type {
  LegacyListQuery,
  OverlayCreateBody,
  OverlaySubmissionBody,
  OverlayUpdateBody,
} from "@kurz/contracts";
import { OVERLAY_DEFAULTS } from "@kurz/contracts";
import type { Link, Overlay, OverlaySubmission, Prisma, PrismaClient } from "@kurz/db";
import { ApiError, notFound } from "@kurz/service-kit";
import { type LegacyPage, legacyPage } from "../db/numbered-page.ts";
import type { RedirectRecords } from "../projections/link-records.ts";
import type { OverlayRecords } from "../projections/overlay-records.ts";

export const overlayNotFound = () => notFound("Overlay not found");

export interface OverlayWriterDeps {
  prisma: PrismaClient;
  overlayRecords: OverlayRecords;
  records: Pick<RedirectRecords, "put">;
}

/** The account's overlays, newest first. */
export function listOverlays(
  prisma: PrismaClient,
  accountId: string,
  query: LegacyListQuery,
): Promise<LegacyPage<Overlay>> {
  const where = { accountId };
  return legacyPage(
    query,
    () => prisma.overlay.count({ where }),
    (skip, take) => prisma.overlay.findMany({ where, orderBy: { id: "desc" }, skip, take }),
  );
}

export async function getOverlay(prisma: PrismaClient, accountId: string, id: number): Promise<Overlay> {
  const overlay = await prisma.overlay.findFirst({ where: { id, accountId } });
  if (!overlay) throw overlayNotFound();
  return overlay;
}

export async function createOverlay(
  deps: OverlayWriterDeps,
  accountId: string,
  body: OverlayCreateBody,
): Promise<Overlay> {
  const overlay = await deps.prisma.overlay.create({
    data: {
      accountId,
      type: body.type,
      name: body.name,
      text: body.text ?? OVERLAY_DEFAULTS.text,
      buttonLabel: body.button_label ?? null,
      buttonUrl: body.button_url ?? null,
      fields: body.fields ?? OVERLAY_DEFAULTS.fields,
      bgColor: body.bg_color ?? OVERLAY_DEFAULTS.bg_color,
      textColor: body.text_color ?? OVERLAY_DEFAULTS.text_color,
      buttonColor: body.button_color ?? OVERLAY_DEFAULTS.button_color,
      position: body.position ?? OVERLAY_DEFAULTS.position,
    },
  });
  await deps.overlayRecords.put(overlay);
  return overlay;
}

export async function updateOverlay(
  deps: OverlayWriterDeps,
  accountId: string,
  id: number,
  body: OverlayUpdateBody,
): Promise<Overlay> {
  const current = await getOverlay(deps.prisma, accountId, id);
  const data: Prisma.OverlayUpdateInput = {};
  if (body.name !== undefined) data.name = body.name;
  if (body.text !== undefined) data.text = body.text;
  if (body.button_label === null || body.button_url === null) {
    data.buttonLabel = null;
    data.buttonUrl = null;
  } else {
    if (body.button_label !== undefined) data.buttonLabel = body.button_label;
    if (body.button_url !== undefined) data.buttonUrl = body.button_url;
    // A button needs both members; one sent alone completes the one already stored.
    const label = body.button_label ?? current.buttonLabel;
    const url = body.button_url ?? current.buttonUrl;
    if ((label === null) !== (url === null)) {
      throw new ApiError(400, "VALIDATION_ERROR", "Send button_label and button_url together (or neither)");
    }
  }
  if (body.fields !== undefined) data.fields = body.fields;
  if (body.bg_color !== undefined) data.bgColor = body.bg_color;
  if (body.text_color !== undefined) data.textColor = body.text_color;
  if (body.button_color !== undefined) data.buttonColor = body.button_color;
  if (body.position !== undefined) data.position = body.position;
  const overlay = await deps.prisma.overlay.update({ where: { id: current.id }, data });
  await deps.overlayRecords.put(overlay);
  return overlay;
}

/** Deletes the overlay; its links go back to the plain redirect (their records are rewritten). */
export async function deleteOverlay(deps: OverlayWriterDeps, accountId: string, id: number): Promise<void> {
  const { linkIds, version } = await deps.prisma.$transaction(async (tx) => {
    const carrying = await tx.link.findMany({ where: { overlayId: id, accountId }, select: { id: true } });
    // The tombstone's version, drawn after the row's last under the delete's lock (decision 0052).
    const [deleted] = await tx.$queryRaw<{ version: bigint }[]>`
      DELETE FROM overlays WHERE id = ${id} AND account_id = ${accountId}::uuid
      RETURNING kurz_new_record_version() AS version`;
    if (!deleted) throw overlayNotFound();
    // ON DELETE SET NULL has cleared their overlay_id
    return { linkIds: carrying.map((l) => l.id), version: deleted.version };
  });
  await deps.overlayRecords.remove(id, version);
  if (linkIds.length === 0) return;
  const links = await deps.prisma.link.findMany({ where: { id: { in: linkIds } } });
  await Promise.all(links.map((link) => deps.records.put(link)));
}

/** The overlay's submissions, newest first (the overlay must be the account's). */
export async function listSubmissions(
  prisma: PrismaClient,
  accountId: string,
  overlayId: number,
  query: LegacyListQuery,
): Promise<LegacyPage<OverlaySubmission>> {
  await getOverlay(prisma, accountId, overlayId);
  const where = { overlayId, accountId };
  return legacyPage(
    query,
    () => prisma.overlaySubmission.count({ where }),
    (skip, take) => prisma.overlaySubmission.findMany({ where, orderBy: { id: "desc" }, skip, take }),
  );
}

/** Every submission of the overlay, oldest first, for the CSV export (bounded: at most 100,000 rows). */
export async function allSubmissions(
  prisma: PrismaClient,
  accountId: string,
  overlayId: number,
): Promise<OverlaySubmission[]> {
  await getOverlay(prisma, accountId, overlayId);
  return prisma.overlaySubmission.findMany({
    where: { overlayId, accountId },
    orderBy: { id: "asc" },
    take: 100_000,
  });
}

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
