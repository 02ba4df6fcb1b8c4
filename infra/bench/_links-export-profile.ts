// The links export's memory at growing account sizes: `node --expose-gc --import tsx
// infra/bench/_links-export-profile.ts [sizes…]` (default 10000 50000 100000) migrates a scratch
// database, grows one account to each size in turn (links inserted in SQL, a realistic URL and title
// each) and streams exportLinks (management's exports/links-export.ts, the code behind
// GET /api/v1/exports/links and `./kurz export links`) as CSV and as JSON to a byte counter, printing
// per export: links, MB, seconds, the peak RSS, V8 heap and array buffers above the level after a
// forced GC (sampled every 20 ms), and every second the RSS above that level and the V8 heap right
// after a forced GC (what the export keeps alive, garbage aside). No stack: only this
// process and Postgres, so the figures are the export's own. Run under `flock /tmp/bench.lock`.
import { loadavg } from "node:os";
import { createPrisma, dropDatabase, migrateDatabase } from "@kurz/db";
import { exportLinks } from "../../services/management/src/exports/links-export.ts";
import { watchOwnMemory } from "./_rss.ts";

const MB = 1024 * 1024;
const sizes = (process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["10000", "50000", "100000"]).map(
  Number,
);
const url = `postgresql://postgres@127.0.0.1:5432/kurz_links_export_${process.pid}`;
const ACCOUNT = "00000000-0000-4000-8000-0000000000aa";

await migrateDatabase(url);
const prisma = createPrisma(url);
try {
  await prisma.$executeRaw`INSERT INTO accounts (id, email, link_limit, updated_at)
    VALUES (${ACCOUNT}::uuid, 'export@example.com', 1000000, now())`;
  let have = 0;
  for (const size of sizes) {
    await prisma.$executeRaw`INSERT INTO links (id, account_id, short_code, original_url, title, expires_at,
        analytics_public, analytics_shared_fields, clicks_count, created_at, updated_at)
      SELECT gen_random_uuid(), ${ACCOUNT}::uuid, 'x' || i,
        'https://example.com/articles/' || i || '/some-title-of-the-page?utm_source=newsletter&utm_medium=email',
        'An article title of a usual length, number ' || i,
        CASE WHEN i % 7 = 0 THEN now() + interval '30 days' END, i % 5 = 0,
        CASE WHEN i % 10 = 0 THEN '["referrers","countries"]'::jsonb END, i, now() - make_interval(secs => ${size} - i), now()
      FROM generate_series(${have + 1}::int, ${size}::int) AS i`;
    have = size;
    await prisma.$executeRawUnsafe("VACUUM ANALYZE links");
    for (const format of ["csv", "json"] as const) {
      const memory = watchOwnMemory(1_000);
      const start = performance.now();
      let bytes = 0;
      for await (const chunk of exportLinks(prisma, ACCOUNT, "https://kurz.test", format)) {
        bytes += Buffer.byteLength(chunk as string);
      }
      const m = memory.stop();
      console.log(
        JSON.stringify({
          links: size,
          format,
          mb: +(bytes / MB).toFixed(1),
          seconds: +((performance.now() - start) / 1000).toFixed(1),
          rssBeforeMb: m.rssBeforeMb,
          peakRssAboveMb: m.peakRssAboveMb,
          peakHeapAboveMb: m.peakHeapAboveMb,
          peakArrayBuffersAboveMb: m.peakArrayBuffersAboveMb,
          rssAboveEverySecondMb: m.rssAbove,
          liveHeapAboveEverySecondMb: m.liveHeapAbove,
          load: loadavg().map((l) => +l.toFixed(2)),
        }),
      );
    }
  }
} finally {
  await prisma.$disconnect();
  await dropDatabase(url);
}
