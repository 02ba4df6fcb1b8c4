// PATCH /api/v1/workspaces/:id: rename the request's workspace (workspace:admin), and require
// two-factor sign-in of its members (workspace:owner). An owner without a second factor cannot turn
// the requirement on: it would hold them back at once. The gateway's cached sessions and key records
// of every member carry the requirement, so they are read again after a change.
import type { Workspace } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { apiError, conflict } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { forgetCachedSessions } from "../sessions/sessions.ts";
import { factorsOf, forgetKeyRecords, hasSecondFactor } from "../two-factor/factors.ts";
import { getWorkspace } from "./get-workspace.ts";
import { type Caller, requireOwnWorkspace } from "./workspaces.ts";

export async function updateWorkspace(
  deps: { prisma: PrismaClient; redis: Redis },
  caller: Caller,
  id: string,
  body: { name?: string | undefined; require_two_factor?: boolean | undefined },
): Promise<Workspace> {
  requireOwnWorkspace(caller, id);
  const { prisma } = deps;
  if (body.require_two_factor !== undefined && !caller.scopes.includes("workspace:owner")) {
    throw apiError("FORBIDDEN", "Only owners may change whether the workspace requires two-factor sign-in", {
      required_scope: "workspace:owner",
    });
  }
  if (body.require_two_factor === true) {
    const own = caller.userId === null ? null : await factorsOf(prisma, caller.userId);
    if (!own || !hasSecondFactor(own)) {
      throw conflict("Add a second factor to your own account first (Settings → Security)");
    }
  }
  const before = await prisma.account.findUnique({
    where: { id: caller.accountId },
    select: { requireTwoFactor: true },
  });
  await prisma.account.update({
    where: { id: caller.accountId },
    data: { name: body.name, requireTwoFactor: body.require_two_factor },
  });
  if (body.require_two_factor !== undefined && before?.requireTwoFactor !== body.require_two_factor) {
    const members = await prisma.membership.findMany({
      where: { accountId: caller.accountId },
      select: { userId: true },
    });
    for (const m of members) await forgetCachedSessions(prisma, deps.redis, m.userId);
    const keys = await prisma.apiKey.findMany({
      where: { accountId: caller.accountId, revokedAt: null },
      select: { keyHash: true },
    });
    await forgetKeyRecords(deps.redis, keys);
  }
  return getWorkspace(prisma, caller, id);
}
