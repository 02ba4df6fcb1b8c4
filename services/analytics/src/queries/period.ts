// The period an analytics query covers, and how it splits between the rollups and raw clicks.
// Whole UTC days are read from the daily rollups, whole hours of the partial days at either end from
// the hourly rollups, and only the partial hours at the very ends (a period given to the millisecond)
// from raw clicks, so answers stay exact while the raw read stays at most two hours of one link.
import type { AnalyticsQuery } from "@kurz/contracts";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Inclusive at both ends, millisecond precision. */
export interface Period {
  from: Date;
  to: Date;
}

/** Half-open [from, to) in epoch milliseconds. */
export interface Span {
  from: number;
  to: number;
}

export interface PeriodSplit {
  /** Whole UTC days, read from the daily rollups. */
  days: Span | null;
  /** Whole hours, read from the hourly rollups. */
  hours: Span[];
  /** Less than an hour each, within one hour, read from raw clicks. */
  raw: Span[];
}

const isDateOnly = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s);

/** The filter applies only when both ends are given. A bare `end` date includes that day. */
export function periodOf(query: Pick<AnalyticsQuery, "start" | "end">): Period | null {
  if (query.start === undefined || query.end === undefined) return null;
  const from = new Date(isDateOnly(query.start) ? `${query.start}T00:00:00.000Z` : query.start);
  const to = isDateOnly(query.end)
    ? new Date(Date.parse(`${query.end}T00:00:00.000Z`) + DAY_MS - 1)
    : new Date(query.end);
  return { from, to };
}

/** Whole `unit`s inside [from, to), and what is left at either end. */
function cut(span: Span, unit: number): { whole: Span | null; rest: Span[] } {
  const first = Math.ceil(span.from / unit) * unit;
  const afterLast = Math.floor(span.to / unit) * unit;
  if (afterLast <= first) return { whole: null, rest: span.to > span.from ? [span] : [] };
  const rest: Span[] = [];
  if (span.from < first) rest.push({ from: span.from, to: first });
  if (afterLast < span.to) rest.push({ from: afterLast, to: span.to });
  return { whole: { from: first, to: afterLast }, rest };
}

/**
 * `unit: "day"` uses whole days where it can (breakdowns, daily series); `unit: "hour"` never does,
 * for hourly series, which need every hour on its own row.
 */
export function splitPeriod(p: Period, unit: "day" | "hour" = "day"): PeriodSplit {
  const span = { from: p.from.getTime(), to: p.to.getTime() + 1 };
  const byDay = unit === "day" ? cut(span, DAY_MS) : { whole: null, rest: span.to > span.from ? [span] : [] };
  const hours: Span[] = [];
  const raw: Span[] = [];
  for (const rest of byDay.rest) {
    const byHour = cut(rest, HOUR_MS);
    if (byHour.whole) hours.push(byHour.whole);
    raw.push(...byHour.rest);
  }
  return { days: byDay.whole, hours, raw };
}

const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dateTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");

export interface PeriodSql {
  /** For a daily rollup's `day` column; null when the period has no whole day. */
  days: string | null;
  /** For an hourly rollup's `hour` column; null when the period has no whole hour outside its days. */
  hours: string | null;
  /** For raw clicks' `ts`; null when the period has no partial hour. */
  raw: string | null;
  /** For an hourly rollup's `hour` column: the hours that hold the raw spans (to narrow a raw read). */
  rawHours: string | null;
  params: Record<string, unknown>;
}

/**
 * Raw clicks' condition for a partial-hour span, its parameters named `<key>_day/_from/_to`. The day
 * matches the sorting key (link_id, toDate(ts)); a condition on ts alone would not prune.
 */
function rawSpan(span: Span, key: string, params: Record<string, unknown>): string {
  params[`${key}_day`] = date(span.from);
  params[`${key}_from`] = new Date(span.from);
  params[`${key}_to`] = new Date(span.to);
  return `(toDate(ts) = {${key}_day:Date} AND ts >= {${key}_from:DateTime64(3, 'UTC')} AND ts < {${key}_to:DateTime64(3, 'UTC')})`;
}

/** SQL conditions (each starting with " AND ") and their parameters, for a split period. */
export function periodSql(period: Period | null, unit: "day" | "hour" = "day"): PeriodSql {
  if (!period) return { days: "", hours: null, raw: null, rawHours: null, params: {} };
  const split = splitPeriod(period, unit);
  // Parameter names carry the unit, so both splits of one period can share one query's parameters.
  const u = unit === "day" ? "d" : "h";
  const params: Record<string, unknown> = {};
  let days: string | null = null;
  if (split.days) {
    params[`${u}_day_from`] = date(split.days.from);
    params[`${u}_day_to`] = date(split.days.to - DAY_MS);
    days = ` AND day >= {${u}_day_from:Date} AND day <= {${u}_day_to:Date}`;
  }
  const hours = split.hours.map((h, i) => {
    params[`${u}_hour${i}_from`] = dateTime(h.from);
    params[`${u}_hour${i}_to`] = dateTime(h.to);
    return `(hour >= {${u}_hour${i}_from:DateTime('UTC')} AND hour < {${u}_hour${i}_to:DateTime('UTC')})`;
  });
  const raw = split.raw.map((r, i) => {
    params[`${u}_raw${i}_hour`] = dateTime(Math.floor(r.from / HOUR_MS) * HOUR_MS);
    return rawSpan(r, `${u}_raw${i}`, params);
  });
  const any = (parts: string[]) => (parts.length > 0 ? ` AND (${parts.join(" OR ")})` : null);
  return {
    days,
    hours: any(hours),
    raw: any(raw),
    rawHours: any(split.raw.map((_, i) => `hour = {${u}_raw${i}_hour:DateTime('UTC')}`)),
    params,
  };
}

/**
 * How long `link_stats` is read click by click (its TTL keeps click rows 35 days);
 * an older partial hour is read from raw clicks.
 */
export const CLICK_ROWS_DAYS = 30;

export interface LevelRanges {
  /** An OR of (level, t) ranges of `link_stats`, in parentheses; never empty. */
  where: string;
  /** Partial hours older than the click rows, as an OR of conditions on raw `clicks`; else null. */
  clicksWhere: string | null;
  params: Record<string, unknown>;
}

/**
 * The key ranges of `link_stats` that hold a split period: its whole days at the day level, the
 * whole hours of its partial days at the hour level, its partial hours click by click. `name`
 * prefixes the parameters, so two splits of one period can share a query.
 */
export function levelRanges(
  period: Period,
  unit: "day" | "hour",
  name: string,
  clickRowsFrom = Date.now() - CLICK_ROWS_DAYS * DAY_MS,
): LevelRanges {
  const split = splitPeriod(period, unit);
  const params: Record<string, unknown> = {};
  const level = (l: string, span: Span, i: number) => {
    const key = `${name}_${l}${i}`;
    params[`${key}_from`] = new Date(span.from);
    params[`${key}_to`] = new Date(span.to);
    return `(level = '${l}' AND t >= {${key}_from:DateTime64(3, 'UTC')} AND t < {${key}_to:DateTime64(3, 'UTC')})`;
  };
  const recent = split.raw.filter((r) => r.from >= clickRowsFrom);
  const old = split.raw.filter((r) => r.from < clickRowsFrom);
  const parts = [
    ...(split.days ? [level("day", split.days, 0)] : []),
    ...split.hours.map((h, i) => level("hour", h, i)),
    ...recent.map((r, i) => level("click", r, i)),
  ];
  const clicks = old.map((r, i) => rawSpan(r, `${name}_old${i}`, params));
  return {
    // An empty period (end before start) matches nothing.
    where: parts.length > 0 ? `(${parts.join(" OR ")})` : "0",
    clicksWhere: clicks.length > 0 ? `(${clicks.join(" OR ")})` : null,
    params,
  };
}

/**
 * Raw clicks of a period's partial hours, one row per click: without FINAL (which costs far more
 * than the rows it reads), a copy the table has not merged away yet is dropped here by click id.
 */
export const rawClicks = (columns: string, where: string) =>
  `SELECT click_id, ${columns} FROM clicks WHERE ${where} LIMIT 1 BY click_id`;
