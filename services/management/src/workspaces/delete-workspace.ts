// DELETE /api/v1/workspaces/:id (workspace:owner): an empty workspace goes, with its keys and
// memberships. One that still holds links, domains, campaigns, channels, overlays, webhooks or
// imports is refused (409): their deletion reaches the redirect's records and the click store, which
// their own delete routes do. A user's last workspace stays, so that every user has one to act in.
import type { PrismaClient } from "@kurz/db";
import { conflict, forbidden } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { revokeAllApiKeys } from "../keys/revoke-api-key.ts";
import { forgetCachedSessions } from "../sessions/sessions.ts";
import { type Caller, lockWorkspace, requireOwnWorkspace } from "./workspaces.ts";

export async function deleteWorkspace(
  deps: { prisma: PrismaClient; redis: Redis },
  caller: Caller,
  id: string,
): Promise<{ id: string; deleted: true }> {
  requireOwnWorkspace(caller, id);
  const accountId = caller.accountId;
  const { prisma } = deps;
  const members = await prisma.$transaction(async (tx) => {
    await lockWorkspace(tx, accountId);
    const holds = await tx.account.findUniqueOrThrow({
      where: { id: accountId },
      select: {
        _count: {
          select: {
            links: true,
            domains: true,
            campaigns: true,
            channels: true,
            overlays: true,
            webhookEndpoints: true,
            importJobs: true,
          },
        },
      },
    });
    const nonEmpty = Object.entries(holds._count).filter(([, n]) => n > 0);
    if (nonEmpty.length > 0) {
      throw conflict(
        `The workspace still holds ${nonEmpty.map(([what, n]) => `${n} ${what}`).join(", ")}; delete them first`,
      );
    }
    const users = await tx.membership.findMany({ where: { accountId }, select: { userId: true } });
    if (caller.userId !== null) {
      const others = await tx.membership.count({
        where: { userId: caller.userId, accountId: { not: accountId } },
      });
      if (others === 0) throw forbidden("This is your only workspace: create another before deleting it");
    }
    return users.map((u) => u.userId);
  });
  // Keys first (their cached records turn revoked), then the rows; sessions then forget the workspace.
  await revokeAllApiKeys(deps, { accountId });
  await prisma.account.delete({ where: { id: accountId } });
  for (const userId of members) await forgetCachedSessions(prisma, deps.redis, userId);
  return { id: accountId, deleted: true };
}
