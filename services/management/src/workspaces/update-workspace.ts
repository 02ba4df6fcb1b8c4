// PATCH /api/v1/workspaces/:id: rename the request's workspace (workspace:admin); require two-factor
// sign-in of its members and set how long its audit log is kept (workspace:owner: the record of what
// people did is the owners' call, not the admins' it records). An owner without a second factor cannot
// turn the requirement on: it would hold them back at once. The gateway's cached sessions and key
// records of every member carry the requirement, so they are read again after a change. The change and
// its audit event are one transaction.
import type { Workspace } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { apiError, conflict } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { changedFields, recordAudit } from "../audit/record-audit.ts";
import { forgetCachedSessions } from "../sessions/sessions.ts";
import { factorsOf, forgetKeyRecords, hasSecondFactor } from "../two-factor/factors.ts";
import { getWorkspace } from "./get-workspace.ts";
import { type Caller, requireOwnWorkspace } from "./workspaces.ts";

const ownersOnly = (what: string) =>
  apiError("FORBIDDEN", `Only owners may change ${what}`, { required_scope: "workspace:owner" });

export async function updateWorkspace(
  deps: { prisma: PrismaClient; redis: Redis },
  caller: Caller,
  id: string,
  body: {
    name?: string | undefined;
    require_two_factor?: boolean | undefined;
    audit_retention_days?: number | undefined;
  },
): Promise<Workspace> {
  requireOwnWorkspace(caller, id);
  const { prisma } = deps;
  const owner = caller.scopes.includes("workspace:owner");
  if (body.require_two_factor !== undefined && !owner) {
    throw ownersOnly("whether the workspace requires two-factor sign-in");
  }
  if (body.audit_retention_days !== undefined && !owner) throw ownersOnly("how long the audit log is kept");
  if (body.require_two_factor === true) {
    const own = caller.userId === null ? null : await factorsOf(prisma, caller.userId);
    if (!own || !hasSecondFactor(own)) {
      throw conflict("Add a second factor to your own account first (Settings → Security)");
    }
  }
  const { fields } = changedFields(body);
  if (fields.length === 0) return getWorkspace(prisma, caller, id);
  const before = await prisma.$transaction(async (tx) => {
    const was = await tx.account.findUniqueOrThrow({
      where: { id: caller.accountId },
      select: { requireTwoFactor: true },
    });
    await tx.account.update({
      where: { id: caller.accountId },
      data: {
        name: body.name,
        requireTwoFactor: body.require_two_factor,
        auditRetentionDays: body.audit_retention_days,
      },
    });
    await recordAudit(tx, {
      accountId: caller.accountId,
      action: "workspace.updated",
      resourceType: "workspace",
      resourceId: caller.accountId,
      details: {
        fields,
        ...(body.require_two_factor !== undefined ? { require_two_factor: body.require_two_factor } : {}),
        ...(body.audit_retention_days !== undefined
          ? { audit_retention_days: body.audit_retention_days }
          : {}),
      },
    });
    return was;
  });
  if (body.require_two_factor !== undefined && before.requireTwoFactor !== body.require_two_factor) {
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
