// The analytics export's paging (exports/analytics-export.ts), in process against embedded ClickHouse:
// whatever the rows a query may read, the CSV is the same rows in the same order, and those rows are
// what plain code counts from the clicks themselves (per link and day with bots apart, or per link, day
// and referrer or destination of humans), for this account only, without its deleted link. A small budget really cuts
// the export into many queries, and one heavy link into ranges of days.
import { randomUUID } from "node:crypto";
import type { KurzClickHouse } from "@kurz/clickhouse";
import { openMigratedChdb } from "@kurz/testing/migrated-chdb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportAnalytics } from "../src/exports/analytics-export.ts";
import { type ClickRow, chTime } from "../src/ingest/click-rows.ts";
import { writeClicks } from "../src/ingest/exactly-once-insert.ts";
import { clickRow } from "./fixtures/click-row.ts";

const DAY = 86_400_000;
const account = randomUUID();
const other = randomUUID();
// One heavy link (every day, many referrers), four light ones, one deleted, one of another account.
const heavy = randomUUID();
const light = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
const deleted = randomUUID();
const foreign = randomUUID();
const codes = new Map<string, string>([heavy, ...light, deleted, foreign].map((id, i) => [id, `pg${i}`]));
const start = Math.floor(Date.now() / DAY) * DAY - 40 * DAY;
// Most clicks go to the default (stored with no breakdown row: its count is the rest of the day's).
const DESTINATIONS = ["default", "default", "default", "rule:1", "rule:12", "split:2", "ios", "expired"];
const click = (link: string, owner: string, ms: number, referrer: string | null, bot: boolean): ClickRow =>
  clickRow(link, owner, ms, {
    short_code: codes.get(link)!,
    referrer,
    is_bot: bot ? 1 : 0,
    destination: DESTINATIONS[Math.floor(ms / 1_000) % DESTINATIONS.length]!,
  });

const clicks: ClickRow[] = [];
for (let i = 0; i < 3_000; i++) {
  const ms = start + ((i * 7_919_993) % (40 * DAY));
  clicks.push(click(heavy, account, ms, i % 4 === 0 ? null : `https://r${i % 9}.example/`, i % 17 === 0));
}
light.forEach((link, n) => {
  for (let i = 0; i < 40 * (n + 1); i++) {
    clicks.push(
      click(
        link,
        account,
        start + ((i * 3_600_011 * (n + 3)) % (40 * DAY)),
        `https://l${i % 3}.example/`,
        i % 5 === 0,
      ),
    );
  }
});
for (let i = 0; i < 50; i++) clicks.push(click(deleted, account, start + i * DAY * 0.7, null, false));
for (let i = 0; i < 50; i++)
  clicks.push(click(foreign, other, start + i * DAY * 0.7, "https://x.example/", false));

/** The export's rows as plain code counts them from the clicks, as CSV lines in no particular order. */
function truth(dimension: "none" | "referrer" | "destination", from?: string, to?: string): string[] {
  const counts = new Map<string, [number, number]>();
  for (const c of clicks) {
    const day = c.ts.slice(0, 10);
    if (c.account_id !== account || c.link_id === deleted) continue;
    if ((from && day < from) || (to && day > to)) continue;
    if (dimension !== "none" && c.is_bot === 1) continue;
    const key =
      dimension === "none"
        ? `${c.link_id},${codes.get(c.link_id)},${day}`
        : dimension === "referrer"
          ? `${c.link_id},${codes.get(c.link_id)},${day},referrer,${c.referrer ?? ""},,`
          : `${c.link_id},${codes.get(c.link_id)},${day},destination,${c.destination},,`;
    const n = counts.get(key) ?? [0, 0];
    if (c.is_bot === 1) n[1] += 1;
    else n[0] += 1;
    counts.set(key, n);
  }
  return [...counts].map(([k, [h, b]]) => (dimension === "none" ? `${k},${h},${b}` : `${k}${h}`));
}

let ch: KurzClickHouse;
beforeAll(async () => {
  ch = await openMigratedChdb();
  const now = chTime(new Date().toISOString());
  await ch.insert(
    "links",
    [...codes].map(([link_id, short_code]) => ({
      link_id,
      account_id: link_id === foreign ? other : account,
      short_code,
      title: "t",
      original_url: "https://example.com/",
      is_active: 1,
      expires_at: null,
      analytics_public: 0,
      shares_all_fields: 1,
      analytics_shared_fields: [],
      deleted: link_id === deleted ? 1 : 0,
      version: 1,
      updated_at: now,
    })),
  );
  // Two writes, so the rollups hold unmerged parts whose rows the export must still add up.
  await writeClicks(ch, clicks.slice(0, 1_700));
  await writeClicks(ch, clicks.slice(1_700));
});
afterAll(async () => {
  await ch?.close();
});

/** The CSV's lines, and how many queries streamed them. */
async function run(query: Parameters<typeof exportAnalytics>[2], rowsPerQuery?: number) {
  let queries = 0;
  const counting: KurzClickHouse = {
    ...ch,
    query: (sql, params) => ch.query(sql, params),
    queryRows: (sql, params) => {
      queries++;
      return ch.queryRows(sql, params);
    },
  };
  let text = "";
  for await (const chunk of exportAnalytics(counting, account, query, { rowsPerQuery })) text += chunk;
  const [header, ...rows] = text.trimEnd().split("\r\n");
  return { header, rows, queries };
}

describe("the analytics export's pages", () => {
  for (const dimension of ["none", "referrer", "destination"] as const) {
    it(`gives the clicks' own counts, whatever the rows per query (${dimension})`, async () => {
      const whole = await run({ dimension });
      expect(whole.queries).toBe(1);
      expect([...whole.rows].sort()).toEqual(truth(dimension).sort());
      // A budget smaller than the heavy link's rows on a single day: one query per day of it at least.
      for (const rowsPerQuery of [1, 7, 60]) {
        const paged = await run({ dimension }, rowsPerQuery);
        expect(paged.header).toBe(whole.header);
        expect(paged.rows).toEqual(whole.rows);
        expect(paged.queries).toBeGreaterThan(rowsPerQuery === 1 ? 40 : 2);
      }
    });
  }

  it("keeps rows in link and day order across pages", async () => {
    const { rows } = await run({ dimension: "none" }, 5);
    const keys = rows.map((r) => r.split(","));
    const links = keys.map((k) => k[0]);
    // Each link's rows together, its days ascending.
    expect(new Set(links).size).toBe(links.filter((l, i) => l !== links[i - 1]).length);
    for (let i = 1; i < keys.length; i++) {
      if (keys[i]![0] === keys[i - 1]![0]) expect(keys[i]![2]! > keys[i - 1]![2]!).toBe(true);
    }
  });

  it("lists every destination, the default included, only where it has clicks", async () => {
    const { rows } = await run({ dimension: "destination" });
    const values = new Set(rows.map((r) => r.split(",")[4]));
    expect([...values].sort()).toEqual(["default", "expired", "ios", "rule:1", "rule:12", "split:2"]);
    expect(rows.every((r) => Number(r.split(",")[6]) > 0)).toBe(true);
  });

  it("pages one link within a period", async () => {
    const from = new Date(start + 10 * DAY).toISOString().slice(0, 10);
    const to = new Date(start + 20 * DAY).toISOString().slice(0, 10);
    const paged = await run({ dimension: "referrer", link_id: heavy, start: from, end: to }, 7);
    expect(paged.queries).toBeGreaterThan(2);
    expect([...paged.rows].sort()).toEqual(
      truth("referrer", from, to)
        .filter((r) => r.startsWith(heavy))
        .sort(),
    );
  });
});
