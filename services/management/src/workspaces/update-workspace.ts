// PATCH /api/v1/workspaces/:id: rename the request's workspace (workspace:admin).
import type { Workspace } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import type { Redis } from "ioredis";
import { getWorkspace } from "./get-workspace.ts";
import { type Caller, requireOwnWorkspace } from "./workspaces.ts";

export async function updateWorkspace(
  deps: { prisma: PrismaClient; redis: Redis },
  caller: Caller,
  id: string,
  body: { name?: string | undefined },
): Promise<Workspace> {
  requireOwnWorkspace(caller, id);
  if (body.name !== undefined) {
    await deps.prisma.account.update({ where: { id: caller.accountId }, data: { name: body.name } });
  }
  return getWorkspace(deps.prisma, caller, id);
}
