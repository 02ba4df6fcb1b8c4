// DELETE /api/v1/workspaces/:id (workspace:owner): an empty workspace goes, with its keys,
// memberships and invitations. One that still holds links, domains, campaigns, channels, overlays,
// webhooks or imports is refused (409): their deletion reaches the redirect's records and the click
// store, which their own delete routes do. A member left without a workspace gets an empty one of their
// own, so every session keeps one to act in.
import type { PrismaClient } from "@kurz/db";
import { conflict } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { invalidateGatewayCache } from "../keys/revoke-api-key.ts";
import { forgetCachedSessions } from "../sessions/sessions.ts";
import { keepAWorkspace } from "./change-membership.ts";
import { announceWorkspaceGone } from "./erase-workspace.ts";
import { type Caller, lockWorkspace, requireOwnWorkspace } from "./workspaces.ts";

export async function deleteWorkspace(
  deps: { prisma: PrismaClient; redis: Redis },
  caller: Caller,
  id: string,
  now = new Date(),
): Promise<{ id: string; deleted: true }> {
  requireOwnWorkspace(caller, id);
  const accountId = caller.accountId;
  const { prisma } = deps;
  const { members, keys } = await prisma.$transaction(async (tx) => {
    await lockWorkspace(tx, accountId);
    const { _count: holds } = await tx.account.findUniqueOrThrow({
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
    const nonEmpty = Object.entries(holds).filter(([, n]) => n > 0);
    if (nonEmpty.length > 0) {
      throw conflict(
        `The workspace still holds ${nonEmpty.map(([what, n]) => `${n} ${what}`).join(", ")}; delete them first`,
      );
    }
    const members = await tx.membership.findMany({
      where: { accountId },
      select: { userId: true, user: { select: { email: true } } },
    });
    const keys = await tx.apiKey.findMany({ where: { accountId, revokedAt: null } });
    await announceWorkspaceGone(tx, accountId);
    await tx.account.delete({ where: { id: accountId } });
    for (const m of members) await keepAWorkspace(tx, m.userId, m.user.email);
    return { members, keys };
  });
  // The rows are gone; the gateway's cached copies of the keys turn revoked, its sessions forget it.
  for (const key of keys) await invalidateGatewayCache(deps.redis, { ...key, revokedAt: now });
  for (const m of members) await forgetCachedSessions(prisma, deps.redis, m.userId);
  return { id: accountId, deleted: true };
}
