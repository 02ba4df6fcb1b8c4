// The services, and the Node flags each starts with wherever it is started (`./kurz up`, the test
// stack, the image). Apart from bundle.ts so that what runs inside an image (memory-bounds.ts, bundled
// into every service) carries none of the bundler.

export const SERVICES = ["management", "analytics", "gateway", "redirect"] as const;
export type ServiceName = (typeof SERVICES)[number];

/**
 * Node flags analytics' bundle (and any other) starts with: 8 MB semi-spaces instead of V8's 16 MB, ~15 MB less peak
 * RSS under load (docs/benchmarks/2026-11.md). V8 sizes the young generation at start-up, so unlike
 * HEAP_GROWING_PERCENT this cannot be set from inside the process. The image's entrypoint takes them from
 * memory-bounds.ts, which prints them with KURZ_MEMORY_MB's bounds.
 */
const BUNDLE_NODE_FLAGS = ["--max-semi-space-size=8"];

/**
 * Analytics collects garbage on its JavaScript thread alone (`--single-threaded-gc`): its click
 * batches live until their insert returns, so its collections mark and move tens of MB at a time, and on
 * a 2-core host V8's helper threads for that cost more CPU than they save the main thread, about 1.5 µs
 * a counted click. Its batches do not wait on a pause's latency. Its old generation may grow to three
 * times what the last full collection kept (`--heap-growing-percent=200`) before the next one: each
 * batch promotes its rows, and a full collection every batch or two would mark the whole heap each
 * time, about 3 µs a counted click of its JavaScript thread. `--max-old-space-size` (KURZ_MEMORY_MB)
 * bounds the growth, so the peak RSS under load is bounded as before (docs/benchmarks/2026-12.md,
 * "stack").
 */
const ANALYTICS_NODE_FLAGS = [...BUNDLE_NODE_FLAGS, "--single-threaded-gc", "--heap-growing-percent=200"];

/**
 * The redirect keeps V8's 16 MB semi-spaces (decision 0038): with 8 MB, a click lived through a
 * scavenge and was promoted, and the full collections that cleared them up, one every 1–2 s with marking
 * steps of 10–20 ms, set its p99. Its old generation is held lower instead (HEAP_GROWING_PERCENT 50), so
 * its peak RSS stays where it was.
 */
const REDIRECT_NODE_FLAGS = ["--max-semi-space-size=16"];

/**
 * The gateway and management answer the API, a request at a time with little that outlives it: 4 MB
 * semi-spaces (a young generation of 8 MB instead of 16), and the API bench's ratios stay where they
 * were (docs/benchmarks.md, "footprint"). Management also runs its WebAssembly with V8's baseline
 * compiler only (`--liftoff-only`): Prisma's query compiler is a WebAssembly module, and optimizing it
 * (TurboFan, on by default for hot functions) held ~50 MB more at rest; undici's HTTP parser, for the
 * few outgoing requests, is the only other module.
 */
const API_NODE_FLAGS = ["--max-semi-space-size=4"];
const MANAGEMENT_NODE_FLAGS = [...API_NODE_FLAGS, "--liftoff-only"];

const FLAGS: Record<ServiceName, string[]> = {
  management: MANAGEMENT_NODE_FLAGS,
  gateway: API_NODE_FLAGS,
  analytics: ANALYTICS_NODE_FLAGS,
  redirect: REDIRECT_NODE_FLAGS,
};

/** The flags `service`'s bundle starts with, wherever it is started. */
export const nodeFlagsFor = (service: ServiceName | string): string[] =>
  FLAGS[service as ServiceName] ?? BUNDLE_NODE_FLAGS;
