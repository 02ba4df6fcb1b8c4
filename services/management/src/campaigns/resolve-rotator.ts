// The redirect's miss path for a campaign rotator (`/r/<slug>`). A hit also writes the Redis record at
// the version it read, so a read made before a change cannot undo it (decision 0052).
import type { RotatorRecord } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import {
  type DomainAndRotatorRecords,
  loadRotatorRecord,
} from "../projections/domain-and-rotator-records.ts";

/** The rotator on `slug`, or null. */
export async function resolveRotator(
  deps: { prisma: PrismaClient; domainAndRotatorRecords: Pick<DomainAndRotatorRecords, "putRotator"> },
  slug: string,
): Promise<RotatorRecord | null> {
  const rotator = await loadRotatorRecord(deps.prisma, { slug });
  if (!rotator) return null;
  await deps.domainAndRotatorRecords.putRotator(rotator.slug, rotator.record);
  return rotator.record;
}
