// The click writer's look-up of stored click ids (storedClicks in exactly-once-insert.ts) narrows its
// read by the clicks' link and time: a redelivered click must still be found among a busy link's many
// stored ones, in whichever part it sits, and only the clicks actually stored are found.
import { randomUUID } from "node:crypto";
import type { KurzClickHouse } from "@kurz/clickhouse";
import { openMigratedChdb } from "@kurz/testing/migrated-chdb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClickRow } from "../src/ingest/click-rows.ts";
import { minuteRanges, storedClicks, writeClicks } from "../src/ingest/exactly-once-insert.ts";
import { clickRows } from "./click-rows-fixture.ts";

let ch: KurzClickHouse;
beforeAll(async () => {
  ch = await openMigratedChdb();
});
afterAll(async () => {
  await ch?.close();
});

const THREE_HOURS = 3 * 3600_000;

/** `n` clicks of `link` at random times over the three hours before `now`. */
function spread(link: string, account: string, n: number, now: number): ClickRow[] {
  return clickRows(link, account, n).map((row) => ({
    ...row,
    ts: new Date(now - Math.floor(Math.random() * THREE_HOURS))
      .toISOString()
      .replace("T", " ")
      .replace("Z", ""),
  }));
}

describe("the look-up of stored clicks", () => {
  it("finds redelivered clicks among a busy link's many, merged or not, and nothing else", async () => {
    const now = Date.now();
    const link = randomUUID();
    const account = randomUUID();
    const other = randomUUID();
    const batches = [0, 1, 2, 3].map(() => spread(link, account, 15_000, now));
    // Another link's clicks at the same times: the look-up must not take them for this link's.
    batches.push(spread(other, account, 5_000, now));
    for (const batch of batches) expect((await writeClicks(ch, [batch])).inserted).toHaveLength(batch.length);
    // Parts whose times all span the same hours: none can be skipped by its times alone.
    const parts = await ch.query<{ n: number }>(
      "SELECT count() AS n FROM system.parts WHERE database = currentDatabase() AND table = 'clicks' AND active",
    );
    expect(Number(parts[0]!.n)).toBeGreaterThan(1);

    // Redelivered: clicks from every batch, the earliest and the latest of the first, among new ones.
    const byTime = [...batches[0]!].sort((a, b) => (a.ts < b.ts ? -1 : 1));
    const redelivered = [
      byTime[0]!,
      byTime.at(-1)!,
      batches[1]![7_000]!,
      batches[3]![14_999]!,
      batches[4]![0]!,
    ];
    const fresh = spread(link, account, 2_000, now);
    const found = await storedClicks(ch, [...fresh, ...redelivered]);
    expect(new Set(found.keys())).toEqual(new Set(redelivered.map((r) => r.click_id)));
    for (const tokens of found.values()) expect(tokens.size).toBe(1);

    // Alone, too: a redelivery of one click from hours ago.
    expect([...(await storedClicks(ch, [batches[2]![42]!])).keys()]).toEqual([batches[2]![42]!.click_id]);

    const written = await writeClicks(ch, [[...fresh, ...redelivered]]);
    expect(written.inserted).toHaveLength(fresh.length);
    expect(written.duplicates).toBe(redelivered.length);
    const [count] = await ch.query<{ n: number }>(
      "SELECT count() AS n FROM clicks WHERE link_id IN {links:Array(UUID)}",
      { links: [link, other] },
    );
    expect(Number(count?.n)).toBe(batches.flat().length + fresh.length);
  });

  it("finds clicks stored after a merge of the link's day", async () => {
    const now = Date.now();
    const link = randomUUID();
    const account = randomUUID();
    const rows = spread(link, account, 20_000, now);
    await writeClicks(ch, [rows.slice(0, 10_000)]);
    await writeClicks(ch, [rows.slice(10_000)]);
    await ch.command("OPTIMIZE TABLE clicks FINAL");
    const sample = [rows[3]!, rows[9_999]!, rows[10_000]!, rows[19_999]!];
    const found = await storedClicks(ch, [...sample, ...spread(link, account, 500, now)]);
    expect(new Set(found.keys())).toEqual(new Set(sample.map((r) => r.click_id)));
  });

  it("bounds the look-up by every click's time, in at most 16 ranges", () => {
    const now = Date.now();
    // Clicks of 40 minutes ten minutes apart, and a run of now's.
    const rows = clickRows(randomUUID(), randomUUID(), 400).map((row, i) => ({
      ...row,
      ts: new Date(now - (i % 40) * 600_000 - i).toISOString().replace("T", " ").replace("Z", ""),
    }));
    rows.push(...clickRows(randomUUID(), randomUUID(), 300));
    const ranges = minuteRanges(rows);
    expect(ranges.length).toBe(16);
    expect(ranges.length).toBeLessThanOrEqual(16);
    for (const row of rows) expect(ranges.some(([from, to]) => from <= row.ts && row.ts <= to)).toBe(true);
    // A batch of now's clicks and one straggler from hours before: two ranges, not the hours between.
    const straggler = {
      ...rows[0]!,
      ts: new Date(now - THREE_HOURS).toISOString().replace("T", " ").replace("Z", ""),
    };
    const recent = clickRows(randomUUID(), randomUUID(), 1_000);
    const two = minuteRanges([...recent, straggler]);
    expect(two.length).toBeLessThanOrEqual(3);
    const covered = two.reduce(
      (ms, [from, to]) =>
        ms + Date.parse(`${to.replace(" ", "T")}Z`) - Date.parse(`${from.replace(" ", "T")}Z`),
      0,
    );
    expect(covered).toBeLessThan(5 * 60_000);
  });
});
