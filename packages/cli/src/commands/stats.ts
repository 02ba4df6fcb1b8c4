import { parseArgs } from "node:util";
import { CliError } from "../exit-codes.ts";
import { findLink } from "../find-link.ts";
import { type CommandContext, emit, sparkline, table } from "../output.ts";

const DAYS = 30;
const DAY_MS = 86_400_000;

/** The last `DAYS` UTC dates up to today's, oldest first (YYYY-MM-DD). */
export function lastDays(now: number, days = DAYS): string[] {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return Array.from({ length: days }, (_, i) =>
    new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  );
}

/** `stats CODE`: the last 30 days' clicks, a sparkline of them per day, and the top referrers. */
export async function stats(ctx: CommandContext, now: number = Date.now()): Promise<void> {
  const { positionals } = parseArgs({ args: ctx.args, allowPositionals: true, strict: true });
  const [code, ...rest] = positionals;
  if (!code || rest.length > 0) throw CliError.usage("usage: ./kurz stats CODE");
  const kurz = await ctx.client();
  const link = await findLink(kurz, code);
  const days = lastDays(now);
  const analytics = await kurz.v1.getLinkAnalytics({
    params: { link_id: link.id },
    query: { start: days[0], end: days[days.length - 1], interval: "day" },
  });
  const perDay = new Map<string, number>();
  for (const point of analytics.time_series) if ("date" in point) perDay.set(point.date, point.count);
  const daily = days.map((date) => ({ date, count: perDay.get(date) ?? 0 }));
  const referrers = analytics.referrers.map((r) => ({ referrer: r.referrer ?? "(direct)", count: r.count }));
  emit(
    ctx,
    {
      short_code: link.short_code,
      short_url: link.short_url,
      original_url: link.original_url,
      total_clicks: analytics.total_clicks,
      unique_visitors: analytics.unique_visitors ?? null,
      bot_clicks: analytics.bot_clicks ?? null,
      daily,
      referrers,
    },
    () =>
      [
        `${link.short_url} → ${link.original_url}`,
        `Clicks, last ${DAYS} days: ${analytics.total_clicks}` +
          (analytics.unique_visitors !== undefined
            ? `   unique visitors: ${analytics.unique_visitors}`
            : "") +
          (analytics.bot_clicks !== undefined ? `   bots: ${analytics.bot_clicks}` : ""),
        `${days[0]} ${sparkline(daily.map((d) => d.count))} ${days[days.length - 1]}`,
        referrers.length === 0
          ? "No referrers yet."
          : `Top referrers:\n${table(referrers.map((r) => [`  ${r.count}`, r.referrer]))}`,
      ].join("\n"),
  );
}
