// What the two-factor and passkey tests run their use cases on: a migrated database of their own, Redis
// under a prefix of their own, and the use cases' dependencies (no mail, a silent logger).
import { createPrisma, type PrismaClient } from "@kurz/db";
import { createLogger } from "@kurz/service-kit";
import { cleanupRedisPrefix, type TestDatabase, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
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
  /** A new user signed up with `password`, and a session of theirs opened at `now`: its caller. */
  signUp(
    email: string,
    password: string,
    now?: Date,
  ): Promise<{ userId: string; caller: { userId: string; sessionId: string; clientHash: null } }>;
  /** A password sign-in by a user with a second factor: the challenge that asks for it. */
  challenge(email: string, password: string): Promise<SecondFactorChallenge>;
  close(): Promise<void>;
}

type SecondFactorChallenge = Extract<Awaited<ReturnType<typeof signIn>>, { two_factor_required: unknown }>;

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
    signUp: async (email, password, now = new Date()) => {
      const registered = await registerAccount(deps, { email, password }, null);
      const userId = registered.session.user_id;
      const { row } = await issueSession(prisma, userId, 3_600_000, now);
      return { userId, caller: { userId, sessionId: row.id, clientHash: null } };
    },
    challenge: async (email, password) => {
      const outcome = await signIn(deps, { email, password }, { clientHash: null, device: null });
      if (!("two_factor_required" in outcome)) throw new Error("expected a second-factor challenge");
      return outcome;
    },
    close: async () => {
      redis.disconnect();
      await cleanupRedisPrefix(testRedisUrl(), prefix).catch(() => {});
      await prisma.$disconnect();
      await database.drop();
    },
  };
}

/** Opens the bed in beforeAll and closes it in afterAll: its members read once it is open. */
export function useTwoFactorBed(
  name: string,
  opts: { origin: string; signinsPerAccount: number },
): TwoFactorBed {
  let bed: TwoFactorBed | undefined;
  beforeAll(async () => {
    bed = await openTwoFactorBed(name, opts);
  });
  afterAll(() => bed?.close());
  const open = () => {
    if (!bed) throw new Error("the two-factor bed opens in beforeAll");
    return bed;
  };
  return {
    get prisma() {
      return open().prisma;
    },
    get redis() {
      return open().redis;
    },
    get deps() {
      return open().deps;
    },
    signUp: (...args) => open().signUp(...args),
    challenge: (...args) => open().challenge(...args),
    close: () => open().close(),
  };
}
