// What the two-factor and passkey tests run their use cases on: a migrated database of their own, Redis
// under a prefix of their own, and the use cases' dependencies (no mail, a silent logger).
import { createPrisma, type PrismaClient } from "@kurz/db";
import { createLogger } from "@kurz/service-kit";
import { cleanupRedisPrefix, type TestDatabase, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { Redis } from "ioredis";
import type { completeTwoFactor } from "../src/two-factor/complete-two-factor.ts";
import { relyingPartyFrom } from "../src/two-factor/factors.ts";
import { SecretBox } from "../src/webhooks/secrets.ts";

export type TwoFactorTestDeps = Parameters<typeof completeTwoFactor>[0];

export interface TwoFactorBed {
  prisma: PrismaClient;
  redis: Redis;
  deps: TwoFactorTestDeps;
  close(): Promise<void>;
}

export async function openTwoFactorBed(
  name: string,
  opts: { origin: string; signinsPerAccount: number },
): Promise<TwoFactorBed> {
  const database: TestDatabase = await createMigratedDatabase(name.replaceAll("-", "_"));
  const prisma = createPrisma(database.url);
  const prefix = uniquePrefix(name);
  const redis = new Redis(testRedisUrl(), { keyPrefix: `${prefix}:` });
  const deps: TwoFactorTestDeps = {
    prisma,
    redis,
    keyLimits: { perMinute: 60, perHour: 1000 },
    signup: "open",
    sessionTtlMs: 3_600_000,
    sessionMaxAgeMs: 86_400_000,
    signinLimits: { perAccount: opts.signinsPerAccount, perClient: 1000, windowSeconds: 600 },
    baseUrl: opts.origin,
    mailer: null,
    logger: createLogger(`${name}-test`, "silent"),
    totpSecrets: new SecretBox("test-two-factor-secrets-key", "totp"),
    relyingParty: relyingPartyFrom(opts.origin),
  };
  return {
    prisma,
    redis,
    deps,
    close: async () => {
      redis.disconnect();
      await cleanupRedisPrefix(testRedisUrl(), prefix).catch(() => {});
      await prisma.$disconnect();
      await database.drop();
    },
  };
}
