// What one click batch holds in V8's heap, stage by stage: `node --expose-gc --import tsx
// infra/bench/_click-batch-heap.ts [clicks]` builds `clicks` (default 20,000, the most a batch holds)
// of the synthetic traffic as v2 messages of 200, then keeps each stage the consumer goes through and
// prints the heap each adds once collected: the messages as the bus hands them over (JSON.parse), the
// decoded events, the enriched rows, and the TabSeparated bytes of the insert (outside the heap).
// The figures behind HEAP_BYTES_PER_CLICK (services/analytics/src/ingest/click-batch-bound.ts).
import { decodeClickBatch, encodeClickBatch } from "@kurz/contracts";
import { loadAnalyticsConfig } from "../../services/analytics/src/config.ts";
import { GeoIp } from "../../services/analytics/src/enrich/geoip.ts";
import { VisitorHasher } from "../../services/analytics/src/enrich/visitor-hash.ts";
import { toClickRow } from "../../services/analytics/src/ingest/click-rows.ts";
import { tabSeparatedBytes } from "../../services/analytics/src/ingest/exactly-once-insert.ts";
import { syntheticClick, syntheticLinks } from "./_synthetic-clicks.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");
const total = Number(process.argv[2] ?? 20_000);
const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const links = syntheticLinks().slice(0, 300);
const geo = new GeoIp(loadAnalyticsConfig({}).GEOIP_DB_PATH);
await geo.open();
const visitors = new VisitorHasher("heap");
// Warm: the parsers' and the GeoIP reader's own state is the service's at rest, not the batch's.
for (let i = 0; i < 2_000; i++) toClickRow(syntheticClick(links, i), { geo, visitors });
const wire: string[] = [];
for (let i = 0; i < total; i += 200) {
  const clicks = [];
  for (let j = 0; j < 200 && i + j < total; j++) clicks.push(syntheticClick(links, i + j));
  wire.push(JSON.stringify(encodeClickBatch(clicks)));
}
const stages: Record<string, { mb: number; bytesPerClick: number }> = {};
let before = heapUsed();
const stage = (name: string) => {
  const now = heapUsed();
  stages[name] = {
    mb: +((now - before) / 2 ** 20).toFixed(1),
    bytesPerClick: Math.round((now - before) / total),
  };
  before = now;
};
const parsed = wire.map((s) => JSON.parse(s) as unknown);
stage("messages (JSON.parse)");
const events = parsed.flatMap((p) => decodeClickBatch(p) ?? []);
stage("events (decodeClickBatch)");
const rows = events.map((e) => toClickRow(e, { geo, visitors }));
stage("rows (toClickRow)");
const bytes = tabSeparatedBytes(rows, "clicks:token");
stage("insert body (tabSeparatedBytes)");
console.log(
  JSON.stringify({
    clicks: total,
    wireMb: +(wire.reduce((n, s) => n + s.length, 0) / 2 ** 20).toFixed(1),
    stages,
    bodyMbOutsideHeap: +(bytes.length / 2 ** 20).toFixed(1),
    heldAll: [parsed, events, rows].every((x) => x.length > 0),
  }),
);
