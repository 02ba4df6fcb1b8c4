// Write-through of CTA overlays into Redis for the redirect (`overlay:<id>`), as legacy-records.ts does
// for domains and rotators: Redis is a cache, a failed write is healed by the redirect's miss path
// (`GET /internal/overlays/resolve/:id`), so failures are logged and never fail the API request. A
// removal leaves a tombstone and the heal only fills an empty key, as there (decision 0051).
import { INVALIDATION_CHANNEL, invalidationMessage, type OverlayRecord, overlayKey } from "@kurz/contracts";
import type { Overlay } from "@kurz/db";
import type { Redis } from "ioredis";
import { defineGuardedSet, type GuardedSet, TOMBSTONE_TTL_SECONDS, tombstone } from "./record-tombstones.ts";

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
  ) {
    defineGuardedSet(redis);
  }

  put(overlay: Overlay): Promise<void> {
    return this.write(overlay.id, JSON.stringify(toOverlayRecord(overlay)), "put");
  }

  /** The miss path's write of what it read: into an empty key only (never over a removal or an edit). */
  heal(overlay: Overlay): Promise<void> {
    return this.write(overlay.id, JSON.stringify(toOverlayRecord(overlay)), "heal");
  }

  /** An overlay is deleted for good: its tombstone refuses every later write of it. */
  remove(id: number): Promise<void> {
    return this.write(id, tombstone({ id }), "remove");
  }

  private async write(id: number, value: string, how: "put" | "heal" | "remove"): Promise<void> {
    try {
      const tx = this.redis.multi();
      if (how === "remove") tx.set(overlayKey(id), value, "EX", TOMBSTONE_TTL_SECONDS);
      else if (how === "heal") tx.set(overlayKey(id), value, "NX");
      else (tx as unknown as GuardedSet).kurzGuardedSet(overlayKey(id), value, String(id));
      await tx.publish(INVALIDATION_CHANNEL, invalidationMessage("overlay", String(id))).exec();
    } catch (err) {
      this.logger.warn({ err: String(err), id }, "overlay record write failed; the miss path will heal it");
    }
  }
}
