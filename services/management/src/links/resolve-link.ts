// The redirect's miss path for a short code: the link's record from Postgres, the truth. A hit also
// writes the Redis record, healing the cache for every other redirect instance.
import type { RedirectRecord } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type RedirectRecords, toRedirectRecord } from "../projections/link-records.ts";

/** The code's redirect record, or null when no link has it. */
export async function resolveLink(
  deps: { prisma: PrismaClient; records: RedirectRecords },
  code: string,
): Promise<RedirectRecord | null> {
  const link = await deps.prisma.link.findUnique({ where: { shortCode: code } });
  if (!link) return null;
  await deps.records.put(link);
  return toRedirectRecord(link, deps.records.baseUrl);
}
