// What the two-factor and passkey tests run their use cases on: a migrated database of their own, Redis
// under a prefix of their own, and the use cases' dependencies (no mail, a silent logger).
import { createPrisma, type PrismaClient } from "@kurz/db";
import { createLogger } from "@kurz/service-kit";
import { cleanupRedisPrefix, type TestDatabase, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { Redis } from "ioredis";
import { registerAccount } from "../src/accounts/register-account.ts";
import { issueSession } from "../src/sessions/sessions.ts";
import { signIn } from "../src/sessions/sign-in.ts";
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

/** A new user signed up with `password`, and a session of theirs opened at `now`: its caller. */
export async function signedUpUser(bed: TwoFactorBed, email: string, password: string, now = new Date()) {
  const registered = await registerAccount(bed.deps, { email, password }, null);
  const userId = registered.session.user_id;
  const { row } = await issueSession(bed.prisma, userId, 3_600_000, now);
  return { userId, caller: { userId, sessionId: row.id, clientHash: null } };
}

/** A password sign-in by a user with a second factor: the challenge that asks for it. */
export async function secondFactorChallenge(deps: TwoFactorTestDeps, email: string, password: string) {
  const outcome = await signIn(deps, { email, password }, { clientHash: null, device: null });
  if (!("two_factor_required" in outcome)) throw new Error("expected a second-factor challenge");
  return outcome;
}
