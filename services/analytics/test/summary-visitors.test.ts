// The account summary's unique visitors, in process against embedded ClickHouse, checked against the
// same number computed in plain code from the clicks: per UTC day the distinct visitors across all of
// the account's links, days added up, bots and other accounts left out, deleted links left out, for
// whole days, partial days and partial hours alike (the three sources period.ts splits a period into).
import { randomUUID } from "node:crypto";
import type { KurzClickHouse } from "@kurz/clickhouse";
import { openMigratedChdb } from "@kurz/testing/migrated-chdb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClickRow } from "../src/ingest/click-rows.ts";
import { writeClicks } from "../src/ingest/exactly-once-insert.ts";
import { type Period, periodOf } from "../src/queries/period.ts";
import { accountSummary } from "../src/queries/summary.ts";
import { accountUniqueVisitors } from "../src/queries/summary-visitors.ts";
import { clickRow } from "./fixtures/click-row.ts";

const HOUR = 3_600_000;
const account = randomUUID();
const links = [randomUUID(), randomUUID(), randomUUID()];
const otherAccount = randomUUID();
const otherLink = randomUUID();
const base = Math.floor(Date.now() / HOUR) * HOUR - 72 * HOUR;

const click = (link: string, owner: string, ms: number, visitor: number, bot = false): ClickRow =>
  clickRow(link, owner, ms, { is_bot: bot ? 1 : 0, visitor_hash: String(visitor) });

// Few visitors over many clicks and three links, so the same visitor comes back to another link
// within an hour, a day and on later days; bots and another account share those visitor hashes.
const clicks: ClickRow[] = [];
for (let i = 0; i < 2_000; i++) {
  const ms = base + ((i * 7_919_993) % (72 * HOUR)) + (i % 1_000);
  clicks.push(click(links[i % links.length]!, account, ms, 500 + (i % 23), i % 13 === 0));
}
// Visitors seen only by bots, and visitors of another account: never counted here.
for (let i = 0; i < 50; i++) clicks.push(click(links[0]!, account, base + i * HOUR, 9_000 + i, true));
for (let i = 0; i < 300; i++) clicks.push(click(otherLink, otherAccount, base + i * 60_000, 7_000 + i));

/** The truth, from the rows above. */
function visitors(period: Period | null, without: readonly string[] = []): number {
  const perDay = new Map<string, Set<string>>();
  for (const c of clicks) {
    const ms = Date.parse(`${c.ts.replace(" ", "T")}Z`);
    if (c.account_id !== account || c.is_bot === 1 || without.includes(c.link_id)) continue;
    if (period && (ms < period.from.getTime() || ms > period.to.getTime())) continue;
    const day = c.ts.slice(0, 10);
    perDay.set(day, (perDay.get(day) ?? new Set()).add(c.visitor_hash));
  }
  return [...perDay.values()].reduce((n, s) => n + s.size, 0);
}

let ch: KurzClickHouse;
beforeAll(async () => {
  ch = await openMigratedChdb();
  await writeClicks(ch, clicks);
  // A redelivered batch must not add visitors.
  await writeClicks(ch, clicks.slice(0, 100));
});
afterAll(async () => {
  await ch?.close();
});

const at = (h: number, ms = 0) => new Date(base + h * HOUR + ms).toISOString();

describe("the account summary's unique visitors", () => {
  const periods: [string, Period | null][] = [
    ["all time", null],
    ["whole days", periodOf({ start: at(0).slice(0, 10), end: at(48).slice(0, 10) })],
    ["partial days and hours at both ends", periodOf({ start: at(5, 1_234_567), end: at(60, 2_345_678) })],
    ["whole hours only", periodOf({ start: at(5), end: at(30, -1) })],
    ["within one hour", periodOf({ start: at(10, 60_000), end: at(10, 2_400_000) })],
    ["a period before any click", periodOf({ start: at(-100).slice(0, 10), end: at(-80).slice(0, 10) })],
  ];

  for (const [name, period] of periods) {
    it(`counts distinct visitors per day across the account's links: ${name}`, async () => {
      const truth = visitors(period);
      expect(await accountUniqueVisitors(ch, account, period, [])).toBe(truth);
      // Distinct across links, not the links' own counts added up (the same visitor opens several).
      if (truth > 0) {
        const perLink = links.reduce(
          (n, l) =>
            n +
            visitors(
              period,
              links.filter((x) => x !== l),
            ),
          0,
        );
        expect(perLink).toBeGreaterThan(truth);
      }
    });
  }

  it("leaves out the links management reports deleted", async () => {
    const period = periodOf({ start: at(5, 1_234_567), end: at(60, 2_345_678) });
    const without = [links[1]!];
    expect(await accountUniqueVisitors(ch, account, period, without)).toBe(visitors(period, without));
    expect(await accountUniqueVisitors(ch, account, null, links)).toBe(0);
  });

  it("is what accountSummary answers, for the account asked about only", async () => {
    const directory = {
      linksSummary: async () => ({
        total_links: 3,
        active_links: 3,
        links: [],
        deleted_link_ids: [links[2]!],
        deleted_truncated: false,
      }),
    };
    const period = periodOf({ start: at(20, 999), end: at(28, 7) });
    const summary = await accountSummary({ ch, links: directory }, account, period);
    expect(summary.unique_visitors).toBe(visitors(period, [links[2]!]));
    const other = await accountSummary({ ch, links: directory }, otherAccount, null);
    expect(other.unique_visitors).toBe(300);
  });
});
