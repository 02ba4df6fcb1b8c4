// The stored link count's migrations, replayed on a database that holds links from before them:
// stored_link_count (decision 0037) backfills accounts.link_count from the rows, and link_quota_shards
// (decision 0037) moves that count into the account's shards.
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

const migration = async (suffix: string) => {
  const [name] = (await readdir(MIGRATIONS_DIR)).filter((n) => n.endsWith(suffix));
  return readFile(join(MIGRATIONS_DIR, name!, "migration.sql"), "utf8");
};

it("counts each account's existing links, then moves the count into its shards", async () => {
  const [stored, sharded] = await Promise.all([
    migration("_stored_link_count"),
    migration("_link_quota_shards"),
  ]);
  // Back to the schema before both: no shards, no stored count; links in two accounts, none in a third.
  await client.query(`DROP TABLE link_quota;
    DROP FUNCTION kurz_rebalance_links, kurz_count_links, kurz_uncount_links, kurz_recount_links;
    DROP FUNCTION kurz_link_limit_lowered CASCADE`);
  const { rows: accounts } = await client.query<{ id: string }>(
    `INSERT INTO accounts (id, email, link_limit, updated_at)
     SELECT gen_random_uuid(), 'a' || i || '@example.com', 9, now() FROM generate_series(1, 3) i
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

  await client.query(stored); // one simple query: its statements run in one implicit transaction
  const { rows } = await client.query<{ id: string; link_count: number }>(
    "SELECT id, link_count FROM accounts",
  );
  const counts = new Map(rows.map((r) => [r.id, r.link_count]));
  expect(accounts.map((a) => counts.get(a.id))).toEqual([7, 2, 0]);
  await expect(
    client.query("UPDATE accounts SET link_count = -1 WHERE id = $1", [accounts[2]!.id]),
  ).rejects.toThrow(/accounts_link_count_check/);

  await client.query(sharded);
  const { rows: sums } = await client.query<{ id: string; shards: number; used: number; unused: number }>(
    `SELECT account_id AS id, count(*)::int AS shards, sum(used)::int AS used, sum(lease - used)::int AS unused
     FROM link_quota GROUP BY account_id`,
  );
  const byAccount = new Map(sums.map((s) => [s.id, s]));
  expect(accounts.map((a) => byAccount.get(a.id))).toEqual([
    { id: accounts[0]!.id, shards: 16, used: 7, unused: 0 },
    { id: accounts[1]!.id, shards: 16, used: 2, unused: 0 },
    { id: accounts[2]!.id, shards: 16, used: 0, unused: 0 },
  ]);
  // The first count after it rebalances: 2 more fit under the limit of 9, a third does not.
  await client.query("SELECT kurz_count_links($1::uuid, 2)", [accounts[0]!.id]);
  await expect(client.query("SELECT kurz_count_links($1::uuid, 1)", [accounts[0]!.id])).rejects.toMatchObject(
    {
      code: "KZ403",
    },
  );
  const { rows: columns } = await client.query(
    "SELECT 1 FROM information_schema.columns WHERE table_name = 'accounts' AND column_name = 'link_count'",
  );
  expect(columns).toEqual([]);
});
