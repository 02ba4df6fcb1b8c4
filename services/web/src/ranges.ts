// The date ranges every analytics view offers, as the analytics query wants them (analytics
// contracts): days for long ranges, hours (interval=hour) for ranges of at most HOURLY_MAX_DAYS.
import { type AnalyticsQuery, HOURLY_MAX_DAYS } from "@kurz/contracts";

export type RangeKey = "7d" | "30d" | "90d" | "all" | "custom";
export interface Range {
  key: RangeKey;
  /** YYYY-MM-DD, for "custom" */
  from?: string;
  to?: string;
}

export const RANGE_LABELS: Record<RangeKey, string> = {
  "7d": "7 days",
  "30d": "30 days",
  "90d": "90 days",
  all: "All time",
  custom: "Custom",
};

const DAY = 86_400_000;
export const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);

/** The analytics query of a range (all: no bounds, as the API reads it). */
export function rangeQuery(range: Range, now = Date.now()): AnalyticsQuery {
  switch (range.key) {
    case "7d":
      return {
        start: new Date(now - HOURLY_MAX_DAYS * DAY).toISOString(),
        end: new Date(now).toISOString(),
        interval: "hour",
      };
    case "30d":
    case "90d": {
      const days = range.key === "30d" ? 30 : 90;
      return { start: isoDay(now - (days - 1) * DAY), end: isoDay(now) };
    }
    case "custom": {
      if (!range.from || !range.to) return {};
      const span = Date.parse(range.to) + DAY - Date.parse(range.from);
      return span <= HOURLY_MAX_DAYS * DAY
        ? { start: `${range.from}T00:00:00.000Z`, end: `${range.to}T23:59:59.999Z`, interval: "hour" }
        : { start: range.from, end: range.to };
    }
    default:
      return {};
  }
}

export const rangeKey = (range: Range) => `${range.key}:${range.from ?? ""}:${range.to ?? ""}`;

type Point = { date: string; count: number } | { hour: string; count: number };

/**
 * The API lists only buckets with clicks; a chart needs every bucket of the range, zeros included.
 * Returns x in Unix seconds (uPlot's unit) and y counts.
 */
export function fillSeries(
  points: readonly Point[],
  query: AnalyticsQuery,
  now = Date.now(),
): [number[], number[]] {
  const hourly = query.interval === "hour";
  const step = hourly ? 3_600_000 : DAY;
  const at = (p: Point) => Date.parse("hour" in p ? p.hour : `${p.date}T00:00:00.000Z`);
  const floor = (t: number) => t - (t % step);
  const counts = new Map(points.map((p) => [at(p), p.count] as const));
  const known = [...counts.keys()];
  let start = query.start ? floor(Date.parse(query.start)) : Math.min(...known, floor(now) - 6 * DAY);
  const end = floor(query.end && Date.parse(query.end) < now ? Date.parse(query.end) : now);
  if (known.length && Math.min(...known) < start) start = Math.min(...known);
  const xs: number[] = [];
  const ys: number[] = [];
  for (let t = start, n = 0; t <= end && n < 5000; t += step, n++) {
    xs.push(t / 1000);
    ys.push(counts.get(t) ?? 0);
  }
  return [xs, ys];
}
