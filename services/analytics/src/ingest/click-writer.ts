// Writes clicks to ClickHouse exactly once. The bus delivers at least once, and although `clicks`
// collapses a copy of a click, the materialized views that feed the rollups add up every insert.
// So before inserting, the writer drops clicks that are already stored (a redelivery after a crash
// or a rebalance, or a publisher retry), copies within the batch, and clicks of links known to be
// deleted (in flight when the link went; their code may already belong to a new link).
import type { KurzClickHouse } from "@kurz/clickhouse";
import type { ClickRow } from "./click-rows.ts";

// Click ids are bound as query parameters, which a server receives in the URL: keep each look-up
// well under its URL limit (1 MiB by default). Embedded chDB has no URL, so one look-up does.
const lookupChunk = (ch: KurzClickHouse) => (ch.kind === "chdb" ? 100_000 : 2_000);

export interface WriteResult {
  inserted: ClickRow[];
  duplicates: number;
  deletedLinks: number;
}

export async function writeClicks(ch: KurzClickHouse, batch: ClickRow[]): Promise<WriteResult> {
  const unique = new Map<string, ClickRow>();
  for (const row of batch) if (!unique.has(row.click_id)) unique.set(row.click_id, row);
  let rows = [...unique.values()];

  const deleted = await deletedLinkIds(ch, [...new Set(rows.map((r) => r.link_id))]);
  const beforeDeleted = rows.length;
  if (deleted.size > 0) rows = rows.filter((r) => !deleted.has(r.link_id));
  const deletedLinks = beforeDeleted - rows.length;

  const stored = await storedClickIds(ch, rows);
  const fresh = stored.size > 0 ? rows.filter((r) => !stored.has(r.click_id)) : rows;
  if (fresh.length > 0) await insertRows(ch, fresh);
  return { inserted: fresh, duplicates: batch.length - deletedLinks - fresh.length, deletedLinks };
}

const COLUMNS = [
  "click_id",
  "link_id",
  "account_id",
  "short_code",
  "ts",
  "referrer",
  "country",
  "city",
  "device_type",
  "browser",
  "os",
  "is_bot",
  "visitor_hash",
  "host",
] as const satisfies readonly (keyof ClickRow)[];

/**
 * Rows as arrays (JSONCompactEachRow) rather than objects: parsing drops by about a third without
 * the repeated keys, and parsing is most of an insert's cost.
 */
async function insertRows(ch: KurzClickHouse, rows: ClickRow[]): Promise<void> {
  await ch.raw.insert({
    table: "clicks",
    columns: [...COLUMNS],
    values: rows.map((r) => COLUMNS.map((c) => r[c])),
    format: "JSONCompactEachRow",
  });
}

async function deletedLinkIds(ch: KurzClickHouse, linkIds: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  const chunk = lookupChunk(ch);
  for (let i = 0; i < linkIds.length; i += chunk) {
    const rows = await ch.query<{ id: string }>(
      "SELECT toString(link_id) AS id FROM links FINAL WHERE link_id IN {ids:Array(UUID)} AND deleted = 1",
      { ids: linkIds.slice(i, i + chunk) },
    );
    for (const r of rows) out.add(r.id);
  }
  return out;
}

async function storedClickIds(ch: KurzClickHouse, rows: ClickRow[]): Promise<Set<string>> {
  const out = new Set<string>();
  // Sorted by link and time, each chunk touches few links and a narrow time range, which the
  // primary key (link_id, day) and the click_id min/max index turn into few granules.
  const sorted = [...rows].sort((a, b) =>
    a.link_id === b.link_id ? (a.click_id < b.click_id ? -1 : 1) : a.link_id < b.link_id ? -1 : 1,
  );
  const size = lookupChunk(ch);
  for (let i = 0; i < sorted.length; i += size) {
    const chunk = sorted.slice(i, i + size);
    const days = [...new Set(chunk.map((r) => r.ts.slice(0, 10)))];
    const found = await ch.query<{ id: string }>(
      `SELECT toString(click_id) AS id FROM clicks
       WHERE link_id IN {links:Array(UUID)} AND toDate(ts) IN {days:Array(Date)} AND click_id IN {ids:Array(UUID)}`,
      {
        links: [...new Set(chunk.map((r) => r.link_id))],
        days,
        ids: chunk.map((r) => r.click_id),
      },
    );
    for (const r of found) out.add(r.id);
  }
  return out;
}
