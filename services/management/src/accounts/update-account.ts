// PATCH /api/v1/account: the account's own settings (the dashboard's account page). Only
// default_expiry_hours for now; the plan and its limits are the operator's (update-account-limits.ts).
import type { Account, UpdateAccountBody } from "@kurz/contracts";
import { isRecordMissing, type PrismaClient } from "@kurz/db";
import { unauthorized } from "@kurz/service-kit";
import { recordAudit } from "../audit/record-audit.ts";
import type { KeyLimits } from "../keys/api-keys.ts";
import { accountOverview } from "./account-overview.ts";

export async function updateAccount(
  prisma: PrismaClient,
  accountId: string,
  body: UpdateAccountBody,
  keyLimits: KeyLimits,
): Promise<Account> {
  if (body.default_expiry_hours !== undefined) {
    try {
      await prisma.$transaction(async (tx) => {
        await tx.account.update({
          where: { id: accountId },
          data: { defaultExpiryHours: body.default_expiry_hours },
        });
        await recordAudit(tx, {
          accountId,
          action: "workspace.updated",
          resourceType: "workspace",
          resourceId: accountId,
          details: { fields: ["default_expiry_hours"] },
        });
      });
    } catch (err) {
      if (isRecordMissing(err)) throw unauthorized("Unknown account");
      throw err;
    }
  }
  return accountOverview(prisma, accountId, keyLimits);
}
