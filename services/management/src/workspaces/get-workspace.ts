// GET /api/v1/workspaces/:id: the request's workspace with the caller's role in it.
import type { Workspace } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { listWorkspaces } from "./list-workspaces.ts";
import { type Caller, noSuchWorkspace, requireOwnWorkspace, toWorkspace } from "./workspaces.ts";

export async function getWorkspace(prisma: PrismaClient, caller: Caller, id: string): Promise<Workspace> {
  requireOwnWorkspace(caller, id);
  if (caller.sessionId !== null && caller.role !== null) {
    const account = await prisma.account.findUnique({ where: { id: caller.accountId } });
    if (!account) throw noSuchWorkspace();
    return toWorkspace(account, caller.role);
  }
  const [own] = await listWorkspaces(prisma, caller);
  if (!own) throw noSuchWorkspace();
  return own;
}
