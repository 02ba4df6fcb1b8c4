// Overview: the account's totals, clicks over time in the chosen range, and its top links.
import { V1_ROUTES } from "@kurz/contracts";
import { useMemo, useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { useQuery } from "../api/cache.ts";
import { call } from "../api/client.ts";
import { BarList } from "../components/BarList.tsx";
import { RangePicker } from "../components/RangePicker.tsx";
import { TimeChart } from "../components/TimeChart.tsx";
import { fillSeries, type Range, rangeKey, rangeQuery } from "../ranges.ts";
import { Failed, Loading, PageHead, Stat } from "./common.tsx";

export function OverviewPage() {
  const [range, setRange] = useState<Range>({ key: "30d" });
  const query = useMemo(() => rangeQuery(range), [rangeKey(range)]);
  const summary = useQuery(`summary:${rangeKey(range)}`, () =>
    call(V1_ROUTES.getAnalyticsSummary, { query }).then((r) => r.data),
  );
  const s = summary.data;
  // The workspace's broken links (docs/health.md): the list's filtered total, one row asked for.
  const broken = useQuery("links:broken-count", () =>
    call(V1_ROUTES.listLinks, { query: { health: "broken", per_page: "1" } }).then((r) => r.meta.total),
  );
  const series = useMemo(() => (s ? fillSeries(s.clicks_over_time, query) : null), [s, query]);
  return (
    <>
      <PageHead title="Overview">
        <RangePicker value={range} onChange={setRange} />
      </PageHead>
      {summary.error !== undefined && <Failed error={summary.error} />}
      <div class="stats">
        <Stat label="Total links" value={s?.total_links} testid="total-links" />
        <Stat label="Active links" value={s?.active_links} />
        <Stat label="Broken links" value={broken.data} testid="broken-links" />
        {/* The summary's total clicks are all-time; its visitors and chart follow the range. */}
        <Stat label="Total clicks" value={s?.total_clicks} testid="total-clicks" />
        <Stat
          label="Unique visitors in range"
          value={s ? (s.unique_visitors ?? 0) : undefined}
          testid="unique-visitors"
        />
      </div>
      <section class="card">
        <h2 class="card-title">Clicks over time</h2>
        {series ? (
          <TimeChart
            xs={series[0]}
            ys={series[1]}
            hourly={query.interval === "hour"}
            label="Clicks over time"
          />
        ) : (
          <Loading />
        )}
      </section>
      <section class="card">
        <h2 class="card-title">Top links</h2>
        {!s ? (
          <Loading />
        ) : s.top_links.length === 0 ? (
          <p class="muted">
            No clicks yet. <Link href="/dashboard/links">Create a link</Link> and share it.
          </p>
        ) : (
          <BarList
            title="Top links by clicks"
            rows={s.top_links.map((l) => ({
              label: l.title ? `${l.title} (/${l.short_code})` : `/${l.short_code}`,
              count: l.clicks_count,
            }))}
          />
        )}
      </section>
    </>
  );
}
