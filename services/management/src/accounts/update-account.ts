// PATCH /api/v1/account: the workspace's own settings (the dashboard's account page): the default
// expiry, whether new links forward the visit's query, and how often link health is checked; the plan
// and its limits are the operator's (update-account-limits.ts).
import type { Account, UpdateAccountBody } from "@kurz/contracts";
import { isRecordMissing, type PrismaClient } from "@kurz/db";
import { unauthorized } from "@kurz/service-kit";
import { recordAudit } from "../audit/record-audit.ts";
import { rescheduleWorkspace } from "../health/schedule-interval.ts";
import type { KeyLimits } from "../keys/api-keys.ts";
import { accountOverview } from "./account-overview.ts";

export async function updateAccount(
  prisma: PrismaClient,
  accountId: string,
  body: UpdateAccountBody,
  keyLimits: KeyLimits,
): Promise<Account> {
  const fields = (["default_expiry_hours", "forward_query", "health_check_interval"] as const).filter(
    (f) => body[f] !== undefined,
  );
  if (fields.length > 0) {
    try {
      await prisma.$transaction(async (tx) => {
        await tx.account.update({
          where: { id: accountId },
          data: {
            defaultExpiryHours: body.default_expiry_hours,
            forwardQuery: body.forward_query,
            healthCheckInterval: body.health_check_interval,
          },
        });
        if (body.health_check_interval !== undefined) {
          await rescheduleWorkspace(tx, accountId);
        }
        await recordAudit(tx, {
          accountId,
          action: "workspace.updated",
          resourceType: "workspace",
          resourceId: accountId,
          details: { fields },
        });
      });
    } catch (err) {
      if (isRecordMissing(err)) throw unauthorized("Unknown account");
      throw err;
    }
  }
  return accountOverview(prisma, accountId, keyLimits);
}
