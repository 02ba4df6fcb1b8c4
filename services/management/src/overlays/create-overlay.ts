// Creating an overlay.
import type { OverlayCreateBody } from "@kurz/contracts";
import { OVERLAY_DEFAULTS } from "@kurz/contracts";
import type { Overlay } from "@kurz/db";
import { recordCreated } from "../audit/record-audit.ts";
import type { OverlayWriterDeps } from "./overlays.ts";

export async function createOverlay(
  deps: OverlayWriterDeps,
  accountId: string,
  body: OverlayCreateBody,
): Promise<Overlay> {
  const overlay = await deps.prisma.$transaction(async (tx) => {
    const created = await tx.overlay.create({
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
    await recordCreated(tx, accountId, "overlay", created.id);
    return created;
  });
  await deps.overlayRecords.put(overlay);
  return overlay;
}
