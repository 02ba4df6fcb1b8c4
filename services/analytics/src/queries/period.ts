// The period an analytics query covers, and how it splits between the daily rollups and raw clicks.
// A period given in days reads only rollups. A period with times of day reads its whole days from
// the rollups and the partial days at either end from raw clicks, so answers stay exact.
import type { AnalyticsQuery } from "@kurz/contracts";

const DAY_MS = 86_400_000;

/** Inclusive at both ends, millisecond precision. */
export interface Period {
  from: Date;
  to: Date;
}

export interface PeriodSplit {
  /** Whole UTC days read from the rollups, as YYYY-MM-DD (inclusive); null when there are none. */
  days: { from: string; to: string } | null;
  /** Partial days read from raw clicks, each inclusive at both ends. */
  edges: Period[];
}

const isDateOnly = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s);

/** SPEC 4.1: the filter applies only when both ends are given. A bare `end` date includes that day. */
export function periodOf(query: AnalyticsQuery): Period | null {
  if (query.start === undefined || query.end === undefined) return null;
  const from = new Date(isDateOnly(query.start) ? `${query.start}T00:00:00.000Z` : query.start);
  const to = isDateOnly(query.end)
    ? new Date(Date.parse(`${query.end}T00:00:00.000Z`) + DAY_MS - 1)
    : new Date(query.end);
  return { from, to };
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function splitPeriod(p: Period): PeriodSplit {
  const from = p.from.getTime();
  const to = p.to.getTime();
  // First midnight at or after `from`, and the midnight after the last whole day.
  const firstWhole = Math.ceil(from / DAY_MS) * DAY_MS;
  const afterLastWhole = Math.floor((to + 1) / DAY_MS) * DAY_MS;
  if (afterLastWhole <= firstWhole) return { days: null, edges: to >= from ? [p] : [] };
  const edges: Period[] = [];
  if (from < firstWhole) edges.push({ from: p.from, to: new Date(firstWhole - 1) });
  if (afterLastWhole <= to) edges.push({ from: new Date(afterLastWhole), to: p.to });
  return { days: { from: day(firstWhole), to: day(afterLastWhole - DAY_MS) }, edges };
}

/**
 * SQL fragments and parameters for a split period: `daysFilter` for a rollup's `day` column, and
 * `edgesFilter` for raw clicks' `ts` (null when no raw read is needed).
 */
export function periodSql(period: Period | null): {
  daysFilter: string;
  edgesFilter: string | null;
  rollups: boolean;
  params: Record<string, unknown>;
} {
  if (!period) return { daysFilter: "", edgesFilter: null, rollups: true, params: {} };
  const split = splitPeriod(period);
  const params: Record<string, unknown> = {};
  const daysFilter = split.days ? " AND day >= {day_from:Date} AND day <= {day_to:Date}" : "";
  if (split.days) {
    params.day_from = split.days.from;
    params.day_to = split.days.to;
  }
  const edges = split.edges.map((e, i) => {
    params[`edge${i}_from`] = e.from;
    params[`edge${i}_to`] = e.to;
    params[`edge${i}_day_from`] = day(e.from.getTime());
    params[`edge${i}_day_to`] = day(e.to.getTime());
    // The day bounds match the sorting key (link_id, toDate(ts)): with FINAL, a condition on ts
    // alone would still read every part of the link.
    return (
      `(toDate(ts) >= {edge${i}_day_from:Date} AND toDate(ts) <= {edge${i}_day_to:Date}` +
      ` AND ts >= {edge${i}_from:DateTime64(3, 'UTC')} AND ts <= {edge${i}_to:DateTime64(3, 'UTC')})`
    );
  });
  return {
    daysFilter,
    edgesFilter: edges.length > 0 ? ` AND (${edges.join(" OR ")})` : null,
    rollups: split.days !== null,
    params,
  };
}
