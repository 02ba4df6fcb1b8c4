// Where a process's resident memory is, from /proc/<pid>/smaps, for `./kurz bench footprint`: each
// mapping put in one of a few parts (the node binary, chDB's library, other shared libraries, other
// files, malloc's main heap, anonymous memory) and each part split into the pages the system can drop
// and read again (clean file pages: code and read-only data) and those it must keep (private dirty or
// anonymous pages: heaps, stacks, and a library's relocated data, which the loader wrote into its
// copy-on-write pages). A library's .bss (an anonymous mapping right after its last file mapping) is
// counted with the library. Linux only; elsewhere the breakdown is empty.
import { readFileSync } from "node:fs";

export const PARTS = ["node", "chdb", "libraries", "files", "heap", "anonymous"] as const;
export type Part = (typeof PARTS)[number];

export interface PartRss {
  /** Resident, bytes. */
  rss: number;
  /** Proportional set size: shared pages divided among the processes that map them. */
  pss: number;
  /** Resident and clean in a file mapping: droppable, read again from the file when touched. */
  clean: number;
  /** Resident and written (anonymous, or a private file page once written): kept until freed. */
  dirty: number;
}

export type Breakdown = Record<Part, PartRss>;

const empty = (): Breakdown =>
  Object.fromEntries(PARTS.map((p) => [p, { rss: 0, pss: 0, clean: 0, dirty: 0 }])) as Breakdown;

function partOf(path: string): Part | "bss" {
  if (path === "") return "bss";
  if (path === "[heap]") return "heap";
  if (path.startsWith("[")) return "anonymous"; // [stack], [vdso], [vvar], [anon:…]
  if (/libchdb\.so/.test(path)) return "chdb";
  if (/\/node$/.test(path)) return "node";
  if (/\.so(\.|$)/.test(path)) return "libraries";
  return "files";
}

/** The breakdown of one process, or undefined when it is gone or /proc is not there. */
export function smapsOf(pid: number): Breakdown | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, "utf8");
  } catch {
    return undefined;
  }
  const out = empty();
  let part: Part = "anonymous";
  let lastFile: { part: Part; end: string } | undefined;
  for (const line of text.split("\n")) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      const [, start, end, path] = header;
      const p = partOf(path!.trim());
      // An anonymous mapping that starts where a library's mappings end is that library's .bss.
      part = p === "bss" ? (lastFile && lastFile.end === start ? lastFile.part : "anonymous") : p;
      lastFile = p === "chdb" || p === "node" || p === "libraries" ? { part: p, end: end! } : undefined;
      continue;
    }
    const field = /^(\w+):\s+(\d+) kB$/.exec(line);
    if (!field) continue;
    const bytes = Number(field[2]) * 1024;
    const o = out[part];
    if (field[1] === "Rss") o.rss += bytes;
    else if (field[1] === "Pss") o.pss += bytes;
    else if (field[1] === "Shared_Clean" || field[1] === "Private_Clean") o.clean += bytes;
    else if (field[1] === "Shared_Dirty" || field[1] === "Private_Dirty") o.dirty += bytes;
  }
  return out;
}

/** The breakdowns of several processes added up. */
export function smapsOfAll(pids: number[]): Breakdown | undefined {
  const each = pids.map(smapsOf).filter((b): b is Breakdown => b !== undefined);
  return each.length === 0 ? undefined : added(each);
}

/** Several breakdowns added up, part by part. */
export function added(breakdowns: Breakdown[]): Breakdown {
  const out = empty();
  for (const b of breakdowns)
    for (const p of PARTS) {
      out[p].rss += b[p].rss;
      out[p].pss += b[p].pss;
      out[p].clean += b[p].clean;
      out[p].dirty += b[p].dirty;
    }
  return out;
}
