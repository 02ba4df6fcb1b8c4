import type { Prisma } from "@kurz/db";
import { randomBase62 } from "./api-keys.ts";

const LENGTH = 7; // 62^7 ≈ 3.5e12 codes: collisions stay rare long past any single deployment's size
const ATTEMPTS = 5;

/**
 * A random code neither taken nor retired (retired-codes.ts: even a retired code past its grace is
 * skipped, as it costs nothing to draw another). A race with a concurrent insert still fails on the
 * unique index, and one with a concurrent delete in claimCode.
 */
export async function freeShortCode(tx: Prisma.TransactionClient): Promise<string> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const code = randomBase62(LENGTH);
    const [row] = await tx.$queryRaw<{ used: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM links WHERE short_code = ${code})
          OR EXISTS (SELECT 1 FROM retired_codes WHERE short_code = ${code}) AS used`;
    if (!row?.used) return code;
  }
  throw new Error("could not find a free short code");
}
