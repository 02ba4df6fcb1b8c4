// How the import asks "does this account already have these URLs?" (imports/import-batch.ts, lookUp)
// at 100,000 links: `node --import tsx infra/bench/_import-url-lookup.ts [links] [--without-index]
// [--before-query]` migrates a scratch database (with `--without-index`, drops
// links_account_id_url_hash_idx, leaving no index on the URL; with `--before-query`, explains the
// join the lookup used to be, BEFORE below), gives one account `links` links (and another account
// as many, some to the same URLs), then
// prints EXPLAIN (ANALYZE, BUFFERS) of the batch's URL lookup for 1,000 alias-less rows (half of them
// URLs the account has), as a custom plan and as a generic one (a prepared statement's), twice each:
// right after the insert (the trigram GIN's pending list full) and after VACUUM ANALYZE.
import { dropDatabase, migrateDatabase } from "@kurz/db";
import pg from "pg";

const links = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 100_000);
const withoutIndex = process.argv.includes("--without-index");
const url = `postgresql://postgres@127.0.0.1:5432/kurz_url_lookup_${process.pid}`;
const ACCOUNT = "00000000-0000-4000-8000-000000000001";
const OTHER = "00000000-0000-4000-8000-000000000002";

// The URL part of lookUp, as import-batch.ts sends it (the account and the batch's URLs bound): before,
// a join the planner ran as a hash join over every link of the account (or, as a prepared statement, a
// BitmapAnd with the account's index per URL); now a lateral probe per URL through the btree on the
// account and the URL's hash, the URL itself compared on what it finds.
const BEFORE = `SELECT DISTINCT 'url', l.original_url, true, l.original_url
  FROM links l JOIN unnest($2::text[]) AS u(url) ON l.original_url = u.url
  WHERE l.account_id = $1::uuid`;
const AFTER = `SELECT 'url', x.original_url, true, x.original_url
  FROM unnest($2::text[]) AS u(url)
  CROSS JOIN LATERAL (SELECT l.original_url FROM links l
    WHERE l.account_id = $1::uuid AND hashtextextended(l.original_url, 0) = hashtextextended(u.url, 0)
      AND l.original_url = u.url
    LIMIT 1) AS x`;
const LOOKUP = process.argv.includes("--before-query") ? BEFORE : AFTER;

await migrateDatabase(url);
const db = new pg.Client({ connectionString: url });
await db.connect();
try {
  if (withoutIndex) await db.query("DROP INDEX links_account_id_url_hash_idx");
  for (const [id, email] of [
    [ACCOUNT, "a@example.com"],
    [OTHER, "b@example.com"],
  ])
    await db.query(
      "INSERT INTO accounts (id, email, link_limit, updated_at) VALUES ($1, $2, 1000000, now())",
      [id, email],
    );
  // URLs of a realistic length; the other account shortened every third of the same URLs.
  await db.query(
    `INSERT INTO links (id, account_id, short_code, original_url, title, updated_at)
     SELECT gen_random_uuid(), $1::uuid, 'a' || i, 'https://example.com/articles/' || i || '/some-title-of-the-page?utm_source=newsletter', 't', now()
     FROM generate_series(1, $2::int) AS i`,
    [ACCOUNT, links],
  );
  await db.query(
    `INSERT INTO links (id, account_id, short_code, original_url, title, updated_at)
     SELECT gen_random_uuid(), $1::uuid, 'b' || i, 'https://example.com/articles/' || (i * 3) || '/some-title-of-the-page?utm_source=newsletter', 't', now()
     FROM generate_series(1, $2::int) AS i`,
    [OTHER, links],
  );
  const batch = Array.from(
    { length: 1_000 },
    (_, i) =>
      `https://example.com/articles/${i % 2 === 0 ? Math.floor((i * links) / 1_000) + 1 : `new-${i}`}/some-title-of-the-page?utm_source=newsletter`,
  );
  const explain = async (label: string) => {
    for (const mode of ["force_custom_plan", "force_generic_plan"]) {
      await db.query(`SET plan_cache_mode = ${mode}`);
      await db.query("DEALLOCATE ALL");
      await db.query(`PREPARE lookup(uuid, text[]) AS ${LOOKUP}`);
      // EXECUTE takes no bind parameters: the batch goes in as a literal (values escaped by pg).
      const args = `'${ACCOUNT}', ARRAY[${batch.map((u) => db.escapeLiteral(u)).join(",")}]::text[]`;
      const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE lookup(${args})`);
      const { rows: found } = await db.query(`EXECUTE lookup(${args})`);
      console.log(
        `\n## ${label}, ${LOOKUP === BEFORE ? "query before" : "query after"}, ${withoutIndex ? "without" : "with"} the index on the URL's hash, ${mode} (${found.length} URLs found of 1,000)`,
      );
      for (const r of rows) console.log(r["QUERY PLAN"]);
    }
  };
  await explain(`${links} links, just inserted`);
  await db.query("VACUUM ANALYZE links");
  await explain(`${links} links, after VACUUM ANALYZE`);
} finally {
  await db.end();
  await dropDatabase(url);
}
