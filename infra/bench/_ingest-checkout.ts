// The click consumer's parts loaded from the checkout at `root` (a path), not from this one: the ingest
// benches A/B two checkouts by running one script against each.
export async function ingestOf(root: string) {
  const { createClickHouse, migrate } = await import(`${root}/packages/clickhouse/src/index.ts`);
  const { decodeClickBatch, encodeClickBatch } = await import(`${root}/packages/contracts/src/index.ts`);
  const { loadAnalyticsConfig } = await import(`${root}/services/analytics/src/config.ts`);
  const { GeoIp } = await import(`${root}/services/analytics/src/enrich/geoip.ts`);
  const { VisitorHasher } = await import(`${root}/services/analytics/src/enrich/visitor-hash.ts`);
  const { toClickRow } = await import(`${root}/services/analytics/src/ingest/click-rows.ts`);
  const insert = await import(`${root}/services/analytics/src/ingest/exactly-once-insert.ts`);
  const { syntheticClick, syntheticLinks } = await import(`${root}/infra/bench/_synthetic-clicks.ts`);
  return {
    createClickHouse,
    migrate,
    decodeClickBatch,
    encodeClickBatch,
    loadAnalyticsConfig,
    GeoIp,
    VisitorHasher,
    toClickRow,
    insert,
    syntheticClick,
    syntheticLinks,
  };
}
