// `./kurz bench web`: the dashboard's weight. Initial JavaScript is every script index.html loads
// before the first page renders (the entry and the chunks it preloads), gzip-compressed at level 9 as
// the gateway serves it (web-app.ts compresses on first read). Budget (issue 12): ≤ 150 KB.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { buildWeb, WEB_DIST } from "../build/web.ts";

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

export const description = "dashboard weight: initial JavaScript (gzip) against the 150 KB budget";

export async function run(): Promise<string> {
  await buildWeb();
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
