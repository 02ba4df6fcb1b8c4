// Ending sessions: one, all but the caller's, or all of a user's.
import { Prisma, type PrismaClient } from "@kurz/db";
import type { Redis } from "ioredis";
import { tombstone } from "./sessions.ts";

/**
 * Ends the user's sessions that match (all but `keep` when given) and tombstones their cache
 * entries. The rows go first: a gateway miss after this finds nothing in Postgres either.
 */
export async function endSessions(
  deps: { prisma: PrismaClient; redis: Redis },
  where: { userId: string; id?: string; keep?: string | null },
): Promise<number> {
  // One statement: a session created while this runs is either deleted and tombstoned, or not
  // touched at all; none is deleted without its tombstone.
  const only = where.id !== undefined ? Prisma.sql`AND id = ${where.id}::uuid` : Prisma.empty;
  const keep = where.keep ? Prisma.sql`AND id <> ${where.keep}::uuid` : Prisma.empty;
  const ended = await deps.prisma.$queryRaw<{ token_hash: string }[]>`
    DELETE FROM sessions WHERE user_id = ${where.userId}::uuid ${only} ${keep} RETURNING token_hash`;
  if (ended.length > 0) {
    await tombstone(
      deps.redis,
      ended.map((s) => s.token_hash),
    );
  }
  return ended.length;
}
