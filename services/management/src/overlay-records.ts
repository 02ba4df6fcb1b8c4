// Write-through of CTA overlays into Redis for the redirect (`overlay:<id>`), as legacy-records.ts does
// for domains and rotators: Redis is a cache, a failed write is healed by the redirect's miss path
// (`GET /internal/overlays/resolve/:id`), so failures are logged and never fail the API request.
import { INVALIDATION_CHANNEL, invalidationMessage, type OverlayRecord, overlayKey } from "@kurz/contracts";
import type { Overlay } from "@kurz/db";
import type { Redis } from "ioredis";

export function toOverlayRecord(overlay: Overlay): OverlayRecord {
  return {
    id: overlay.id,
    account_id: overlay.accountId,
    type: overlay.type,
    text: overlay.text,
    button_label: overlay.buttonLabel,
    button_url: overlay.buttonUrl,
    fields: Array.isArray(overlay.fields) ? (overlay.fields as string[]) : [],
    bg_color: overlay.bgColor,
    text_color: overlay.textColor,
    button_color: overlay.buttonColor,
    position: overlay.position,
  };
}

export class OverlayRecords {
  constructor(
    private readonly redis: Redis,
    private readonly logger: { warn(o: object, m?: string): void },
  ) {}

  put(overlay: Overlay): Promise<void> {
    return this.write(overlay.id, JSON.stringify(toOverlayRecord(overlay)));
  }

  remove(id: number): Promise<void> {
    return this.write(id, null);
  }

  private async write(id: number, value: string | null): Promise<void> {
    try {
      const tx = this.redis.multi();
      if (value === null) tx.del(overlayKey(id));
      else tx.set(overlayKey(id), value);
      await tx.publish(INVALIDATION_CHANNEL, invalidationMessage("overlay", String(id))).exec();
    } catch (err) {
      this.logger.warn({ err: String(err), id }, "overlay record write failed; the miss path will heal it");
    }
  }
}
