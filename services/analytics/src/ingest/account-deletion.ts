// A deleted workspace's analytics (docs/workspaces.md, "Leaving for good"): on `account.deleted`
// every row of the workspace goes from every table. Its links' dimension rows are replaced by
// tombstones that name no workspace (NO_WORKSPACE, no code, title or destination), so a click still in
// flight for one of its links is dropped as a deleted link's is (exactly-once-insert.ts), not stored
// under an unknown link. Its campaigns become tombstones the same way, so a late membership event
// leaves nothing either. Idempotent: a redelivered event finds nothing left to delete.
import type { KurzClickHouse } from "@kurz/clickhouse";
import { NO_WORKSPACE } from "@kurz/contracts";
import { chTime } from "./click-rows.ts";
import { ROLLUP_TABLES } from "./rollup-repair.ts";

/** Tables that carry the workspace id on every row. */
const BY_ACCOUNT = ["clicks", "link_hourly", "link_daily", "campaign_members", "links"] as const;
/** Tables keyed by link alone (the rest of the rollups). */
const BY_LINK = ROLLUP_TABLES.filter((t) => !(BY_ACCOUNT as readonly string[]).includes(t));

export async function eraseAccountAnalytics(
  ch: KurzClickHouse,
  accountId: string,
  occurredAt: string,
  retry: <T>(what: string, fn: () => Promise<T>) => Promise<T>,
  campaignIds: readonly number[] = [],
): Promise<void> {
  const params = { account: accountId };
  // The workspace's campaigns, those named by the event and those the table knows, become tombstones
  // naming no workspace: a membership event still on its way (another partition) loses to them.
  const known = await retry("deleted workspace's campaigns", () =>
    ch.query<{ id: number }>(
      "SELECT DISTINCT campaign_id AS id FROM campaign_members WHERE account_id = {account:UUID}",
      params,
    ),
  );
  const campaigns = [...new Set([...campaignIds, ...known.map((r) => Number(r.id))])];
  if (campaigns.length > 0) {
    const version = Date.parse(occurredAt) + 1;
    await retry("deleted workspace's campaign tombstones", () =>
      ch.insert(
        "campaign_members",
        campaigns.map((campaign_id) => ({
          campaign_id,
          account_id: NO_WORKSPACE,
          link_ids: [],
          short_codes: [],
          deleted: 1,
          version,
        })),
      ),
    );
  }
  // The workspace's links: those the dimension knows, and any that only its clicks name (a click
  // stored before its link's event arrived).
  const found = await retry("deleted workspace's links", () =>
    ch.query<{ id: string }>(
      `SELECT DISTINCT toString(link_id) AS id FROM (
         SELECT link_id FROM links WHERE account_id = {account:UUID}
         UNION ALL SELECT link_id FROM clicks WHERE account_id = {account:UUID})`,
      params,
    ),
  );
  const ids = found.map((r) => r.id);
  if (ids.length > 0) {
    // Tombstones first: were the deletes below to fail half-way, late clicks are still refused.
    const version = Date.parse(occurredAt) + 1;
    const at = chTime(occurredAt);
    const tombstones = ids.map((link_id) => ({
      link_id,
      account_id: NO_WORKSPACE,
      short_code: "",
      title: "",
      original_url: "",
      is_active: 0,
      expires_at: null,
      analytics_public: 0,
      shares_all_fields: 1,
      analytics_shared_fields: [],
      deleted: 1,
      version,
      updated_at: at,
    }));
    await retry("deleted workspace's link tombstones", () => ch.insert("links", tombstones));
    for (const table of BY_LINK) {
      await retry(`delete workspace rows from ${table}`, () =>
        ch.command(`DELETE FROM ${table} WHERE link_id IN {ids:Array(UUID)}`, { ids }),
      );
    }
  }
  for (const table of BY_ACCOUNT) {
    await retry(`delete workspace rows from ${table}`, () =>
      ch.command(`DELETE FROM ${table} WHERE account_id = {account:UUID}`, params),
    );
  }
}

/**
 * Of `deleted` links, those a workspace's deletion has already tombstoned keep only the tombstone: on
 * Kafka a link's `link.deleted` and its workspace's `account.deleted` travel on different partitions,
 * so the link's may arrive second and would otherwise leave a row naming the workspace.
 */
export async function dropLateLinkRows(
  ch: KurzClickHouse,
  deleted: readonly string[],
  retry: <T>(what: string, fn: () => Promise<T>) => Promise<T>,
): Promise<void> {
  const params = { ids: deleted, none: NO_WORKSPACE };
  const erased = await retry("links of deleted workspaces", () =>
    ch.query<{ id: string }>(
      "SELECT DISTINCT toString(link_id) AS id FROM links WHERE link_id IN {ids:Array(UUID)} AND account_id = {none:UUID}",
      params,
    ),
  );
  if (erased.length === 0) return;
  await retry("late rows of deleted workspaces' links", () =>
    ch.command("DELETE FROM links WHERE link_id IN {ids:Array(UUID)} AND account_id != {none:UUID}", {
      ids: erased.map((r) => r.id),
      none: NO_WORKSPACE,
    }),
  );
}

/**
 * Of campaigns just written, those a workspace's deletion has already tombstoned keep only the
 * tombstone: their membership event arrived after the workspace's deletion (another partition).
 */
export async function dropLateCampaignRows(
  ch: KurzClickHouse,
  campaignIds: readonly number[],
  retry: <T>(what: string, fn: () => Promise<T>) => Promise<T>,
): Promise<void> {
  const params = { ids: campaignIds, none: NO_WORKSPACE };
  const erased = await retry("campaigns of deleted workspaces", () =>
    ch.query<{ id: number }>(
      "SELECT DISTINCT campaign_id AS id FROM campaign_members WHERE campaign_id IN {ids:Array(UInt32)} AND account_id = {none:UUID}",
      params,
    ),
  );
  if (erased.length === 0) return;
  await retry("late rows of deleted workspaces' campaigns", () =>
    ch.command(
      "DELETE FROM campaign_members WHERE campaign_id IN {ids:Array(UInt32)} AND account_id != {none:UUID}",
      { ids: erased.map((r) => Number(r.id)), none: NO_WORKSPACE },
    ),
  );
}
