// The database error helpers against the errors Prisma really throws (model and raw queries, through
// the pg driver adapter), so a change in Prisma's error shape fails here and not in a 500 at a client.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../../testing/src/database.ts";
import { createMigratedDatabase } from "../../testing/src/migrated-database.ts";
import {
  createPrisma,
  isDatabaseUnavailable,
  isForeignKeyViolation,
  isRecordMissing,
  isUniqueViolation,
  type PrismaClient,
  poolOf,
} from "../src/index.ts";

let database: TestDatabase;
let databaseUrl: string;
let prisma: PrismaClient;
let accountId: string;

beforeAll(async () => {
  // A copy of the suite's migrated template (packages/testing): the errors need the schema, not a
  // migration of their own (migrate-database.test.ts tests migrating).
  database = await createMigratedDatabase("kurz_db_errors");
  databaseUrl = database.url;
  prisma = createPrisma(databaseUrl);
  accountId = (await prisma.account.create({ data: { email: "taken@example.com", name: "w" } })).id;
  await prisma.user.create({ data: { email: "taken@example.com" } });
  await prisma.link.create({
    data: { accountId, shortCode: "taken", originalUrl: "https://example.com/", title: "t" },
  });
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected the statement to fail");
};

describe("isForeignKeyViolation", () => {
  it("recognises a write pointing at a missing row, from a model query and from a raw query", async () => {
    const gone = "00000000-0000-4000-8000-000000000000";
    const model = await rejection(
      prisma.link.create({
        data: { accountId: gone, shortCode: "orphan", originalUrl: "https://example.com/", title: "t" },
      }),
    );
    expect(isForeignKeyViolation(model)).toBe(true);
    expect(isUniqueViolation(model)).toBe(false);

    const raw = await rejection(
      prisma.$executeRaw`INSERT INTO links (id, account_id, short_code, original_url, title, updated_at)
        VALUES (gen_random_uuid(), ${gone}::uuid, 'orphan', 'https://example.com/', 't', now())`,
    );
    expect(isForeignKeyViolation(raw)).toBe(true);
  });

  it("is false for a unique violation and for things that are not errors", async () => {
    const unique = await rejection(prisma.user.create({ data: { email: "taken@example.com" } }));
    expect(isForeignKeyViolation(unique)).toBe(false);
    for (const value of [null, undefined, "P2003", 23503, new Error("P2003")]) {
      expect(isForeignKeyViolation(value)).toBe(false);
    }
  });
});

describe("isUniqueViolation", () => {
  it("recognises a unique violation from a model query, by index name and by column", async () => {
    const err = await rejection(prisma.user.create({ data: { email: "taken@example.com" } }));
    expect(isUniqueViolation(err)).toBe(true);
    expect(isUniqueViolation(err, "users_email_key")).toBe(true);
    expect(isUniqueViolation(err, "links_short_code_key")).toBe(false);
    expect(isRecordMissing(err)).toBe(false);
  });

  it("recognises a unique violation from a raw query (P2010) and inside a transaction", async () => {
    const raw = await rejection(
      prisma.$executeRaw`INSERT INTO links (id, account_id, short_code, original_url, title, updated_at)
        VALUES (gen_random_uuid(), ${accountId}::uuid, 'taken', 'https://example.com/', 't', now())`,
    );
    expect(isUniqueViolation(raw, "links_short_code_key")).toBe(true);
    expect(isUniqueViolation(raw, "users_email_key")).toBe(false);

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

describe("isDatabaseUnavailable", () => {
  it("recognises a server that refuses connections, from model, raw and pool queries", async () => {
    const down = createPrisma("postgresql://postgres@127.0.0.1:1/nowhere");
    try {
      const errors = [
        await rejection(down.account.findFirst()),
        await rejection(down.$queryRaw`SELECT 1`),
        await rejection(poolOf(down).query("SELECT 1")),
      ];
      for (const err of errors) expect(isDatabaseUnavailable(err), String(err)).toBe(true);
    } finally {
      await down.$disconnect();
    }
  });

  it("recognises a statement whose connection the server terminated (a restart's 57P01)", async () => {
    const victim = createPrisma(databaseUrl);
    try {
      const viaPool = rejection(poolOf(victim).query("SELECT pg_sleep(30) AS victim_pool"));
      const viaPrisma = rejection(victim.$queryRaw`SELECT pg_sleep(30) AS victim_prisma`);
      const victims = () =>
        prisma.$queryRaw<{ pid: number }[]>`SELECT pid FROM pg_stat_activity
          WHERE query LIKE '%AS victim_%' AND pid <> pg_backend_pid()`;
      for (let i = 0; i < 100 && (await victims()).length < 2; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(await victims()).toHaveLength(2);
      await prisma.$queryRaw`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE query LIKE '%AS victim_%' AND pid <> pg_backend_pid()`;
      for (const err of [await viaPool, await viaPrisma])
        expect(isDatabaseUnavailable(err), String(err)).toBe(true);
    } finally {
      await victim.$disconnect();
    }
  });

  it("is false for refusals by the data and for things that are not database errors", async () => {
    const unique = await rejection(prisma.user.create({ data: { email: "taken@example.com" } }));
    const missing = await rejection(
      prisma.account.update({ where: { id: "00000000-0000-4000-8000-000000000000" }, data: { plan: "pro" } }),
    );
    const syntax = await rejection(prisma.$queryRawUnsafe("SELEC 1"));
    for (const value of [
      unique,
      missing,
      syntax,
      null,
      undefined,
      "P1001",
      new Error("boom"),
      { code: "P2002" },
    ]) {
      expect(isDatabaseUnavailable(value)).toBe(false);
    }
  });
});
