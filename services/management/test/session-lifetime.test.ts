// A session's two lifetimes against the real Postgres, with the clock passed in: each use pushes its
// end SESSION_TTL_HOURS forward (the idle window), but never past SESSION_MAX_AGE_DAYS after sign-in
// (the absolute one), so even a session in constant use ends.
import { createPrisma, type PrismaClient } from "@kurz/db";
import type { TestDatabase } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { afterAll, beforeAll, expect, it } from "vitest";
import { renewSession } from "../src/sessions/renew-session.ts";
import { findLiveSession, hashSessionToken, issueSession } from "../src/sessions/sessions.ts";

const DAY = 24 * 3_600_000;
const LIFETIME = { sessionTtlMs: 14 * DAY, sessionMaxAgeMs: 30 * DAY };
const T0 = new Date("2031-03-04T05:06:07.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

let database: TestDatabase;
let prisma: PrismaClient;
let userId: string;

beforeAll(async () => {
  database = await createMigratedDatabase("session_lifetime");
  prisma = createPrisma(database.url);
  userId = (await prisma.user.create({ data: { email: `lifetime-${process.pid}@example.com` } })).id;
});
afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

it("slides forward with use, up to 30 days after sign-in and not a moment beyond", async () => {
  const { token, row } = await issueSession(prisma, userId, LIFETIME.sessionTtlMs, T0);
  const hash = hashSessionToken(token);
  expect(row.expiresAt).toEqual(at(14 * DAY));

  const tenDays = await renewSession(prisma, hash, LIFETIME, at(10 * DAY));
  expect(tenDays?.expiresAt).toEqual(at(24 * DAY));
  // Used on day 20: the idle window would reach day 34; the absolute end is day 30.
  const twentyDays = await renewSession(prisma, hash, LIFETIME, at(20 * DAY));
  expect(twentyDays?.expiresAt).toEqual(at(30 * DAY));
  expect(await findLiveSession(prisma, hash, at(30 * DAY - 1))).not.toBeNull();
  expect(await renewSession(prisma, hash, LIFETIME, at(30 * DAY - 1))).toMatchObject({
    expiresAt: at(30 * DAY),
  });
  // At the absolute end it is over, and no renewal brings it back.
  expect(await findLiveSession(prisma, hash, at(30 * DAY))).toBeNull();
  expect(await renewSession(prisma, hash, LIFETIME, at(30 * DAY))).toBeNull();
});

it("an idle session still ends at its idle window, well before the absolute end", async () => {
  const { token } = await issueSession(prisma, userId, LIFETIME.sessionTtlMs, T0);
  const hash = hashSessionToken(token);
  expect(await findLiveSession(prisma, hash, at(14 * DAY - 1))).not.toBeNull();
  expect(await findLiveSession(prisma, hash, at(14 * DAY))).toBeNull();
  expect(await renewSession(prisma, hash, LIFETIME, at(14 * DAY))).toBeNull();
});
