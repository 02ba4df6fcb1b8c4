// The first migration, 0011_baseline.sql, creates every table at once. Data directories migrated
// before it existed ran the chain it stands for instead (PRE_BASELINE_MIGRATIONS, versions 1 to 10,
// no longer in the tree), which also created the views; their tables are the baseline's, so they are
// adopted: the baseline is recorded as applied without running, and each view is recorded with the
// checksum of its definition as that chain left it (PRE_BASELINE_VIEWS), so that only a view whose file
// has changed since is re-created (re-creating one loses the clicks inserted meanwhile, view-definitions.ts).
// A directory that ran only part of that chain cannot be adopted (the rest is not here to run) and is
// refused.
import type { KurzClickHouse } from "./create-clickhouse.ts";
import { ensureViewDefinitionsTable, VIEW_DEFINITIONS_TABLE } from "./view-definitions.ts";

export const BASELINE_VERSION = 11;
export const BASELINE_FILE = "0011_baseline.sql";

/** The migrations the baseline replaced: version → name, as schema_migrations recorded them. */
export const PRE_BASELINE_MIGRATIONS: ReadonlyMap<number, string> = new Map([
  [1, "clicks"],
  [2, "analytics_rollups"],
  [3, "hourly_rollups"],
  [4, "campaign_members"],
  [5, "insert_deduplication"],
  [6, "click_message_token"],
  [7, "link_stats"],
  [8, "link_stats_only"],
  [9, "link_daily_totals_projection"],
  [10, "click_feed"],
]);

/** sha256 (definitionChecksum) of each definitions/ file whose view the chain above created as it stands. */
export const PRE_BASELINE_VIEWS: ReadonlyMap<string, string> = new Map([
  ["click_feed_mv", "bfbe5d28f5644e8a0c3c711515e70f687e618a6a842f69c69a70186fa4608462"],
  ["link_daily_from_hourly_mv", "6b68b7cce5acb57bacce599c3e11f7dca34b92f55cd2ad0916455e5c592d8987"],
  ["link_dim_total_from_clicks_mv", "d81fd3dc1b293dfb3e0c396f6d645dc240c6fcc1577d4f5a1f68870d83cdcfe3"],
  ["link_hourly_mv", "b4a7b230f9f7743358b29924ba6a44c2e675314c56c1ca615661282e01344e1b"],
  ["link_stats_click_mv", "fb3d6a37ee44860ff8fdef35cc5a6ba8fff153a79fa9a75228d8131fa03a2296"],
  ["link_stats_day_mv", "13674827293ff166476825bd7f17924fcfb613ceeb494d52624a46d07f68f800"],
  ["link_stats_hour_mv", "5a1072dd11b95428795c652ea099e8238d87d4c587d413651510888f66cb1546"],
  ["link_stats_rows_mv", "d3da3a8edd85215ba72cfc0a31b1f3ec49c9ccb68a1afb02ce70163dc0118396"],
  ["link_visitors_daily_from_hourly_mv", "101d9161ca59f544e9e4283294be953b05434994f35b3129eedd7adf9df3f0a6"],
  ["link_visitors_hourly_mv", "be59c541efab1b1bdeb01fc10780a6bb2b81041f7b67106a037ed8eee0518c6e"],
]);

export class PartialPreBaselineError extends Error {
  constructor(readonly missing: string[]) {
    const file = `packages/clickhouse/migrations/${BASELINE_FILE}`;
    super(
      `This ClickHouse database ran ${PRE_BASELINE_MIGRATIONS.size - missing.length} of the ` +
        `${PRE_BASELINE_MIGRATIONS.size} migrations that ${BASELINE_FILE} replaced (missing: ` +
        `${missing.length > 1 ? `${missing[0]} and ${missing.length - 1} more` : missing[0]}), and this ` +
        "version no longer has them. Finish them with the version before the baseline: check out the " +
        `parent of the commit that added ${file} (git log --diff-filter=A --format=%H -- ${file}), start ` +
        "analytics there once on this database (it migrates on start), then start this version again.",
    );
    this.name = "PartialPreBaselineError";
  }
}

/**
 * Records the baseline and the views as applied when the database ran every migration the baseline
 * replaced; refuses one that ran only some of them. `applied` is schema_migrations' version → name.
 * Returns whether it adopted the database.
 */
export async function adoptPreBaselineDatabase(
  ch: KurzClickHouse,
  applied: ReadonlyMap<number, string>,
  baselineChecksum: string,
): Promise<boolean> {
  if (applied.has(BASELINE_VERSION)) return false;
  const missing = [...PRE_BASELINE_MIGRATIONS]
    .filter(([version, name]) => applied.get(version) !== name)
    .map(([version, name]) => `${String(version).padStart(4, "0")}_${name}.sql`);
  if (missing.length === PRE_BASELINE_MIGRATIONS.size) return false;
  if (missing.length > 0) throw new PartialPreBaselineError(missing);
  // Views first: were the process to stop in between, the next run would adopt again.
  await ensureViewDefinitionsTable(ch);
  await ch.insert(
    VIEW_DEFINITIONS_TABLE,
    [...PRE_BASELINE_VIEWS].map(([name, checksum]) => ({ name, checksum })),
  );
  await ch.insert("schema_migrations", [
    { version: BASELINE_VERSION, name: "baseline", checksum: baselineChecksum },
  ]);
  return true;
}
