// POST /api/v1/workspaces: a new, empty workspace that the signed-in user owns. Its contact e-mail is
// theirs; its limits are the service's defaults. The user's sessions see it on their next request.
import type { Workspace } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { forbidden } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { recordCreated } from "../audit/record-audit.ts";
import { forgetCachedSessions } from "../sessions/sessions.ts";
import { type Caller, toWorkspace } from "./workspaces.ts";

export async function createWorkspace(
  deps: { prisma: PrismaClient; redis: Redis },
  caller: Caller,
  name: string,
): Promise<Workspace> {
  const { userId } = caller;
  if (caller.sessionId === null || userId === null) {
    throw forbidden("Create workspaces from a signed-in session: an API key belongs to one workspace");
  }
  const account = await deps.prisma.$transaction(async (tx) => {
    const user = await tx.user.findUniqueOrThrow({ where: { id: userId } });
    const created = await tx.account.create({
      data: { email: user.email, name, memberships: { create: { userId, role: "owner" } } },
    });
    await recordCreated(tx, created.id, "workspace", created.id);
    return created;
  });
  await forgetCachedSessions(deps.prisma, deps.redis, userId);
  return toWorkspace(account, "owner");
}
