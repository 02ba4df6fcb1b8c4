// PATCH /api/v1/account: the account's own settings (the dashboard's account page). Only
// default_expiry_hours for now; the link limit is the operator's (admin CLI).
import type { Account, UpdateAccountBody } from "@kurz/contracts";
import { isRecordMissing, type PrismaClient } from "@kurz/db";
import { unauthorized } from "@kurz/service-kit";
import { accountOverview } from "./account-service.ts";

export async function updateAccount(
  prisma: PrismaClient,
  accountId: string,
  body: UpdateAccountBody,
): Promise<Account> {
  if (body.default_expiry_hours !== undefined) {
    try {
      await prisma.account.update({
        where: { id: accountId },
        data: { defaultExpiryHours: body.default_expiry_hours },
      });
    } catch (err) {
      if (isRecordMissing(err)) throw unauthorized("Unknown account");
      throw err;
    }
  }
  return accountOverview(prisma, accountId);
}
