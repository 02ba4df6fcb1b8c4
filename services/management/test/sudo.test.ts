// The password confirmation's window (sudo.ts) against the real Postgres and Redis, with the clock passed
// in: confirmed at t0, a session may act without the password until t0 + 10 minutes and not after;
// signing in confirms nothing; the password in the request confirms anew; a key needs none of it.
import { SUDO_WINDOW_MINUTES } from "@kurz/contracts";
import { createPrisma, type PrismaClient } from "@kurz/db";
import { cleanupRedisPrefix, type TestDatabase, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../src/security/passwords.ts";
import { issueSession } from "../src/sessions/sessions.ts";
import { confirmPassword, requireRecentPassword } from "../src/sessions/sudo.ts";

const PASSWORD = "the owner's password";
const MINUTE = 60_000;
const WINDOW = SUDO_WINDOW_MINUTES * MINUTE;
const T0 = new Date("2031-03-04T05:06:07.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

let database: TestDatabase;
let prisma: PrismaClient;
let redis: Redis;
const prefix = uniquePrefix("sudo");
let deps: Parameters<typeof requireRecentPassword>[0];
let userId: string;

beforeAll(async () => {
  database = await createMigratedDatabase("sudo");
  prisma = createPrisma(database.url);
  redis = new Redis(testRedisUrl(), { keyPrefix: `${prefix}:` });
  deps = { prisma, redis, signinLimits: { perAccount: 100, perClient: 100, windowSeconds: 60 } };
  const user = await prisma.user.create({
    data: { email: `sudo-${process.pid}@example.com`, passwordHash: await hashPassword(PASSWORD) },
  });
  userId = user.id;
});
afterAll(async () => {
  redis?.disconnect();
  await cleanupRedisPrefix(testRedisUrl(), prefix).catch(() => {});
  await prisma?.$disconnect();
  await database?.drop();
});

/** A session that lives far beyond every moment these tests pass in. */
async function session() {
  const { row } = await issueSession(prisma, userId, 365 * 24 * 60 * MINUTE, T0);
  return { userId, sessionId: row.id };
}

const refusal = (p: Promise<unknown>) =>
  expect(p).rejects.toMatchObject({
    code: "FORBIDDEN",
    message: expect.stringMatching(/^Confirm your password/),
  });

describe("the confirmation window", () => {
  it("a new session has confirmed nothing, however fresh", async () => {
    await refusal(requireRecentPassword(deps, await session(), undefined, null, T0));
  });

  it("lasts exactly the window from the confirmation", async () => {
    const caller = await session();
    const answer = await confirmPassword(deps, caller, PASSWORD, null, T0);
    expect(answer.confirmed_until).toBe(at(WINDOW).toISOString());
    await requireRecentPassword(deps, caller, undefined, null, at(WINDOW - 1));
    await refusal(requireRecentPassword(deps, caller, undefined, null, at(WINDOW)));
    await refusal(requireRecentPassword(deps, caller, undefined, null, at(WINDOW + 60 * MINUTE)));
  });

  it("the right password in the request passes and starts a new window; a wrong one is refused", async () => {
    const caller = await session();
    await expect(requireRecentPassword(deps, caller, "not the password", null, T0)).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: "The current password is wrong",
    });
    await refusal(requireRecentPassword(deps, caller, undefined, null, T0));
    await requireRecentPassword(deps, caller, PASSWORD, null, at(30 * MINUTE));
    await requireRecentPassword(deps, caller, undefined, null, at(30 * MINUTE + WINDOW - 1));
    await refusal(requireRecentPassword(deps, caller, undefined, null, at(30 * MINUTE + WINDOW)));
  });

  it("belongs to one session: another session of the account is not confirmed by it", async () => {
    const [mine, other] = [await session(), await session()];
    await confirmPassword(deps, mine, PASSWORD, null, T0);
    await refusal(requireRecentPassword(deps, other, undefined, null, at(MINUTE)));
  });

  it("a key needs no confirmation", async () => {
    await requireRecentPassword(deps, { userId, sessionId: null }, undefined, null, T0);
  });
});
