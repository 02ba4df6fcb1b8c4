// The caller's own session.
import type { Session } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { unauthorized } from "@kurz/service-kit";
import { toSession } from "./sessions.ts";

/** The caller's own live session, as GET /api/v1/auth/session answers it; 401 once it has ended. */
export async function currentSession(prisma: PrismaClient, accountId: string, id: string): Promise<Session> {
  const row = await prisma.session.findFirst({
    where: { id, accountId, expiresAt: { gt: new Date() } },
    include: { account: { select: { email: true } } },
  });
  if (!row) throw unauthorized("Not signed in");
  return toSession(row);
}
