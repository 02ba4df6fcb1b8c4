// Listing the user's live sessions.
import type { SessionList } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";

/** The user's live sessions, most recently used first, the caller's marked `current`. */
export async function listSessions(
  prisma: PrismaClient,
  userId: string,
  currentId: string,
  now = new Date(),
): Promise<SessionList> {
  const rows = await prisma.session.findMany({
    where: { userId, expiresAt: { gt: now } },
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
