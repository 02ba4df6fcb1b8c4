import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestDatabase,
  ensurePostgres,
  pgAdminUrl,
  TEMPLATE_PREFIX,
  type TestDatabase,
  testDatabaseName,
} from "../src/index.ts";

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: pgAdminUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: pgAdminUrl() });
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

  const created: TestDatabase[] = [];
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

  describe("with a template key", () => {
    // A key of this run's own, so the template is built here and not found from an earlier run.
    const key = `harness_${Date.now().toString(36)}`;
    const template = `${TEMPLATE_PREFIX}${key}`;
    let migrations = 0;
    const migrate = async (url: string) => {
      migrations++;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query("CREATE TABLE marker (id int)");
      await client.query("INSERT INTO marker VALUES (1)");
      await client.end();
    };
    afterAll(() =>
      admin(async (client) => {
        await client.query(`ALTER DATABASE "${template}" IS_TEMPLATE false`).catch(() => {});
        await client.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
      }),
    );

    it("migrates once into a template, even for callers at the same time, and copies it for each", async () => {
      const dbs = await Promise.all(
        [1, 2, 3].map(() => createTestDatabase("copy", { migrate, template: key })),
      );
      created.push(...dbs);
      created.push(await createTestDatabase("copy", { migrate, template: key }));
      expect(migrations).toBe(1);
      expect(new Set(created.map((db) => db.name)).size).toBe(created.length);
      for (const db of dbs) {
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        const { rows } = await client.query("SELECT id FROM marker");
        await client.query("INSERT INTO marker VALUES (2)"); // a copy is the test's own to change
        await client.end();
        expect(rows).toEqual([{ id: 1 }]);
      }
      const { rows } = await admin((client) =>
        client.query("SELECT datistemplate, datallowconn FROM pg_database WHERE datname = $1", [template]),
      );
      // Nobody can connect to the template, so nothing can block the next copy.
      expect(rows).toEqual([{ datistemplate: true, datallowconn: false }]);
    });

    it("leaves no template when the migration fails, so the next caller migrates again", async () => {
      const failingKey = `${key}_failing`;
      await expect(
        createTestDatabase("copy", {
          template: failingKey,
          migrate: () => Promise.reject(new Error("broke")),
        }),
      ).rejects.toThrow("broke");
      const { rows } = await admin((client) =>
        client.query("SELECT datname FROM pg_database WHERE datname LIKE $1", [
          `${TEMPLATE_PREFIX}${failingKey}%`,
        ]),
      );
      expect(rows).toEqual([]);
    });
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
