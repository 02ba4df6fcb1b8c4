// GET /api/v1/analytics/:link_id (SPEC 2.5). Bots are excluded from every count.
import type { KurzClickHouse } from "@kurz/clickhouse";
import { AnalyticsQuery, type LinkAnalytics } from "@kurz/contracts";
import { ApiError } from "@kurz/service-kit";
import { Router } from "express";
import { z } from "zod";

const LinkId = z.uuid();

export function linkAnalyticsRouter(deps: { ch: KurzClickHouse }): Router {
  const router = Router();
  const { ch } = deps;

  router.get("/:link_id", async (req, res) => {
    const { accountId } = res.locals.identity as { accountId: string };
    const id = LinkId.safeParse(req.params.link_id);
    const query = AnalyticsQuery.parse(req.query);
    if (!id.success) throw new ApiError(404, "NOT_FOUND", "Link not found");

    const [link] = await ch.query<{ short_code: string }>(
      `SELECT short_code FROM links FINAL
       WHERE link_id = {id:UUID} AND account_id = {account:UUID} AND deleted = 0`,
      { id: id.data, account: accountId },
    );
    if (!link) throw new ApiError(404, "NOT_FOUND", "Link not found");

    const ranged = query.start !== undefined && query.end !== undefined;
    const params = {
      id: id.data,
      start: ranged ? new Date(query.start!).getTime() / 1000 : 0,
      end: ranged ? new Date(query.end!).getTime() / 1000 : 0,
    };
    // FINAL collapses redelivered duplicates that ClickHouse has not merged yet.
    const base = `FROM clicks FINAL WHERE link_id = {id:UUID} AND is_bot = 0${
      ranged ? " AND ts >= toDateTime64({start:Float64}, 3) AND ts <= toDateTime64({end:Float64}, 3)" : ""
    }`;
    const top = (select: string, group: string) =>
      ch.query<Record<string, unknown>>(
        `SELECT ${select}, count() AS count ${base} GROUP BY ${group} ORDER BY count DESC, ${group} LIMIT 10`,
        params,
      );

    const [[total], series, referrers, countries, cities, devices, browsers, os] = await Promise.all([
      ch.query<{ total: number }>(`SELECT count() AS total ${base}`, params),
      ch.query<{ date: string; count: number }>(
        `SELECT toString(toDate(ts)) AS date, count() AS count ${base} GROUP BY date ORDER BY date`,
        params,
      ),
      top("referrer", "referrer"),
      top("country", "country"),
      top("city, country", "city, country"),
      top("device_type", "device_type"),
      top("browser", "browser"),
      top("os", "os"),
    ]);
    const known = (field: string) => (rows: Record<string, unknown>[]) => rows.filter((r) => r[field] !== "");
    const data: LinkAnalytics = {
      link_id: id.data,
      short_code: link.short_code,
      total_clicks: Number(total?.total ?? 0),
      time_series: series.map((r) => ({ date: r.date, count: Number(r.count) })),
      referrers: referrers.map((r) => ({
        referrer: (r.referrer as string | null) ?? null,
        count: Number(r.count),
      })),
      countries: known("country")(countries).map((r) => ({
        country: r.country as string,
        count: Number(r.count),
      })),
      cities: known("city")(cities).map((r) => ({
        city: r.city as string,
        country: r.country as string,
        count: Number(r.count),
      })),
      devices: known("device_type")(devices).map((r) => ({
        device_type: r.device_type as LinkAnalytics["devices"][number]["device_type"],
        count: Number(r.count),
      })),
      browsers: known("browser")(browsers).map((r) => ({
        browser: r.browser as string,
        count: Number(r.count),
      })),
      os: known("os")(os).map((r) => ({ os: r.os as string, count: Number(r.count) })),
    };
    res.json({ success: true, data });
  });

  return router;
}
