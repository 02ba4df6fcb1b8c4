// The cost of a period with times of day against the same days as dates, for one link, in one
// process and one run (issue 18): `node --import tsx infra/bench/_analytics-range-ab.ts [clicks] [rounds]`.
// Seeds embedded ClickHouse like `./kurz bench analytics`, then times linkStats round robin for
// "last 7 days (dates)", "last 7 days with times of day" read with the daily split (days + hours + raw,
// as before linkUnit) and as shipped (hours + raw). Run it under `flock /tmp/bench.lock`.
import { createClickHouse, migrate } from "@kurz/clickhouse";
import { linkStats } from "../../services/analytics/src/queries/link-stats.ts";
import { periodOf } from "../../services/analytics/src/queries/period.ts";
import { seedAnalytics } from "./_analytics-seed.ts";

const clicks = Number(process.argv[2] ?? 1_000_000);
const rounds = Number(process.argv[3] ?? 100);
const ch = await createClickHouse({ path: ":memory:", database: "range_ab" });
try {
  await migrate(ch);
  const { link } = await seedAnalytics(ch, { linkClicks: clicks, accountClicks: 2_000, accountLinks: 2 });
  const now = Date.now();
  const dates = periodOf({
    start: new Date(now - 7 * 86_400_000).toISOString().slice(0, 10),
    end: new Date(now).toISOString().slice(0, 10),
  })!;
  const times = periodOf({
    start: new Date(now - 7 * 86_400_000).toISOString(),
    end: new Date(now).toISOString(),
  })!;
  const variants: [string, () => Promise<unknown>][] = [
    ["last 7 days (dates)", () => linkStats(ch, link, dates)],
    [
      "last 7 days with times of day, daily split (days + hours + raw)",
      () => linkStats(ch, link, times, "day", 0),
    ],
    ["last 7 days with times of day, as shipped (hours + raw)", () => linkStats(ch, link, times)],
  ];
  for (const [, run] of variants) for (let i = 0; i < 5; i++) await run();
  const samples = variants.map(() => [] as number[]);
  for (let i = 0; i < rounds; i++) {
    for (const [v, [, run]] of variants.entries()) {
      const t = performance.now();
      await run();
      samples[v]!.push(performance.now() - t);
    }
  }
  const pct = (sorted: number[], p: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  for (const [v, [name]] of variants.entries()) {
    const sorted = samples[v]!.sort((a, b) => a - b);
    console.log(`${name}: p50 ${pct(sorted, 50).toFixed(1)} ms, p99 ${pct(sorted, 99).toFixed(1)} ms`);
  }
} finally {
  await ch.close();
}
