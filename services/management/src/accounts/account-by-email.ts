// Operators name a workspace by its contact e-mail (`./kurz accounts:update --email`, imports, exports).
import type { Account, PrismaClient } from "@kurz/db";
import { conflict } from "@kurz/service-kit";

/**
 * The workspace whose contact e-mail is `email` (trimmed, lower-cased), or null. A person who made
 * several workspaces shares their e-mail among them: then the name is ambiguous and nothing is picked.
 */
export async function findAccountByEmail(
  db: Pick<PrismaClient, "account">,
  email: string,
): Promise<Account | null> {
  const normalised = email.trim().toLowerCase();
  const found = await db.account.findMany({
    where: { email: normalised },
    orderBy: { createdAt: "asc" },
    take: 2,
  });
  if (found.length > 1) {
    throw conflict(`Several workspaces have the e-mail ${normalised}; rename or reassign one first`);
  }
  return found[0] ?? null;
}
