// An account made by an operator (`./kurz accounts:create`) or a test: a user without a password (who
// signs in once one is set), their workspace and its first API key.
import { ROLE_SCOPES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { generateApiKey, type KeyLimits } from "../keys/api-keys.ts";

export interface CreatedAccount {
  account_id: string;
  email: string;
  api_key: string;
  link_limit: number;
}

/** A new workspace's name until someone renames it: the local part of its creator's e-mail. */
export const defaultWorkspaceName = (email: string): string =>
  email.slice(0, email.lastIndexOf("@")) || email;

/**
 * Creates a user (without a password) and their workspace with its first API key (the legacy rule: a
 * key comes with every registration). A unique violation means the e-mail is taken.
 */
export async function createAccount(
  prisma: PrismaClient,
  input: { email: string; linkLimit?: number; keyLimits: KeyLimits },
): Promise<CreatedAccount> {
  const { key, hash, prefix } = generateApiKey();
  const email = input.email.trim().toLowerCase();
  const account = await prisma.$transaction(async (tx) => {
    const user = await tx.user.create({ data: { email } });
    return tx.account.create({
      data: {
        email,
        name: defaultWorkspaceName(email),
        ...(input.linkLimit !== undefined ? { linkLimit: input.linkLimit } : {}),
        memberships: { create: { userId: user.id, role: "owner" } },
        apiKeys: {
          create: {
            name: "Default key",
            keyHash: hash,
            keyPrefix: prefix,
            rateLimitPerMinute: input.keyLimits.perMinute,
            rateLimitPerHour: input.keyLimits.perHour,
            createdByUserId: user.id,
            scopes: [...ROLE_SCOPES.owner],
          },
        },
      },
    });
  });
  return { account_id: account.id, email: account.email, api_key: key, link_limit: account.linkLimit };
}
