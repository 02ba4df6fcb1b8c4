// `./kurz bench web`: the dashboard's weight and speed against its budgets.
//   - weight: initial JavaScript is every script index.html loads before the first page renders (the
//     entry and the chunks it preloads), gzip-compressed at level 9 as the gateway serves it (web-app.ts
//     compresses on first read). Budget: ≤ 150 KB.
//   - pages: each page timed in real Chromium from navigation to usable, with 100,000 links in the
//     account (_web-pages.ts). Budget: ≤ 1 s.
// Options: --only weight|pages, --runs <n> visits per page (default 5), --links <n> (default 100000).
// Run under `flock /tmp/bench.lock` on a shared machine.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { buildWeb, WEB_DIST } from "../build/web.ts";
import { PAGE_BUDGET_MS, type PageTiming, timePages } from "./_web-pages.ts";

export const INITIAL_JS_BUDGET_BYTES = 150 * 1024;

export interface WebWeight {
  initialJs: { file: string; raw: number; gzip: number }[];
  initialJsGzip: number;
  css: { file: string; raw: number; gzip: number }[];
  allAssetsGzip: number;
}

const gz = (buf: Buffer) => gzipSync(buf, { level: 9 }).length;

/** What services/web/dist weighs, read from its index.html and assets. */
export function webWeight(dist = WEB_DIST): WebWeight {
  const html = readFileSync(join(dist, "index.html"), "utf8");
  const refs = [...html.matchAll(/<(?:script|link)\b[^>]*(?:src|href)="\/assets\/([^"]+)"[^>]*>/g)].map(
    (m) => ({
      tag: m[0],
      file: m[1]!,
    }),
  );
  const size = (file: string) => {
    const buf = readFileSync(join(dist, "assets", file));
    return { file, raw: buf.length, gzip: gz(buf) };
  };
  const initialJs = refs
    .filter((r) => r.file.endsWith(".js") && (r.tag.startsWith("<script") || /modulepreload/.test(r.tag)))
    .map((r) => size(r.file));
  const css = refs.filter((r) => r.file.endsWith(".css")).map((r) => size(r.file));
  const allAssetsGzip = readdirSync(join(dist, "assets")).reduce((sum, f) => sum + size(f).gzip, 0);
  return { initialJs, initialJsGzip: initialJs.reduce((s, f) => s + f.gzip, 0), css, allAssetsGzip };
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

export const description =
  "dashboard: initial JavaScript (gzip) against 150 KB, and each page's time to usable with 100k links against 1 s";

export async function run(args: string[] = []): Promise<string> {
  const { values } = parseArgs({
    args,
    options: {
      only: { type: "string" },
      runs: { type: "string", default: "5" },
      links: { type: "string", default: "100000" },
    },
    strict: false,
  });
  await buildWeb();
  const sections: string[] = [];
  if (values.only !== "pages") sections.push(weightSection());
  if (values.only !== "weight") {
    sections.push(await pagesSection(Number(values.links), Number(values.runs), args.join(" ")));
  }
  return sections.join("\n");
}

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

async function pagesSection(links: number, runs: number, argLine: string): Promise<string> {
  if (!existsSync(CHROMIUM)) return `## Dashboard pages\n\nSkipped: no Chromium at ${CHROMIUM}.\n`;
  const { timings, seedMs, clicks } = await timePages({
    links,
    runs,
    chromiumPath: CHROMIUM,
    log: (line) => console.error(line),
  });
  const load1 = loadavg()[0]!.toFixed(1);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const row = (t: PageTiming) => {
    const worst = Math.max(...t.runs);
    const verdict = worst <= PAGE_BUDGET_MS ? "yes" : "**no**";
    const api = [...t.slowestApi].sort((a, b) => a.ms - b.ms)[Math.floor(t.slowestApi.length / 2)]!;
    return `| ${t.name} | \`${t.path}\` | ${median(t.runs)} | ${worst} | ${verdict} | \`${api.path.split("?")[0]}\` ${api.ms} | ${t.usable} |`;
  };
  const over = timings.filter((t) => Math.max(...t.runs) > PAGE_BUDGET_MS);
  return [
    `## Dashboard pages with ${links.toLocaleString("en")} links (\`./kurz bench web\`)`,
    "",
    `\`flock /tmp/bench.lock ./kurz bench web${argLine ? ` ${argLine}` : ""}\` — a full local process stack in production mode,`,
    `Debian's Chromium (headless, 1280×800). The account holds ${links.toLocaleString("en")} links seeded in Postgres (${seedMs} ms)`,
    `and ${clicks.toLocaleString("en")} clicks on 300 of them from 200 visitors, made through the redirect service.`,
    `Each page: one warm-up visit (assets cached), then ${runs} visit${runs === 1 ? "" : "s"}, each a fresh navigation timed to "usable".`,
    `Load average (1 min) at the end: ${load1}.`,
    "",
    "| page | path | median ms | worst ms | ≤ 1 s | slowest API call (median visit), ms | usable when |",
    "|---|---|---|---|---|---|---|",
    ...timings.map(row),
    "",
    over.length === 0
      ? `Every page usable within ${PAGE_BUDGET_MS} ms in every visit.`
      : `Over ${PAGE_BUDGET_MS} ms: ${over.map((t) => t.name).join(", ")}.`,
    "",
  ].join("\n");
}

function weightSection(): string {
  const w = webWeight();
  const rows = [...w.initialJs, ...w.css].map((f) => `| ${f.file} | ${kb(f.raw)} | ${kb(f.gzip)} |`);
  const verdict = w.initialJsGzip <= INITIAL_JS_BUDGET_BYTES ? "within" : "OVER";
  return [
    "## Dashboard weight (`./kurz bench web`)",
    "",
    "| file loaded by index.html | raw | gzip -9 |",
    "|---|---|---|",
    ...rows,
    "",
    `Initial JavaScript: **${kb(w.initialJsGzip)} gzip**, ${verdict} the ${kb(INITIAL_JS_BUDGET_BYTES)} budget. ` +
      `All assets together: ${kb(w.allAssetsGzip)} gzip.`,
    "",
  ].join("\n");
}
