import type { ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundle } from "../build/bundle.ts";
import { startBench, startRedirect, stop, wrk } from "./_redirect-harness.ts";
const dir = mkdtempSync(join(tmpdir(), "kurz-prof-"));
const children: ChildProcess[] = [];
try {
  const b = await bundle("redirect");
  const bench = await startBench(children, dir);
  const r = await startRedirect(children, bench, { bundle: b, busPrefix: bench.prefix, spoolDir: join(dir, "spool"), nodeFlags: ["--cpu-prof", "--cpu-prof-dir=/tmp/rbench/prof"] });
  const s = process.argv[2] === "e" ? bench.plainBrowserScript : bench.smartScript;
  wrk(r.url, s, 4, 64);
  console.log(wrk(r.url, s, 8, 64));
} finally { for (const c of children.reverse()) await stop(c); }
