import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../testing/src/database.ts";
import { createMigratedDatabase, migrationsKey } from "../../testing/src/migrated-database.ts";
import { createPrisma, migrateDatabase, Prisma, PrismaClient, poolOf } from "../src/index.ts";

let database: TestDatabase;
let databaseUrl: string;
let prisma: PrismaClient;

beforeAll(async () => {
  // A copy of the suite's migrated template (packages/testing): this file tests the client, not the
  // migrating (migrate-database.test.ts); a copy takes tens of milliseconds, a migration a CLI run.
  database = await createMigratedDatabase("kurz_db_client");
  databaseUrl = database.url;
  prisma = createPrisma(databaseUrl);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

describe("createPrisma", () => {
  it("round-trips an account with an API key and a link, applying the schema defaults", async () => {
    const key = `kurz_live_${randomBytes(16).toString("hex")}`;
    const account = await prisma.account.create({
      data: {
        email: "ann@example.com",
        name: "Ann's",
        apiKeys: {
          create: {
            name: "default",
            keyHash: createHash("sha256").update(key).digest("hex"),
            keyPrefix: key.slice(0, 14),
          },
        },
        links: { create: { shortCode: "abc123", originalUrl: "https://example.com/a", title: "Example" } },
      },
    });

    const read = await prisma.account.findUniqueOrThrow({
      where: { id: account.id },
      include: { apiKeys: true, links: true },
    });

    expect(read).toMatchObject({
      id: account.id,
      linkLimit: 500,
      defaultExpiryHours: null,
      totalClicks: 0n,
      plan: "free",
      email: "ann@example.com",
    });
    expect(read.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Number.isInteger(read.legacyId)).toBe(true);
    expect(read.apiKeys).toHaveLength(1);
    expect(read.apiKeys[0]).toMatchObject({
      keyPrefix: key.slice(0, 14),
      rateLimitPerMinute: 60,
      rateLimitPerHour: 1000,
      revokedAt: null,
    });
    expect(read.links).toHaveLength(1);
    expect(read.links[0]).toMatchObject({
      shortCode: "abc123",
      isActive: true,
      clicksCount: 0n,
      analyticsPublic: false,
      analyticsSharedFields: null,
    });
  });

  it("gives each account its own legacy integer id", async () => {
    const first = await prisma.account.create({ data: { email: "first@example.com", name: "w" } });
    const second = await prisma.account.create({ data: { email: "second@example.com", name: "w" } });

    expect(second.legacyId).toBeGreaterThan(first.legacyId);
  });

  it("rejects a second link with the same short code", async () => {
    const owner = await prisma.account.create({ data: { email: "dup@example.com", name: "w" } });
    const link = { accountId: owner.id, shortCode: "same", originalUrl: "https://example.com", title: "t" };
    await prisma.link.create({ data: link });

    await expect(prisma.link.create({ data: link })).rejects.toMatchObject({ code: "P2002" });
  });

  it("stores analytics_shared_fields as a list or as NULL meaning all", async () => {
    const owner = await prisma.account.create({ data: { email: "shared@example.com", name: "w" } });
    const link = await prisma.link.create({
      data: {
        accountId: owner.id,
        shortCode: "shared",
        originalUrl: "https://example.com",
        title: "t",
        analyticsSharedFields: ["overview", "devices"],
      },
    });
    expect(link.analyticsSharedFields).toEqual(["overview", "devices"]);

    const cleared = await prisma.link.update({
      where: { id: link.id },
      data: { analyticsSharedFields: Prisma.DbNull },
    });
    expect(cleared.analyticsSharedFields).toBeNull();
  });

  it("deletes an account's keys and links with it", async () => {
    const owner = await prisma.account.create({
      data: {
        email: "gone@example.com",
        name: "gone",
        apiKeys: { create: { name: "k", keyHash: "f".repeat(64), keyPrefix: "kurz_live_abcd" } },
        links: { create: { shortCode: "gone", originalUrl: "https://example.com", title: "t" } },
      },
    });

    await prisma.account.delete({ where: { id: owner.id } });

    expect(await prisma.apiKey.count({ where: { accountId: owner.id } })).toBe(0);
    expect(await prisma.link.count({ where: { accountId: owner.id } })).toBe(0);
  });

  it("keeps outbox events in id order with empty headers by default", async () => {
    const first = await prisma.outboxEvent.create({
      data: { topic: "links", key: "k1", payload: { v: 1, type: "link.created" } },
    });
    const second = await prisma.outboxEvent.create({
      data: { topic: "links", key: "k2", payload: { v: 1, type: "link.updated" } },
    });

    const pending = await prisma.outboxEvent.findMany({ orderBy: { id: "asc" } });

    expect(second.id).toBeGreaterThan(first.id);
    expect(pending.map((event) => event.key)).toEqual(["k1", "k2"]);
    expect(pending[0]).toMatchObject({ headers: {}, payload: { v: 1, type: "link.created" } });
  });
});

describe("poolOf", () => {
  it("is the client's own pool: a session setting made through one is seen through the other", async () => {
    const single = createPrisma(`${databaseUrl}?connection_limit=1`);
    try {
      await single.$executeRawUnsafe("SET application_name = 'kurz-pool-of'");
      const { rows } = await poolOf(single).query("SELECT current_setting('application_name') AS name");
      expect(rows).toEqual([{ name: "kurz-pool-of" }]);
    } finally {
      await single.$disconnect();
    }
  });

  it("refuses a client that createPrisma did not make", () => {
    expect(() => poolOf(Object.create(PrismaClient.prototype) as PrismaClient)).toThrow(/createPrisma/);
  });
});

describe("createPrisma with ?schema=", () => {
  let tenantDatabase: TestDatabase | undefined;

  afterAll(async () => {
    await tenantDatabase?.drop();
  });

  it("reads and writes that schema, for generated and raw queries alike", async () => {
    // Migrated into tenant_b once per set of migrations and definitions, as the suite's template is.
    tenantDatabase = await createTestDatabase("kurz_db_client_schema", {
      migrate: (url) => migrateDatabase(`${url}?schema=tenant_b`),
      template: `migrations_tenant_b_${migrationsKey()}`,
    });
    const schemaUrl = `${tenantDatabase.url}?schema=tenant_b`;
    const tenant = createPrisma(schemaUrl);
    try {
      await tenant.account.create({ data: { email: "tenant@example.com", name: "tenant" } });

      const rows = await tenant.$queryRaw<{ schema: string; accounts: bigint }[]>`
        SELECT current_schema() AS schema, (SELECT count(*) FROM accounts) AS accounts`;
      expect(rows).toEqual([{ schema: "tenant_b", accounts: 1n }]);
      // The pool under the client (decision 0044's direct reads) is in the same schema.
      const direct = await poolOf(tenant).query(
        "SELECT current_schema() AS schema, count(*) AS n FROM accounts",
      );
      expect(direct.rows).toEqual([{ schema: "tenant_b", n: "1" }]);
    } finally {
      await tenant.$disconnect();
    }
  });
});
