// The gateway's key lookup on a cache miss: the key's record by the SHA-256 of the key.
import type { KeyRecord } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { keyTwoFactorMissing } from "../two-factor/factors.ts";
import { toKeyRecord } from "./api-keys.ts";

/** The key whose hash is `hash`, or null; only a SHA-256 hex digest can name a key, so anything else is unknown without a query. */
export async function findKeyRecord(prisma: PrismaClient, hash: string): Promise<KeyRecord | null> {
  if (!/^[0-9a-f]{64}$/.test(hash)) return null;
  const key = await prisma.apiKey.findUnique({ where: { keyHash: hash } });
  if (!key) return null;
  return { ...toKeyRecord(key), two_factor_missing: await keyTwoFactorMissing(prisma, key) };
}
