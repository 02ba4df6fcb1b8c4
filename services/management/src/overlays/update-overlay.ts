// Changing an overlay; the redirect's record follows.
import type { OverlayUpdateBody } from "@kurz/contracts";
import type { Overlay, Prisma } from "@kurz/db";
import { ApiError } from "@kurz/service-kit";
import { changedFields, recordAudit } from "../audit/record-audit.ts";
import { getOverlay } from "./get-overlay.ts";
import type { OverlayWriterDeps } from "./overlays.ts";

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
  const overlay = await deps.prisma.$transaction(async (tx) => {
    const updated = await tx.overlay.update({ where: { id: current.id }, data });
    await recordAudit(tx, {
      accountId,
      action: "overlay.updated",
      resourceType: "overlay",
      resourceId: id,
      details: changedFields(body),
    });
    return updated;
  });
  await deps.overlayRecords.put(overlay);
  return overlay;
}
