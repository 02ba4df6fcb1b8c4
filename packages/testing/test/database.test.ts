import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, ensurePostgres, testDatabaseName } from "../src/index.ts";

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: "postgresql://postgres@127.0.0.1:5432/postgres" });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    return rowCount === 1;
  } finally {
    await client.end();
  }
}

describe("createTestDatabase", () => {
  beforeAll(() => ensurePostgres());

  const created: Array<{ drop(): Promise<void> }> = [];
  afterAll(async () => {
    await Promise.all(created.map((db) => db.drop()));
  });

  it("creates an empty database the returned url connects to, and drop removes it", async () => {
    const db = await createTestDatabase("harness");
    created.push(db);
    expect(db.name).toMatch(/^harness_[a-z0-9]+_[0-9a-f]{8}$/);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query<{ db: string }>("SELECT current_database() AS db");
    // Left open on purpose: drop() must still succeed with a client connected.
    expect(rows[0]?.db).toBe(db.name);
    client.on("error", () => {});

    await db.drop();
    expect(await databaseExists(db.name)).toBe(false);
    await client.end().catch(() => {});
  });

  it("gives every call its own database", async () => {
    const [a, b] = await Promise.all([createTestDatabase("twin"), createTestDatabase("twin")]);
    created.push(a, b);
    expect(a.name).not.toBe(b.name);
    expect(await databaseExists(a.name)).toBe(true);
    expect(await databaseExists(b.name)).toBe(true);
  });

  it("runs the migrate hook against the new database before returning", async () => {
    const db = await createTestDatabase("migrated", {
      migrate: async (url) => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query("CREATE TABLE marker (id int)");
        await client.end();
      },
    });
    created.push(db);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query("SELECT to_regclass('marker') IS NOT NULL AS present");
    await client.end();
    expect(rows[0]).toEqual({ present: true });
  });

  it("drops the database when the migrate hook fails", async () => {
    let seenName = "";
    await expect(
      createTestDatabase("failing", {
        migrate: async (url) => {
          seenName = new URL(url).pathname.slice(1);
          throw new Error("migration broke");
        },
      }),
    ).rejects.toThrow("migration broke");
    expect(seenName).not.toBe("");
    expect(await databaseExists(seenName)).toBe(false);
  });

  it("makes names that are valid identifiers from any prefix", () => {
    const name = testDatabaseName("9 Weird/Prefix-that is far too long for postgres identifiers!!");
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toMatch(/^[a-z_][a-z0-9_]*$/);
  });
});

describe("ensurePostgres", () => {
  it("fails with a message naming the server and the override variable", async () => {
    await expect(ensurePostgres("postgresql://postgres:secret@127.0.0.1:1/postgres")).rejects.toThrow(
      /Postgres is not reachable at postgresql:\/\/postgres@127\.0\.0\.1:1\/postgres .*TEST_PG_ADMIN_URL/,
    );
  });
});
