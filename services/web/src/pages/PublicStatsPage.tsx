// /stats/<code>: a link's public analytics, no sign-in. Only the sections its owner shares come back
// from the API; a private or unknown link is a 404 here as there.
import { V1_ROUTES } from "@kurz/contracts";
import { useMemo, useState } from "preact/hooks";
import { useQuery } from "../api/cache.ts";
import { ApiFailure, call } from "../api/client.ts";
import { AnalyticsPanels } from "../components/AnalyticsPanels.tsx";
import { RangePicker } from "../components/RangePicker.tsx";
import { type Range, rangeKey, rangeQuery } from "../ranges.ts";
import { Failed, Loading, useTitle } from "./common.tsx";
import { NotFoundPage } from "./NotFoundPage.tsx";

export function PublicStatsPage({ code }: { code: string }) {
  useTitle(`Statistics for /${code}`);
  const [range, setRange] = useState<Range>({ key: "30d" });
  const query = useMemo(() => rangeQuery(range), [rangeKey(range)]);
  const stats = useQuery(`public:${code}:${rangeKey(range)}`, () =>
    call(V1_ROUTES.getPublicAnalytics, { params: { short_code: code }, query }).then((r) => r.data),
  );
  if (stats.error instanceof ApiFailure && stats.error.status === 404)
    return <NotFoundPage what="statistics" />;
  return (
    <div class="public">
      <header class="topbar">
        <div class="topbar-inner">
          <span class="brand">
            <span class="logo" aria-hidden="true">
              k
            </span>
            Kurz
          </span>
        </div>
      </header>
      <main id="main" class="page">
        <div class="page-head">
          <h1>
            Statistics for <span class="code">/{code}</span>
          </h1>
          <div class="page-actions">
            <RangePicker value={range} onChange={setRange} />
          </div>
        </div>
        {stats.error !== undefined && <Failed error={stats.error} />}
        {stats.data ? <AnalyticsPanels data={stats.data} query={query} /> : !stats.error && <Loading />}
      </main>
    </div>
  );
}
