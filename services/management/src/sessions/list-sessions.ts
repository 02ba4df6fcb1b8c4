// Listing the account's live sessions.
import type { SessionList } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";

/** The account's live sessions, most recently used first, the caller's marked `current`. */
export async function listSessions(
  prisma: PrismaClient,
  accountId: string,
  currentId: string,
  now = new Date(),
): Promise<SessionList> {
  const rows = await prisma.session.findMany({
    where: { accountId, expiresAt: { gt: now } },
    orderBy: [{ renewedAt: "desc" }, { id: "asc" }],
  });
  return {
    sessions: rows.map((row) => ({
      id: row.id,
      created_at: row.createdAt.toISOString(),
      last_used_at: row.renewedAt.toISOString(),
      expires_at: row.expiresAt.toISOString(),
      current: row.id === currentId,
    })),
  };
}
