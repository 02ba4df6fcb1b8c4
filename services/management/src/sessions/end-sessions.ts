// Ending sessions: one, all but the caller's, or all of a user's.
import { Prisma, type PrismaClient } from "@kurz/db";
import type { Redis } from "ioredis";
import { type AuditEntry, recordUserAudit } from "../audit/record-audit.ts";
import { tombstone } from "./sessions.ts";

/**
 * Ends the user's sessions that match (all but `keep` when given) and tombstones their cache
 * entries. The rows go first: a gateway miss after this finds nothing in Postgres either.
 */
export async function endSessions(
  deps: { prisma: PrismaClient; redis: Redis },
  where: { userId: string; id?: string; keep?: string | null },
  /** The person's event for it (signing out), written in the delete's transaction. */
  audit?: Omit<AuditEntry, "accountId">,
): Promise<number> {
  // One statement: a session created while this runs is either deleted and tombstoned, or not
  // touched at all; none is deleted without its tombstone.
  const only = where.id !== undefined ? Prisma.sql`AND id = ${where.id}::uuid` : Prisma.empty;
  const keep = where.keep ? Prisma.sql`AND id <> ${where.keep}::uuid` : Prisma.empty;
  const end = (db: Pick<PrismaClient, "$queryRaw">) => db.$queryRaw<{ token_hash: string }[]>`
    DELETE FROM sessions WHERE user_id = ${where.userId}::uuid ${only} ${keep} RETURNING token_hash`;
  const ended = audit
    ? await deps.prisma.$transaction(async (tx) => {
        const rows = await end(tx);
        if (rows.length > 0) await recordUserAudit(tx, where.userId, audit);
        return rows;
      })
    : await end(deps.prisma);
  if (ended.length > 0) {
    await tombstone(
      deps.redis,
      ended.map((s) => s.token_hash),
    );
  }
  return ended.length;
}
