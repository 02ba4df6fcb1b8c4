// An account made by an operator (`./kurz accounts:create`) or a test: a user without a password (who
// signs in once one is set), their workspace and its first API key.
import { ROLE_SCOPES } from "@kurz/contracts";
import type { Prisma, PrismaClient } from "@kurz/db";
import { recordCreated } from "../audit/record-audit.ts";
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
 * What a person's first workspace is made with: their e-mail as its contact, a name from it, them as
 * its owner, and its first key (every scope an owner grants), whose full value the caller shows once.
 */
export function firstWorkspace(
  user: { id: string; email: string },
  key: { hash: string; prefix: string },
  keyLimits: KeyLimits,
) {
  return {
    email: user.email,
    name: defaultWorkspaceName(user.email),
    memberships: { create: { userId: user.id, role: "owner" } },
    apiKeys: {
      create: {
        name: "Default key",
        keyHash: key.hash,
        keyPrefix: key.prefix,
        rateLimitPerMinute: keyLimits.perMinute,
        rateLimitPerHour: keyLimits.perHour,
        createdByUserId: user.id,
        scopes: [...ROLE_SCOPES.owner],
      },
    },
  } satisfies Prisma.AccountUncheckedCreateInput;
}

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
    const created = await tx.account.create({
      data: {
        ...firstWorkspace(user, { hash, prefix }, input.keyLimits),
        ...(input.linkLimit !== undefined ? { linkLimit: input.linkLimit } : {}),
      },
    });
    await recordCreated(tx, created.id, "workspace", created.id);
    return created;
  });
  return { account_id: account.id, email: account.email, api_key: key, link_limit: account.linkLimit };
}
