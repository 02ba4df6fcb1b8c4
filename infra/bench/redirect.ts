// `./kurz bench redirect`: redirect throughput against the Node ceiling, in one run.
//   (a) a bare node:http server answering 302 with no lookup,
//   (b) the redirect service (LRU → Redis, click publishing to the Redis Streams bus on),
//   (b) is configured as `./kurz up` runs it: it owns the public origin (API_UPSTREAM_URL set, decision 0038),
//   so (b) is also the figure "through the public origin" for short links.
//   (c) for comparison, the layout before decision 0038: the gateway in front, forwarding to redirect.
//   (d) smart links on (b): five rules none of which match (device, OS, country, language, query),
//       so each request evaluates them all and gets the default, with its query forwarded; requests
//       carry a browser's User-Agent and Accept-Language, `?utm_source=x` and a client address.
//   (e) plain links on (b) asked for with (d)'s requests: what the headers and query cost by themselves.
// Servers are pinned to core 0 with taskset; wrk and a Redis server of the benchmark's own are pinned
// to core 1, so the server core is the server's alone, as it would be with Redis on another host.
// 100k links are seeded into that Redis and every request asks for a random one. (a) and (b) are
// measured in turns, so a slow spell of a shared host weighs on both; the ratio is the median of the
// pairs. (d) and (e) run twice a round, mirrored (d e e d, then e d d e): their ratio is the one most
// asked of this bench, and one run of each gave rounds 30 points apart on a shared host. The redirect runs from its bundle, as `./kurz up` runs it (decision 0001).
// Options: --duration <s> (default 10), --runs <n> (default 3), --connections <n> (default 64).
// Run under `flock /tmp/bench.lock` on a shared machine.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundle } from "../build/bundle.ts";
import { cpuMsOf } from "./_cpu.ts";
import {
  freePort,
  LINKS,
  median,
  pinned,
  rssMb,
  SMART_LINKS,
  startBench,
  startRedirect,
  stop,
  type WrkResult,
  waitHttp,
  wrk,
} from "./_redirect-harness.ts";

export const description =
  "redirect service vs a bare node:http 302 (the Node ceiling), and through the public origin";

export async function run(args: string[]): Promise<string> {
  const opt = (name: string, dflt: number) => {
    const i = args.indexOf(`--${name}`);
    return i === -1 ? dflt : Number(args[i + 1]);
  };
  const seconds = opt("duration", 10);
  const runs = opt("runs", 3);
  const connections = opt("connections", 64);
  const dir = mkdtempSync(join(tmpdir(), "kurz-bench-"));
  const redirectBundle = await bundle("redirect");

  const children: ChildProcess[] = [];
  const results: Record<string, WrkResult[]> = { a: [], b: [], c: [], d: [], e: [] };
  /** The redirect's CPU time per request (µs) in each run of (d) and (e), when /proc tells. */
  const cpuPerRequest: Record<string, number[]> = { d: [], e: [] };

  let rss = { rss: 0, peak: 0 };
  let pipeline = "";
  let memory = "";
  try {
    // (a) the Node ceiling
    const bench = await startBench(children, dir);
    const { script, smartScript, plainBrowserScript, bare: a } = bench;
    // JIT, every code cached, connections open
    const warm = (url: string, s = script) => wrk(url, s, 10, connections);
    // (b) the redirect service as the public origin, as `./kurz up` runs it
    const splicePort = await freePort();
    const redirect = await startRedirect(children, bench, {
      bundle: redirectBundle,
      busPrefix: bench.prefix,
      spoolDir: join(dir, "spool"),
      // As `./kurz up`: the API splice (decision 0038) unless KURZ_SPLICE=0; every new connection's
      // first read is looked at (short links are never spliced, so nothing listens there).
      env: process.env.KURZ_SPLICE !== "0" ? { API_SPLICE_PORT: String(splicePort) } : {},
    });
    const b = redirect.url;
    warm(a);
    warm(b);
    warm(b, smartScript);
    for (let i = 0; i < runs; i++) {
      results.a!.push(wrk(a, script, seconds, connections));
      results.b!.push(wrk(b, script, seconds, connections));
      // (d) and (e) twice a round, mirrored (d e e d, then e d d e the next round): a host growing
      // slower or faster through the round weighs on both alike, and neither always goes first.
      const [first, second] = i % 2 === 0 ? ["d", "e"] : ["e", "d"];
      const measure = (key: string) => {
        const before = cpuMsOf(redirect.child.pid!);
        const w = wrk(b, key === "d" ? smartScript : plainBrowserScript, seconds, connections);
        const after = cpuMsOf(redirect.child.pid!);
        results[key]!.push(w);
        if (before !== undefined && after !== undefined)
          cpuPerRequest[key]!.push(((after - before) * 1000) / (w.rps * seconds));
      };
      for (const key of [first!, second!, second!, first!]) measure(key);
    }
    await stop(bench.bareChild);
    rss = rssMb(redirect.child.pid!);
    const m = await (await fetch(`${redirect.ops}/metrics`)).text();
    const metric = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(m)?.[1] ?? Number.NaN);
    pipeline = m
      .split("\n")
      .filter((l) => /^clicks_\w+ \d+$/.test(l))
      .join(", ");
    const mb = (name: string) => (metric(name) / 1048576).toFixed(0);
    memory = `heap used ${mb("nodejs_heap_size_used_bytes")} MB of ${mb("nodejs_heap_size_total_bytes")} MB, external ${mb("nodejs_external_memory_bytes")} MB`;

    // (c) for comparison, the layout before decision 0038: the gateway in front
    const c = `http://127.0.0.1:${redirect.gatewayPort}`;
    const gateway = pinned([process.execPath, "--import", "tsx", "services/gateway/src/main.ts"], {
      ...redirect.env,
      PORT: String(redirect.gatewayPort),
      // Any free port: only the redirect's operational listener is read here.
      OPS_PORT: "0",
    });
    children.push(gateway);
    await waitHttp(`${c}/health`);
    wrk(c, script, 3, connections);
    results.c!.push(wrk(c, script, seconds, connections));
  } finally {
    for (const c of children.reverse()) await stop(c);
    rmSync(dir, { recursive: true, force: true });
  }

  return report({ seconds, runs, connections, results, cpuPerRequest, rss, memory, pipeline });
}

/** The benchmark's Markdown section: medians of each server's runs, and the ratios against the ceiling. */
function report(r: {
  seconds: number;
  runs: number;
  connections: number;
  results: Record<string, WrkResult[]>;
  cpuPerRequest: Record<string, number[]>;
  rss: { rss: number; peak: number };
  memory: string;
  pipeline: string;
}): string {
  const { seconds, runs, connections, results, cpuPerRequest, rss, memory, pipeline } = r;
  const row = (label: string, key: string) => {
    const r = results[key]!;
    const sum = (f: (w: WrkResult) => number) => r.reduce((acc, w) => acc + f(w), 0);
    return `| ${label} | ${Math.round(median(r.map((w) => w.rps))).toLocaleString("en")} | ${median(r.map((w) => w.p50)).toFixed(2)} ms | ${median(r.map((w) => w.p99)).toFixed(2)} ms | ${sum((w) => w.errors)} / ${sum((w) => w.non3xx)} |`;
  };
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  const spread = (xs: number[]) => {
    const sorted = [...xs].sort((x, y) => x - y);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
    return `middle half ${pct(q(0.25))}–${pct(q(0.75))}`;
  };
  const pairs = results.b!.map((w, i) => w.rps / results.a![i]!.rps);
  // (d) and (e) have two runs a round: a round's rate is the mean of its two.
  const perRound = (key: string) =>
    results.b!.map((_, i) => (results[key]![2 * i]!.rps + results[key]![2 * i + 1]!.rps) / 2);
  const [dRounds, eRounds] = [perRound("d"), perRound("e")];
  const smartPairs = dRounds.map((d, i) => d / results.b![i]!.rps);
  const samePairs = dRounds.map((d, i) => d / eRounds[i]!);
  const worstP99 = Math.max(...results.b!.map((w) => w.p99));
  return [
    `## redirect`,
    "",
    `\`./kurz bench redirect --duration ${seconds} --runs ${runs} --connections ${connections}\` (${new Date().toISOString().slice(0, 10)}).`,
    `Servers pinned to core 0 (\`taskset -c 0\`); \`wrk -t1 -c${connections} -d${seconds}s\` and the benchmark's own Redis`,
    `(cache and Redis Streams bus) pinned to core 1; loopback. ${LINKS.toLocaleString("en")} links seeded, a random code per`,
    `request. (d): ${SMART_LINKS.toLocaleString("en")} smart links on the same redirect, each with five rules none of which match`,
    "(device, OS, country, language, query) and forwarding on; its requests carry a browser's User-Agent and",
    "Accept-Language, `?utm_source=x` and a random client address in X-Forwarded-For (one trusted proxy).",
    "(e): plain links asked for with (d)'s requests.",
    `After a 10 s warm-up of each, (a), (b), (d) and (e) were measured in ${runs} rounds of a, b and then (d) and (e)`,
    "twice, mirrored (d e e d, then e d d e); medians of the runs below, each ratio the median of its rounds'.",
    "",
    "| server | req/s | p50 | p99 | socket errors / non-3xx |",
    "|---|---|---|---|---|",
    row("(a) bare `node:http` 302, no lookup", "a"),
    row("(b) redirect service (bundle) as the public origin, click publishing on", "b"),
    row("(c) for comparison: gateway in front of redirect (layout before decision 0038), one run", "c"),
    row("(d) smart links on (b): 5 rules, none matching, query forwarded", "d"),
    row("(e) plain links on (b), requests as (d)", "e"),
    "",
    `Ratio (b)/(a), median of the pairs: **${pct(median(pairs))}** (pairs: ${pairs.map(pct).join(", ")}; target ≥ 60%).`,
    `p99 of (b): median ${median(results.b!.map((w) => w.p99)).toFixed(2)} ms, worst run ${worstP99.toFixed(2)} ms (target < 10 ms).`,
    `Redirect RSS after the runs: ${rss.rss.toFixed(0)} MB (peak ${rss.peak.toFixed(0)} MB; target < 200 MB); ${memory}.`,
    `Click pipeline after (b): ${pipeline}.`,
    `Smart links (d)/(b), median of the rounds: **${pct(median(smartPairs))}** (rounds: ${smartPairs.map(pct).join(", ")}).`,
    `Smart links against plain links asked for alike, (d)/(e): **${pct(median(samePairs))}** (rounds: ${samePairs.map(pct).join(", ")}; ${spread(samePairs)}; target ≥ 95%).`,
    cpuLine(cpuPerRequest),
    `The old gateway-first layout (c)/(a): ${pct(median(results.c!.map((w) => w.rps)) / median(results.a!.map((w) => w.rps)))}.`,
    "",
  ].join("\n");
}

/**
 * The redirect's CPU time per request in (d) and (e): the host's other load moves it far less than the
 * rates, so its ratio tells what the rules and forwarding cost when the rates' rounds spread widely.
 */
function cpuLine(cpu: Record<string, number[]>): string {
  const [d, e] = [cpu.d!, cpu.e!];
  if (d.length === 0 || e.length === 0) return "CPU per request: not measured (no /proc).";
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
  const ratios = e.map((x, i) => x / d[i]!);
  return `Redirect CPU per request, median of the runs: (d) ${median(d).toFixed(1)} µs (${range(d)}), (e) ${median(e).toFixed(1)} µs (${range(e)}); (e)/(d), as a rate ratio: **${(median(ratios) * 100).toFixed(0)}%** (runs ${ratios.map((x) => `${(x * 100).toFixed(0)}%`).join(", ")}).`;
}
