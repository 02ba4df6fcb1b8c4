import type { Redis } from "ioredis";
import { compareStreamIds } from "./stream-entries.ts";

/**
 * Trims a stream only past `maxLen` entries, and then only below the oldest entry some group still
 * needs (its oldest pending entry, or what it has not read yet). Unconsumed data is never dropped:
 * while Redis carries the bus it is the store of record for events nobody has processed.
 * Returns the MINID used, or undefined when nothing was trimmed.
 */
export async function trimConsumed(
  redis: Redis,
  stream: string,
  maxLen: number,
): Promise<string | undefined> {
  const length = (await redis.call("XLEN", stream)) as number;
  if (length <= maxLen) return undefined;
  const groups = (await redis.call("XINFO", "GROUPS", stream)) as unknown[][];
  let floor: string | undefined;
  for (const raw of groups) {
    const info = new Map<string, unknown>();
    for (let i = 0; i + 1 < raw.length; i += 2) info.set(String(raw[i]), raw[i + 1]);
    let needed = String(info.get("last-delivered-id") ?? "0-0");
    if (Number(info.get("pending") ?? 0) > 0) {
      const summary = (await redis.call("XPENDING", stream, String(info.get("name")))) as unknown[];
      if (typeof summary[1] === "string") needed = summary[1];
    }
    if (floor === undefined || compareStreamIds(needed, floor) < 0) floor = needed;
  }
  // No group at all: nobody has consumed anything, so nothing is safe to drop.
  if (floor === undefined || floor === "0-0") return undefined;
  // Approximate trimming removes whole radix-tree nodes only: cheap, and never past the floor.
  await redis.call("XTRIM", stream, "MINID", "~", floor);
  return floor;
}
