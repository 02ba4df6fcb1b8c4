// The top self-time functions of a V8 .cpuprofile (what --cpu-prof and the inspector's Profiler.stop
// write): self time summed by function name and place, so that one function's samples across many
// call paths add up. Used by `./kurz bench stack --profile`; runs alone too:
//   node --import tsx infra/bench/_cpuprofile-summary.ts FILE.cpuprofile [count] [name,name,…]
// With names, also each named function's inclusive time (itself and what it calls; after an await
// the rest of an async function runs outside its caller's frames, so a caller's figure is partial).
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";

interface ProfileNode {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number };
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  /** Microseconds since the previous sample; the first since startTime. */
  timeDeltas: number[];
}

export interface Summary {
  totalMs: number;
  idleMs: number;
  /** Sampled time the thread was not idle. */
  busyMs: number;
  top: { name: string; where: string; selfMs: number }[];
}

/** (idle) is the event loop waiting; (program) native code V8 cannot attribute; (garbage collector) GC. */
export function summariseProfile(profile: CpuProfile, count: number): Summary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, { name: string; where: string; selfMs: number }>();
  let totalMs = 0;
  let idleMs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    // A sample's time is the gap to the next one: the thread was in that frame until then.
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    totalMs += ms;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") idleMs += ms;
    const name = functionName || "(anonymous)";
    const where = url ? `${shorten(url)}:${lineNumber + 1}` : "";
    const key = `${name}\u0000${where}`;
    const entry = self.get(key) ?? { name, where, selfMs: 0 };
    entry.selfMs += ms;
    self.set(key, entry);
  }
  const top = [...self.values()]
    .filter((e) => e.name !== "(idle)")
    .sort((a, b) => b.selfMs - a.selfMs)
    .slice(0, count);
  return { totalMs, idleMs, busyMs: totalMs - idleMs, top };
}

/** Sampled ms under each named function (counted once per sample however deep it recurs). */
export function inclusiveTimes(profile: CpuProfile, names: string[]): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const out = new Map(names.map((n) => [n, 0]));
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const seen = new Set<string>();
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parentOf.get(id)) {
      const name = byId.get(id)?.callFrame.functionName ?? "";
      if (out.has(name) && !seen.has(name)) {
        out.set(name, out.get(name)! + ms);
        seen.add(name);
      }
    }
  }
  return out;
}

/** A place short enough for a table: node:internal paths as they are, files by their last two parts. */
function shorten(url: string): string {
  if (url.startsWith("node:")) return url;
  const path = url.replace(/^file:\/\//, "");
  const parts = path.split("/");
  return parts.length > 2 ? parts.slice(-3).join("/") : basename(path);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const [file, count = "30", names] = process.argv.slice(2);
  const profile = JSON.parse(readFileSync(file!, "utf8")) as CpuProfile;
  const s = summariseProfile(profile, Number(count));
  console.log(`sampled ${(s.totalMs / 1000).toFixed(1)} s, idle ${(s.idleMs / 1000).toFixed(1)} s`);
  for (const e of s.top) console.log(`${e.selfMs.toFixed(0).padStart(8)} ms  ${e.name}  ${e.where}`);
  if (names) {
    console.log("inclusive:");
    for (const [name, ms] of inclusiveTimes(profile, names.split(",")))
      console.log(`${ms.toFixed(0).padStart(8)} ms  ${name}`);
  }
}
