// Reading the caller's account (the older API's GET /api/account).
import type { Account, PrismaClient } from "@kurz/db";
import { unauthorized } from "@kurz/service-kit";

// The key outlived its account (deleted between the gateway's cached lookup and now).
export const unknownAccount = () => unauthorized("Unknown account");

export async function getAccount(prisma: PrismaClient, accountId: string): Promise<Account> {
  const account = await prisma.account.findUnique({ where: { id: accountId } });
  if (!account) throw unknownAccount();
  return account;
}
