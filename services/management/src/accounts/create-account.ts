import type { PrismaClient } from "@kurz/db";
import { generateApiKey, type KeyLimits } from "../keys/api-keys.ts";

export interface CreatedAccount {
  account_id: string;
  email: string;
  api_key: string;
  link_limit: number;
}

/** Creates an account with its first API key (the legacy rule: a key comes with every registration). */
export async function createAccount(
  prisma: PrismaClient,
  input: { email: string; linkLimit?: number; keyLimits: KeyLimits },
): Promise<CreatedAccount> {
  const { key, hash, prefix } = generateApiKey();
  const account = await prisma.account.create({
    data: {
      email: input.email.trim().toLowerCase(),
      ...(input.linkLimit !== undefined ? { linkLimit: input.linkLimit } : {}),
      apiKeys: {
        create: {
          name: "Default key",
          keyHash: hash,
          keyPrefix: prefix,
          rateLimitPerMinute: input.keyLimits.perMinute,
          rateLimitPerHour: input.keyLimits.perHour,
        },
      },
    },
  });
  return { account_id: account.id, email: account.email, api_key: key, link_limit: account.linkLimit };
}
