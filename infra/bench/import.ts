// `./kurz bench import`: bulk import and streamed exports (issue 16, docs/import-export.md).
//   - import: a CSV of --rows rows (default 100,000; half with an alias, half with a title, none with a
//     password) uploaded through the gateway of an in-process stack (POST /api/v1/imports), run by
//     management's worker; seconds from the upload to `completed` (target < 60 s), rows/s;
//   - links export: GET /api/v1/exports/links as CSV and JSON of those links, through the gateway;
//     seconds, bytes, and this process's peak RSS above its level before the export;
//   - analytics export: --clicks clicks (default 10,000,000) seeded in embedded ClickHouse over 2,000
//     links, exported per link and day, and per link, day and referrer (exportAnalytics read to the
//     end); seconds, rows, and peak RSS above the level before it.
// `--rows 0`/`--clicks 0` skip a part. Constant memory shows as a peak RSS that does not grow with the size exported (compare --rows or
// --clicks at two sizes). Run under `flock /tmp/bench.lock` on a shared machine.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { createClickHouse, migrate } from "@kurz/clickhouse";
import { startStack } from "@kurz/testing/stack";
import { exportAnalytics } from "../../services/analytics/src/exports/analytics-export.ts";
import { seedAnalytics } from "./_analytics-seed.ts";
import { rssOf } from "./_rss.ts";

export const description =
  "import 100k CSV rows through the API (target < 60 s); links export and 10M-click analytics export in constant memory";

const MB = 1024 * 1024;
const int = (n: number) => Math.round(n).toLocaleString("en-US");
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ");

/** Peak RSS of this process while `work` runs, sampled every 50 ms, above the level before it. */
async function peakRssDuring<T>(
  work: () => Promise<T>,
): Promise<{ result: T; before: number; peak: number }> {
  global.gc?.();
  const before = rssOf(process.pid) ?? 0;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOf(process.pid) ?? 0);
  }, 50);
  try {
    const result = await work();
    peak = Math.max(peak, rssOf(process.pid) ?? 0);
    return { result, before, peak };
  } finally {
    clearInterval(timer);
  }
}

/** Reads a response body to its end without keeping it; returns its size. */
async function drain(res: Response): Promise<number> {
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
  return bytes;
}

/** The bench file: half the rows with an alias, half with a title (also used by _import-profile.ts). */
export function csvOf(rows: number): string {
  const run = Date.now().toString(36);
  const lines = ["url,alias,title"];
  for (let i = 0; i < rows; i++) {
    const alias = i % 2 === 0 ? `b-${run}-${i}` : "";
    const title = i % 4 < 2 ? `Imported page ${i}` : "";
    lines.push(`https://example.com/bench/${run}/${i}?ref=import,${alias},${title}`);
  }
  return `${lines.join("\n")}\n`;
}

export async function run(args: string[]): Promise<string> {
  const { values } = parseArgs({
    args,
    options: { rows: { type: "string", default: "100000" }, clicks: { type: "string", default: "10000000" } },
    strict: true,
  });
  const rows = Number(values.rows);
  const clicks = Number(values.clicks);
  const out: string[] = [`### import and export (${new Date().toISOString().slice(0, 16)} UTC)`, ""];
  out.push(`Command: \`flock /tmp/bench.lock ./kurz bench import --rows ${rows} --clicks ${clicks}\``, "");

  if (rows > 0) await importAndExportLinks(rows, out);
  if (clicks === 0) return out.join("\n"); // --clicks 0: no analytics export
  const ch = await createClickHouse({ path: ":memory:", database: "bench_export" });
  try {
    await migrate(ch);
    const seedStart = performance.now();
    const seeded = await seedAnalytics(ch, { linkClicks: 1_000, accountClicks: clicks, accountLinks: 2_000 });
    const seedSeconds = (performance.now() - seedStart) / 1000;
    console.error(`analytics seeded in ${seedSeconds.toFixed(0)} s`);
    out.push(
      `Analytics export: ${int(clicks)} clicks over 2,000 links over 365 days, seeded in ${seedSeconds.toFixed(0)} s (embedded ClickHouse, in this process):`,
      "",
      "| analytics export | rows | MB | seconds | RSS before | peak above before |",
      "|---|---|---|---|---|---|",
    );
    for (const dimension of ["none", "referrer"] as const) {
      const t0 = performance.now();
      const { result, before, peak } = await peakRssDuring(async () => {
        let lines = 0;
        let bytes = 0;
        for await (const chunk of exportAnalytics(ch, seeded.account.account_id, { dimension })) {
          lines++;
          bytes += Buffer.byteLength(chunk as string);
        }
        return { lines, bytes };
      });
      console.error(`analytics export ${dimension}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      out.push(
        `| per link and day${dimension === "none" ? "" : `, by ${dimension}`} | ${int(result.lines - 1)} | ${(result.bytes / MB).toFixed(1)} | ${((performance.now() - t0) / 1000).toFixed(1)} | ${(before / MB).toFixed(0)} MB | ${((peak - before) / MB).toFixed(0)} MB |`,
      );
    }
    out.push("", `Load average after: ${load()}.`);
  } finally {
    await ch.close();
  }
  return out.join("\n");
}

/** The import through the API, then the links exports of what it created. */
async function importAndExportLinks(rows: number, out: string[]): Promise<void> {
  const stack = await startStack({
    inProcess: true,
    extraEnv: { RATE_LIMIT_PER_MINUTE: "100000", RATE_LIMIT_PER_HOUR: "1000000", IMPORT_POLL_MS: "100" },
  });
  try {
    const account = await stack.createAccount(`bench-import-${Date.now()}@example.com`, rows + 10);
    const auth = { authorization: `Bearer ${account.api_key}` };
    const file = csvOf(rows);
    const loadBefore = load();
    const started = performance.now();
    const posted = await fetch(`${stack.origin}/api/v1/imports`, {
      method: "POST",
      headers: { ...auth, "content-type": "text/csv" },
      body: file,
    });
    if (posted.status !== 202) throw new Error(`upload answered ${posted.status}: ${await posted.text()}`);
    const id = ((await posted.json()) as { data: { id: string } }).data.id;
    let job: { status: string; counts: Record<string, number> };
    const deadline = Date.now() + 10 * 60_000;
    for (;;) {
      const res = await fetch(`${stack.origin}/api/v1/imports/${id}`, { headers: auth });
      job = ((await res.json()) as { data: typeof job }).data;
      if (job.status === "completed" || job.status === "failed" || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const seconds = (performance.now() - started) / 1000;
    console.error(`import: ${job.status} in ${seconds.toFixed(1)} s`, job.counts);
    out.push(
      `Import of ${int(rows)} rows (${(file.length / MB).toFixed(1)} MB CSV, batches of 1,000, titles not fetched):`,
      "",
      "| status | created | skipped | failed | seconds | rows/s | load before / after (1, 5, 15 min) |",
      "|---|---|---|---|---|---|---|",
      `| ${job.status} | ${int(job.counts.created ?? 0)} | ${int(job.counts.skipped ?? 0)} | ${int(job.counts.failed ?? 0)} | **${seconds.toFixed(1)}** | ${int(rows / seconds)} | ${loadBefore} → ${load()} |`,
      "",
    );

    out.push("| links export | seconds | MB | RSS before | peak above before |", "|---|---|---|---|---|");
    for (const format of ["csv", "json"]) {
      const t0 = performance.now();
      const {
        result: bytes,
        before,
        peak,
      } = await peakRssDuring(async () =>
        drain(await fetch(`${stack.origin}/api/v1/exports/links?format=${format}`, { headers: auth })),
      );
      console.error(`links export ${format}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      out.push(
        `| ${format}, ${int(rows)} links | ${((performance.now() - t0) / 1000).toFixed(1)} | ${(bytes / MB).toFixed(1)} | ${(before / MB).toFixed(0)} MB | ${((peak - before) / MB).toFixed(0)} MB |`,
      );
    }
    out.push("");
  } finally {
    await stack.stop();
  }
}
