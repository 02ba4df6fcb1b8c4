// Where a "times of day" link request's time goes against the same days as dates, in one
// process: `node --import tsx infra/bench/_analytics-range-profile.ts <chdb path> <seed.json> [rounds]`
// on a chDB data directory seeded once with `CLICKHOUSE_PATH=<chdb path> node --import tsx
// infra/bench/_analytics-seed.ts --link-clicks 1000000 --account-clicks 2000 --account-links 2 >
// <seed.json>` (seeding is the slow part, so it is kept out of the runs). Times linkStats round robin
// for: last 7 days as dates; the same with times of day (daily and hourly series);
// its whole hours alone (no partial hour); a partial hour alone. The period ends 20 minutes
// into the hour before the last seeded click. Run it under `flock /tmp/bench.lock`.
import { readFileSync } from "node:fs";
import { createClickHouse } from "@kurz/clickhouse";
import { linkStats } from "../../services/analytics/src/queries/link-stats.ts";
import { type Period, periodOf } from "../../services/analytics/src/queries/period.ts";
import { printInterleaved, type Variant } from "./_interleaved.ts";

const [path, seedFile, roundsArg] = process.argv.slice(2);
if (!path || !seedFile)
  throw new Error("usage: _analytics-range-profile.ts <chdb path> <seed.json> [rounds]");
const { link } = JSON.parse(readFileSync(seedFile, "utf8"));
const rounds = Number(roundsArg ?? 60);
const H = 3_600_000;
const D = 86_400_000;
const ch = await createClickHouse({ path, database: "kurz" });
try {
  const [last] = await ch.query<{ m: string }>("SELECT toUnixTimestamp64Milli(max(ts)) AS m FROM clicks");
  const now = Number(last?.m) - 20 * 60_000;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const dates = periodOf({ start: day(now - 7 * D), end: day(now) })!;
  const times = periodOf({ start: new Date(now - 7 * D).toISOString(), end: new Date(now).toISOString() })!;
  const hoursOnly: Period = {
    from: new Date(Math.ceil((now - 7 * D) / H) * H),
    to: new Date(Math.floor(now / H) * H - 1),
  };
  const rawOnly: Period = { from: new Date(Math.floor(now / H) * H + 1000), to: new Date(now) };
  const variants: Variant[] = [
    ["SELECT 1", () => ch.query("SELECT 1")],
    ["last 7 days (dates)", () => linkStats(ch, link, dates)],
    ["last 7 days with times of day", () => linkStats(ch, link, times)],
    ["the same, hourly series", () => linkStats(ch, link, times, "hour")],
    ["its whole hours only (no raw)", () => linkStats(ch, link, hoursOnly)],
    ["a partial hour only", () => linkStats(ch, link, rawOnly)],
  ];
  await printInterleaved(variants, rounds);
} finally {
  await ch.close();
}
