// The database error helpers against the errors Prisma really throws (model and raw queries, through
// the pg driver adapter), so a change in Prisma's error shape fails here and not in a 500 at a client.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPrisma,
  dropDatabase,
  isRecordMissing,
  isUniqueViolation,
  migrateDatabase,
  type PrismaClient,
} from "../src/index.ts";
import { uniqueDatabaseUrl } from "./databases.ts";

const databaseUrl = uniqueDatabaseUrl("errors");
let prisma: PrismaClient;
let accountId: string;

beforeAll(async () => {
  await migrateDatabase(databaseUrl);
  prisma = createPrisma(databaseUrl);
  accountId = (await prisma.account.create({ data: { email: "taken@example.com" } })).id;
  await prisma.link.create({
    data: { accountId, shortCode: "taken", originalUrl: "https://example.com/", title: "t" },
  });
});

afterAll(async () => {
  await prisma?.$disconnect();
  await dropDatabase(databaseUrl);
});

const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected the statement to fail");
};

describe("isUniqueViolation", () => {
  it("recognises a unique violation from a model query, by index name and by column", async () => {
    const err = await rejection(prisma.account.create({ data: { email: "taken@example.com" } }));
    expect(isUniqueViolation(err)).toBe(true);
    expect(isUniqueViolation(err, "accounts_email_key")).toBe(true);
    expect(isUniqueViolation(err, "links_short_code_key")).toBe(false);
    expect(isRecordMissing(err)).toBe(false);
  });

  it("recognises a unique violation from a raw query (P2010) and inside a transaction", async () => {
    const raw = await rejection(
      prisma.$executeRaw`INSERT INTO links (id, account_id, short_code, original_url, title, updated_at)
        VALUES (gen_random_uuid(), ${accountId}::uuid, 'taken', 'https://example.com/', 't', now())`,
    );
    expect(isUniqueViolation(raw, "links_short_code_key")).toBe(true);
    expect(isUniqueViolation(raw, "accounts_email_key")).toBe(false);

    const inTx = await rejection(
      prisma.$transaction((tx) =>
        tx.link.create({
          data: { accountId, shortCode: "taken", originalUrl: "https://e.com/", title: "t" },
        }),
      ),
    );
    expect(isUniqueViolation(inTx, "links_short_code_key")).toBe(true);
  });

  it("is false for other database errors and for things that are not errors", async () => {
    const check = await rejection(
      prisma.$executeRaw`INSERT INTO link_quota (account_id, shard, used, lease) VALUES (${accountId}::uuid, 99, 1, 0)`,
    );
    expect(isUniqueViolation(check)).toBe(false);
    expect(isRecordMissing(check)).toBe(false);
    for (const value of [null, undefined, "P2002", 2002, new Error("P2002"), { code: "P2025x" }]) {
      expect(isUniqueViolation(value)).toBe(false);
      expect(isRecordMissing(value)).toBe(false);
    }
  });
});

describe("isRecordMissing", () => {
  it("recognises an update or delete of a row that is gone", async () => {
    const gone = "00000000-0000-4000-8000-000000000000";
    const update = await rejection(prisma.account.update({ where: { id: gone }, data: { plan: "pro" } }));
    const remove = await rejection(prisma.link.delete({ where: { id: gone } }));
    for (const err of [update, remove]) {
      expect(isRecordMissing(err)).toBe(true);
      expect(isUniqueViolation(err)).toBe(false);
    }
  });
});
