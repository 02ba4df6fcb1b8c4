// GET /api/v1/workspaces: a session's user's workspaces, the default (first joined) first; a key's own.
import type { Role, Workspace } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type Caller, toWorkspace } from "./workspaces.ts";

export async function listWorkspaces(prisma: PrismaClient, caller: Caller): Promise<Workspace[]> {
  if (caller.sessionId === null) {
    const account = await prisma.account.findUniqueOrThrow({ where: { id: caller.accountId } });
    const creator = caller.userId
      ? await prisma.membership.findUnique({
          where: { accountId_userId: { accountId: caller.accountId, userId: caller.userId } },
        })
      : null;
    return [toWorkspace(account, (creator?.role as Role | undefined) ?? null)];
  }
  const memberships = await prisma.membership.findMany({
    where: { userId: caller.userId ?? "" },
    include: { account: true },
    orderBy: [{ createdAt: "asc" }, { accountId: "asc" }],
  });
  return memberships.map((m) => toWorkspace(m.account, m.role as Role));
}
