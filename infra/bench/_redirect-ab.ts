// A/B of redirect bundles under `./kurz bench redirect`'s harness, in one run: the same Redis (seeded
// with the same 100k links), the same bare server (a), the same wrk script, the servers pinned to core 0
// and wrk and Redis to core 1, every bundle started with the redirect's flags (nodeFlagsFor) and the bench's environment.
// Each round measures (a) and then every bundle, in an order that alternates between rounds, so a slow
// spell of the shared host weighs on all of them. Not a benchmark of record (that is `./kurz bench
// redirect`); it answers "which of these bundles is faster" with less noise than separate runs.
//   node --import tsx infra/bench/_redirect-ab.ts [--duration 10] [--rounds 3] [--profile <dir>] \
//     [--requests plain|smart|browser] name=/path/to/main.mjs name2=/path/to/other.mjs
// --requests: the bench's rows (b) (plain, the default), (d) (smart links) or (e) (plain links asked
// for with (d)'s requests); (a) always gets the plain requests.
// Each run also gives the server's CPU time per request (/proc, _cpu.ts), which the host's other load
// moves far less than its rate. --profile runs every bundle with --cpu-prof into <dir> (a profile per
// bundle, written at exit).
// Run under `flock /tmp/bench.lock`.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuMsOf } from "./_cpu.ts";
import { median, rssMb, startBench, startRedirect, stop, wrk } from "./_redirect-harness.ts";

const mb = ({ rss, peak }: { rss: number; peak: number }) => `${rss.toFixed(0)}/${peak.toFixed(0)} MB`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string) => {
    const i = args.indexOf(`--${name}`);
    if (i === -1) return undefined;
    const v = args[i + 1]!;
    args.splice(i, 2);
    return v;
  };
  const seconds = Number(opt("duration") ?? 10);
  const rounds = Number(opt("rounds") ?? 3);
  const profileDir = opt("profile");
  const requests = opt("requests") ?? "plain";
  if (!["plain", "smart", "browser"].includes(requests)) throw new Error(`--requests ${requests}?`);
  const bundles = args.map((a) => {
    const [name, path] = a.split("=") as [string, string];
    return { name, path };
  });
  const dir = mkdtempSync(join(tmpdir(), "kurz-ab-"));
  const children: ChildProcess[] = [];
  try {
    const bench = await startBench(children, dir);
    const { script, bare: a } = bench;
    const asked =
      requests === "smart" ? bench.smartScript : requests === "browser" ? bench.plainBrowserScript : script;
    wrk(a, script, 10, 64);
    const servers: { name: string; url: string; child: ChildProcess }[] = [];
    for (const [i, b] of bundles.entries()) {
      const flags = profileDir
        ? ["--cpu-prof", "--cpu-prof-dir", profileDir, "--cpu-prof-name", `${b.name}.cpuprofile`]
        : [];
      // AB_NODE_FLAGS: extra flags for every bundle (e.g. --trace-deopt), their stdout to <profile>/<name>.out.
      const extra = (process.env.AB_NODE_FLAGS ?? "").split(" ").filter(Boolean);
      const { url, child } = await startRedirect(children, bench, {
        bundle: b.path,
        busPrefix: `${bench.prefix}-${i}`,
        spoolDir: join(dir, `spool-${i}`),
        nodeFlags: [...flags, ...extra],
        stdout: profileDir ? openSync(join(profileDir, `${b.name}.out`), "w") : "ignore",
      });
      servers.push({ name: b.name, url, child });
    }
    // Warm-up one at a time (JIT, every code cached), then the rounds.
    for (const s of servers) wrk(s.url, asked, 10, 64);
    const rows: string[] = [];
    const ratios: Record<string, number[]> = {};
    const cpuPerRequest: Record<string, number[]> = {};
    console.log(
      "| round | bundle | (a) req/s | req/s | ratio | CPU a request | p99 | non-3xx | RSS/peak | load |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|---|");
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      for (const s of order) {
        const ra = wrk(a, script, seconds, 64);
        const cpu0 = cpuMsOf(s.child.pid!);
        const rb = wrk(s.url, asked, seconds, 64);
        const cpu1 = cpuMsOf(s.child.pid!);
        const ratio = rb.rps / ra.rps;
        ratios[s.name] = [...(ratios[s.name] ?? []), ratio];
        // The server's CPU per request: what the host's other load moves least.
        const us =
          cpu0 === undefined || cpu1 === undefined ? Number.NaN : ((cpu1 - cpu0) * 1000) / (rb.rps * seconds);
        cpuPerRequest[s.name] = [...(cpuPerRequest[s.name] ?? []), us];
        const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
        const row = `| ${round + 1} | ${s.name} | ${Math.round(ra.rps)} | ${Math.round(rb.rps)} | ${(ratio * 100).toFixed(1)}% | ${us.toFixed(1)} µs | ${rb.p99.toFixed(2)} ms | ${rb.non3xx} | ${mb(rssMb(s.child.pid!))} | ${load} |`;
        console.log(row);
        rows.push(row);
      }
    }
    for (const s of servers)
      console.log(
        `${s.name}: median ratio ${(median(ratios[s.name]!) * 100).toFixed(1)}% of ${ratios[s.name]!.length}, median CPU ${median(cpuPerRequest[s.name]!).toFixed(1)} µs a request (${Math.min(...cpuPerRequest[s.name]!).toFixed(1)}–${Math.max(...cpuPerRequest[s.name]!).toFixed(1)})`,
      );
  } finally {
    for (const c of children.reverse()) await stop(c);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
