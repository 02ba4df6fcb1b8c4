// One memory setting for the whole stack, KURZ_MEMORY_MB: a budget in MB for Kurz's own processes (the
// four services; Postgres and Redis apart), shared out as explicit bounds: each service's
// V8 old generation (`--max-old-space-size`) and embedded chDB's engine, query and cache sizes
// (CHDB_MEMORY_MB, which analytics turns into chDB settings). What is left of the budget is each
// process's part that no flag bounds: Node's own code and allocations, chDB's library, the GeoIP
// databases analytics reads into memory (docs/benchmarks.md, "footprint", says how much each is), so
// the processes' sum can pass the budget.
import { nodeFlagsFor, type ServiceName } from "./node-flags.ts";

/** The budget when KURZ_MEMORY_MB is unset: the stack's measured peak under the footprint bench's load, with room. */
export const MEMORY_DEFAULT_MB = 1536;
/**
 * The least the stack is started with: below it the old generations fall under what the services
 * hold under that load (management ~135 MB of heap during a 10,000-row import), and the fixed part
 * (about 600 MB) leaves chDB too little to ingest.
 */
export const MEMORY_MIN_MB = 1024;

/**
 * The smallest server Kurz runs on, in MB: Kurz's processes, a PostgreSQL with its default settings and
 * Redis served the footprint bench's mixed load in a memory cgroup of this size, which the kernel held
 * them to as a server of that size would (`./kurz bench footprint --server-mb`). The README's server size.
 */
export const SERVER_MB = 1024;

/** Each service's V8 old generation, and chDB's engine, as shares of the budget. */
const SHARES = {
  oldSpace: { management: 0.16, redirect: 0.12, analytics: 0.06, gateway: 0.06 } satisfies Record<
    ServiceName,
    number
  >,
  chdb: 0.2,
};

export interface MemoryPlan {
  totalMb: number;
  /** `--max-old-space-size` per service, MB. */
  oldSpaceMb: Record<ServiceName, number>;
  /** CHDB_MEMORY_MB for analytics: the engine's bound (a query gets half, each cache a thirty-second). */
  chdbMb: number;
}

/** KURZ_MEMORY_MB read and checked: the plan, or the reason it cannot run (a sentence for the operator). */
export function memoryPlanFrom(value: string | undefined): MemoryPlan | { refused: string } {
  const raw = value?.trim() || String(MEMORY_DEFAULT_MB);
  if (!/^\d{1,7}$/.test(raw)) return { refused: `KURZ_MEMORY_MB must be a whole number of MB, not "${raw}"` };
  const totalMb = Number(raw);
  if (totalMb < MEMORY_MIN_MB)
    return {
      refused:
        `KURZ_MEMORY_MB=${totalMb} is below ${MEMORY_MIN_MB}, the least Kurz's services run in under load ` +
        "(docs/configuration.md, KURZ_MEMORY_MB); raise it, or give the machine more memory",
    };
  return memoryPlan(totalMb);
}

export function memoryPlan(totalMb: number): MemoryPlan {
  const share = (f: number) => Math.floor(totalMb * f);
  const o = SHARES.oldSpace;
  return {
    totalMb,
    oldSpaceMb: {
      management: share(o.management),
      redirect: share(o.redirect),
      analytics: share(o.analytics),
      gateway: share(o.gateway),
    },
    chdbMb: share(SHARES.chdb),
  };
}

/** The node flags and environment `service` starts with under `plan`. */
export function memoryBoundsFor(
  service: ServiceName,
  plan: MemoryPlan,
): { nodeFlags: string[]; env: Record<string, string> } {
  return {
    nodeFlags: [`--max-old-space-size=${plan.oldSpaceMb[service]}`],
    env: {
      // glibc gives each thread that allocates its own 64 MB arena, and Node's threads (libuv's pool,
      // V8's helpers) each kept tens of MB there: two arenas held management's peak ~110 MB lower
      // under the footprint bench's load (docs/benchmarks.md, "footprint").
      MALLOC_ARENA_MAX: "2",
      // Code read in small pieces, and the page cache only start-up needed given back once started
      // (service-kit's runService, code-read-advice.ts): under a budget that memory is the server's;
      // without one (a test's services) the pages dropped would only be read again by the next
      // process to start.
      KURZ_LEAN_CODE_PAGES: "1",
      ...(service === "analytics" && { CHDB_MEMORY_MB: String(plan.chdbMb) }),
    },
  };
}

/** What every Node process holds before any code of ours: the binary's pages and V8's start-up (docs/benchmarks.md, "footprint"). */
export const NODE_BASE_MB = 42;

/**
 * What a service holds beyond its V8 heap and Node's base, measured under the footprint bench's load
 * (docs/benchmarks/2026-12.md, "footprint"): management's Prisma query compiler (WebAssembly memory,
 * outside V8's heap), import threads' buffers and two malloc arenas; analytics' GeoIP city
 * databases, read whole (128 MB of ArrayBuffers); the others' sockets, buffers and arenas.
 */
export const OUTSIDE_HEAP_MB = {
  management: 128,
  redirect: 32,
  analytics: 192,
  gateway: 32,
} satisfies Record<ServiceName, number>;

/**
 * The memory limit of `service`'s container under `plan` (docker-compose.yml, mem_limit), in MB: its
 * old generation, its young generation (two semi-spaces and their large-object space, three times
 * --max-semi-space-size), Node's base and what it holds outside V8's heap. In containers analytics
 * talks to a ClickHouse server, so it loads no chDB: neither the library (~210 MB resident) nor the
 * plan's chDB share is in its limit; the server is sized by its own configuration.
 */
export function containerLimitMb(service: ServiceName, plan: MemoryPlan): number {
  const semi = Number(/--max-semi-space-size=(\d+)/.exec(nodeFlagsFor(service).join(" "))?.[1] ?? 16);
  return NODE_BASE_MB + 3 * semi + plan.oldSpaceMb[service] + OUTSIDE_HEAP_MB[service];
}
