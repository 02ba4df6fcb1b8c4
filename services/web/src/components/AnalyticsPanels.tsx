// One link's analytics sections, shared by the link page and the public stats page. Each section
// renders only when its data is present: the public answer carries only the shared sections, and
// never destinations.
import type { AnalyticsQuery, LinkAnalytics, PublicLinkAnalytics } from "@kurz/contracts";
import { useMemo } from "preact/hooks";
import { fillSeries } from "../ranges.ts";
import { BarList } from "./BarList.tsx";
import { TimeChart } from "./TimeChart.tsx";

type Data = Omit<PublicLinkAnalytics, "shared_fields"> & {
  bot_clicks?: number;
  destinations?: LinkAnalytics["destinations"];
};

const regionNames = (() => {
  try {
    return new Intl.DisplayNames(undefined, { type: "region" });
  } catch {
    return null;
  }
})();
const country = (code: string) => (code === "ZZ" ? "Unknown" : (regionNames?.of(code) ?? code));
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** What sent a click (contracts Destination), as the link's editor names it. */
function destinationLabel(destination: string): string {
  const [kind, n] = destination.split(":");
  switch (kind) {
    case "rule":
      return `Rule ${n}`;
    case "split":
      return `Split arm ${n}`;
    case "ios":
      return "iOS app";
    case "android":
      return "Android app";
    case "expired":
      return "Expired fallback";
    case "broken":
      return "Broken-link fallback";
    case "default":
      return "Default URL";
    default:
      return destination;
  }
}

export function AnalyticsPanels({ data, query }: { data: Data; query: AnalyticsQuery }) {
  const series = useMemo(
    () => (data.time_series ? fillSeries(data.time_series, query) : null),
    [data, query],
  );
  const numbers = [
    data.total_clicks !== undefined && { label: "Clicks", value: data.total_clicks, id: "clicks" },
    data.unique_visitors !== undefined && {
      label: "Unique visitors",
      value: data.unique_visitors,
      id: "visitors",
    },
    data.bot_clicks !== undefined && {
      label: "Bot clicks (not counted)",
      value: data.bot_clicks,
      id: "bots",
    },
  ].filter((n) => n !== false);
  // Only a link whose rules, split or fallbacks sent some clicks elsewhere has anything to compare.
  const destinations = data.destinations?.some((d) => d.destination !== "default") ? data.destinations : null;
  return (
    <div class="analytics">
      {numbers.length > 0 && (
        <div class="stats">
          {numbers.map((n) => (
            <div class="card stat" key={n.id}>
              <div class="stat-label">{n.label}</div>
              <div class="stat-value" data-testid={`stat-${n.id}`}>
                {n.value.toLocaleString()}
              </div>
            </div>
          ))}
        </div>
      )}
      {series && (
        <section class="card" data-section="overview">
          <h2 class="card-title">Clicks over time</h2>
          <TimeChart
            xs={series[0]}
            ys={series[1]}
            hourly={query.interval === "hour"}
            label="Clicks over time"
          />
        </section>
      )}
      <div class="grid-2">
        {data.referrers && (
          <div data-section="referrers">
            <BarList
              title="Referrers"
              rows={data.referrers.map((r) => ({ label: r.referrer ?? "Direct", count: r.count }))}
            />
          </div>
        )}
        {data.countries && (
          <div data-section="locations">
            <BarList
              title="Countries"
              rows={data.countries.map((c) => ({ label: country(c.country), count: c.count }))}
            />
          </div>
        )}
        {data.cities && (
          <div data-section="locations">
            <BarList
              title="Cities"
              rows={data.cities.map((c) => ({ label: `${c.city}, ${country(c.country)}`, count: c.count }))}
            />
          </div>
        )}
        {data.devices && (
          <div data-section="devices">
            <BarList
              title="Devices"
              rows={data.devices.map((d) => ({ label: cap(d.device_type), count: d.count }))}
            />
          </div>
        )}
        {data.os && (
          <div data-section="devices">
            <BarList title="Operating systems" rows={data.os.map((o) => ({ label: o.os, count: o.count }))} />
          </div>
        )}
        {data.browsers && (
          <div data-section="browsers">
            <BarList
              title="Browsers"
              rows={data.browsers.map((b) => ({ label: b.browser, count: b.count }))}
            />
          </div>
        )}
        {destinations && (
          <div data-section="destinations">
            <BarList
              title="Destinations"
              rows={destinations.map((d) => ({ label: destinationLabel(d.destination), count: d.count }))}
            />
          </div>
        )}
      </div>
    </div>
  );
}
