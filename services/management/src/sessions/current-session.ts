// The caller's own session.
import type { Session } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { unauthorized } from "@kurz/service-kit";
import { SESSION_USER, toSession } from "./sessions.ts";

/** The caller's own live session in the request's workspace, as GET /api/v1/auth/session answers it; 401 once it has ended. */
export async function currentSession(
  prisma: PrismaClient,
  caller: { userId: string; sessionId: string; accountId: string },
): Promise<Session> {
  const row = await prisma.session.findFirst({
    where: { id: caller.sessionId, userId: caller.userId, expiresAt: { gt: new Date() } },
    include: SESSION_USER,
  });
  if (!row) throw unauthorized("Not signed in");
  return toSession(row, caller.accountId);
}
