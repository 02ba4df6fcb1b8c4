// Write-through of CTA overlays into Redis for the redirect (`overlay:<id>`), as domain-and-rotator-records.ts does
// for domains and rotators: Redis is a cache, a failed write is healed by the redirect's miss path
// (`GET /internal/overlays/resolve/:id`), so failures are logged and never fail the API request. Each
// write carries the row's version and Redis keeps the highest (decision 0052); a deleted overlay leaves
// a tombstone that refuses every later write of it (decision 0052).
import { invalidationMessage, type OverlayRecord, overlayKey } from "@kurz/contracts";
import type { Overlay } from "@kurz/db";
import type { Redis } from "ioredis";
import { overlayContent } from "../overlays/overlay-fields.ts";
import { TOMBSTONE_TTL_SECONDS, tombstone, type VersionedValue, writeVersioned } from "./versioned-writes.ts";

export function toOverlayRecord(overlay: Overlay): OverlayRecord {
  return {
    id: overlay.id,
    account_id: overlay.accountId,
    type: overlay.type,
    ...overlayContent(overlay),
    v: Number(overlay.version),
  };
}

export class OverlayRecords {
  constructor(
    private readonly redis: Redis,
    private readonly logger: { warn(o: object, m?: string): void },
  ) {}

  /**
   * The overlay's record at its version: kept only if no later version is there, so the API's write
   * and the miss path's (what it read) are the same write.
   */
  put(overlay: Overlay): Promise<void> {
    const value = JSON.stringify(toOverlayRecord(overlay));
    return this.write(overlay.id, { value, rowId: overlay.id, version: overlay.version });
  }

  /**
   * A deleted overlay's tombstone, refusing every later write of it; `version` is drawn after its last
   * (in the delete's transaction).
   */
  remove(id: number, version: bigint): Promise<void> {
    const value = tombstone({ id, v: Number(version) });
    return this.write(id, { value, rowId: id, version, ttlSeconds: TOMBSTONE_TTL_SECONDS });
  }

  private async write(id: number, value: VersionedValue): Promise<void> {
    try {
      await writeVersioned(this.redis, overlayKey(id), value, invalidationMessage("overlay", String(id)));
    } catch (err) {
      this.logger.warn({ err: String(err), id }, "overlay record write failed; the miss path will heal it");
    }
  }
}
