// The stored_link_count migration (decision 0012) backfills accounts.link_count from the links that
// exist when it runs. Replayed here on a database that holds links from before the column existed.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { dropDatabase, MIGRATIONS_DIR, migrateDatabase } from "../src/index.ts";
import { uniqueDatabaseUrl } from "./databases.ts";

const databaseUrl = uniqueDatabaseUrl("link_count");
let client: pg.Client;

beforeAll(async () => {
  await migrateDatabase(databaseUrl);
  client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await dropDatabase(databaseUrl);
});

it("counts each account's existing links, and refuses a negative count afterwards", async () => {
  const [name] = (await readdir(MIGRATIONS_DIR)).filter((n) => n.endsWith("_stored_link_count"));
  const sql = await readFile(join(MIGRATIONS_DIR, name!, "migration.sql"), "utf8");
  // Back to the schema before the migration, with links in two accounts and none in a third.
  await client.query(`ALTER TABLE accounts DROP CONSTRAINT accounts_link_count_check;
    ALTER TABLE accounts DROP COLUMN link_count`);
  const { rows: accounts } = await client.query<{ id: string }>(
    `INSERT INTO accounts (id, email, updated_at)
     SELECT gen_random_uuid(), 'a' || i || '@example.com', now() FROM generate_series(1, 3) i
     RETURNING id`,
  );
  const seed = (accountId: string, n: number) =>
    client.query(
      `INSERT INTO links (id, account_id, short_code, original_url, title, updated_at)
       SELECT gen_random_uuid(), $1::uuid, $1 || '-' || i, 'https://example.com/', 't', now()
       FROM generate_series(1, $2::int) i`,
      [accountId, n],
    );
  await seed(accounts[0]!.id, 7);
  await seed(accounts[1]!.id, 2);

  await client.query(sql); // one simple query: its statements run in one implicit transaction

  const { rows } = await client.query<{ id: string; link_count: number }>(
    "SELECT id, link_count FROM accounts",
  );
  const counts = new Map(rows.map((r) => [r.id, r.link_count]));
  expect(accounts.map((a) => counts.get(a.id))).toEqual([7, 2, 0]);
  await expect(
    client.query("UPDATE accounts SET link_count = -1 WHERE id = $1", [accounts[2]!.id]),
  ).rejects.toThrow(/accounts_link_count_check/);
});
