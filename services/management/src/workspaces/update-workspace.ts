// PATCH /api/v1/workspaces/:id: rename the request's workspace (workspace:admin).
import type { Workspace } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { forbidden } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { changedFields, recordAudit } from "../audit/record-audit.ts";
import { getWorkspace } from "./get-workspace.ts";
import { type Caller, requireOwnWorkspace } from "./workspaces.ts";

export async function updateWorkspace(
  deps: { prisma: PrismaClient; redis: Redis },
  caller: Caller,
  id: string,
  body: { name?: string | undefined; audit_retention_days?: number | undefined },
): Promise<Workspace> {
  requireOwnWorkspace(caller, id);
  // How long the record of what people did is kept is the owners' call, not the admins' it records.
  if (body.audit_retention_days !== undefined && !caller.scopes.includes("workspace:owner")) {
    throw forbidden("Only an owner can change how long the audit log is kept", {
      required_scope: "workspace:owner",
    });
  }
  const { fields } = changedFields(body);
  if (fields.length > 0) {
    await deps.prisma.$transaction(async (tx) => {
      await tx.account.update({
        where: { id: caller.accountId },
        data: {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.audit_retention_days !== undefined
            ? { auditRetentionDays: body.audit_retention_days }
            : {}),
        },
      });
      await recordAudit(tx, {
        accountId: caller.accountId,
        action: "workspace.updated",
        resourceType: "workspace",
        resourceId: caller.accountId,
        details:
          body.audit_retention_days !== undefined
            ? { fields, audit_retention_days: body.audit_retention_days }
            : { fields },
      });
    });
  }
  return getWorkspace(deps.prisma, caller, id);
}
