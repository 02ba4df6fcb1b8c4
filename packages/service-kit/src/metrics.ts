// Prometheus metrics for the Express and node:http services (prom-client, docs/observability.md): one
// registry per started service, served only on its operational listener (ops.ts), never on the public
// port. The redirect writes its own exposition (services/redirect/src/metrics.ts) to keep its hot path
// as it is.
import { statfs } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type EventBus, withTimeout } from "@kurz/bus";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** Request durations in seconds: from a cached key check (~1 ms) to a large export. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The label of a request that matched no route record (a 404, a refused path, a health probe). */
export const UNMATCHED_ROUTE = "unmatched";

export interface ServiceMetrics {
  /** This service's own series; sendMetrics adds the process's (Node's default series). */
  readonly registry: Registry;
  /**
   * Times one request from now until its answer is finished, labelled with the route record `routeOf`
   * names then (method and path template, never the raw path, so the series stay few) and its status
   * class.
   */
  observeRequest(req: IncomingMessage, res: ServerResponse, routeOf: () => string): void;
  /** Counted when a scrape-time gauge's read fails or times out (its last values stay). */
  readonly collectFailures: Counter<"metric">;
}

// Node's default series (memory, CPU, event-loop lag, GC) describe the process, so they are collected
// once per process whatever the number of services in it (the in-process test stack runs four): each
// collection starts an event-loop monitor and a GC observer that are never stopped.
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  processMetrics();
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time to answer a request, by route record (method and path template) and status class.",
    labelNames: ["method", "route", "status"] as const,
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  const refusals = new Counter({
    name: "http_requests_refused_total",
    help: "Requests answered 429 because a rate limit or budget was spent, by route record.",
    labelNames: ["method", "route"] as const,
    registers: [registry],
  });
  const collectFailures = new Counter({
    name: "metrics_collect_failures_total",
    help: "Scrape-time reads (a database or broker query) that failed or timed out; their gauges kept the last values.",
    labelNames: ["metric"] as const,
    registers: [registry],
  });
  return {
    registry,
    collectFailures,
    observeRequest(req, res, routeOf) {
      const end = duration.startTimer();
      res.once("finish", () => {
        const labels = { method: req.method ?? "", route: routeOf() };
        end({ ...labels, status: statusClass(res.statusCode) });
        if (res.statusCode === 429) refusals.inc(labels);
      });
    },
  };
}

const ROUTE = Symbol("kurz.metrics.route");
type Labelled = ServerResponse & { [ROUTE]?: string };

/** Names the route record answering `res` (its path template), for observeRequest's label. */
export function labelRoute(res: ServerResponse, route: string): void {
  (res as Labelled)[ROUTE] = route;
}

/**
 * The route record a finished request was answered by: the one labelRoute named (route-pipeline.ts does
 * for every record), else the template of the Express route that matched (internal routes), else
 * UNMATCHED_ROUTE.
 */
export function routeOf(req: IncomingMessage, res: ServerResponse): string {
  const labelled = (res as Labelled)[ROUTE];
  if (labelled !== undefined) return labelled;
  const path = (req as { route?: { path?: unknown } }).route?.path;
  return typeof path === "string" ? path : UNMATCHED_ROUTE;
}

/**
 * `listener` with every request timed by `metrics` under its route record: routeOf's, unless the
 * service names its routes itself (`label`, read when the answer is finished).
 */
export function withRequestMetrics(
  metrics: ServiceMetrics,
  listener: (req: IncomingMessage, res: ServerResponse) => void,
  label: (req: IncomingMessage, res: ServerResponse) => string = routeOf,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    metrics.observeRequest(req, res, () => label(req, res));
    listener(req, res);
  };
}

const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

export interface ScrapeGaugeOptions<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  /** What the gauge holds, read on each scrape; an empty list clears it. */
  read: () => Promise<{ labels?: Partial<Record<L, string>>; value: number }[]>;
  /** Bound on `read`, so a slow dependency never holds a scrape (default 2000 ms). */
  timeoutMs?: number;
}

/**
 * A gauge computed when Prometheus scrapes (a query, a broker call), bounded by a timeout. On failure
 * the last values stay and `metrics_collect_failures_total{metric}` counts it.
 */
export function scrapeGauge<L extends string>(
  metrics: ServiceMetrics,
  options: ScrapeGaugeOptions<L>,
): Gauge<L> {
  const timeoutMs = options.timeoutMs ?? 2000;
  return new Gauge<L>({
    name: options.name,
    help: options.help,
    labelNames: options.labelNames ?? [],
    registers: [metrics.registry],
    async collect() {
      try {
        const values = await withTimeout(options.read(), timeoutMs, options.name);
        this.reset();
        for (const { labels, value } of values) {
          if (labels) this.set(labels as Partial<Record<L, string | number>>, value);
          else this.set(value);
        }
      } catch {
        metrics.collectFailures.inc({ metric: options.name });
      }
    },
  });
}

export interface ScrapeCounterOptions<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  /** The running totals, kept by the code that counts (a plain number costs its hot path nothing more). */
  read: () => { labels?: Partial<Record<L, string>>; value: number }[];
}

/** A counter whose totals are kept elsewhere as plain numbers and read on each scrape. */
export function scrapeCounter<L extends string>(
  metrics: ServiceMetrics,
  options: ScrapeCounterOptions<L>,
): Counter<L> {
  return new Counter<L>({
    name: options.name,
    help: options.help,
    labelNames: options.labelNames ?? [],
    registers: [metrics.registry],
    collect() {
      this.reset();
      for (const { labels, value } of options.read()) {
        if (labels) this.inc(labels as Partial<Record<L, string | number>>, value);
        else this.inc(value);
      }
    },
  });
}

/** `bus_consumer_lag_messages{topic,group}`: what each of this process's consumer groups has yet to handle. */
export function busLagGauge(metrics: ServiceMetrics, bus: Pick<EventBus, "lag">): Gauge<"topic" | "group"> {
  return scrapeGauge(metrics, {
    name: "bus_consumer_lag_messages",
    help: "Messages a consumer group of this service has not handled yet, by topic and group.",
    labelNames: ["topic", "group"],
    read: async () =>
      (await bus.lag()).map((l) => ({ labels: { topic: l.topic, group: l.group }, value: l.messages })),
  });
}

/**
 * `disk_free_bytes{volume}` and `disk_size_bytes{volume}` of the filesystems holding a service's data
 * (`volumes`: a name for each, and a directory on it), read on each scrape.
 */
export function diskGauges(metrics: ServiceMetrics, volumes: Record<string, string>): void {
  const read = (pick: (s: { bavail: number; blocks: number; bsize: number }) => number) => async () => {
    const out: { labels: { volume: string }; value: number }[] = [];
    for (const [volume, dir] of Object.entries(volumes)) {
      const s = await statfs(dir).catch(() => null);
      if (s) out.push({ labels: { volume }, value: pick(s) * s.bsize });
    }
    return out;
  };
  scrapeGauge(metrics, {
    name: "disk_free_bytes",
    help: "Bytes available to this service on the filesystem holding its data, by volume.",
    labelNames: ["volume"],
    read: read((s) => s.bavail),
  });
  scrapeGauge(metrics, {
    name: "disk_size_bytes",
    help: "Size of the filesystem holding this service's data, by volume.",
    labelNames: ["volume"],
    read: read((s) => s.blocks),
  });
}

/** Writes the registry's exposition: the body of `/metrics` on an operational listener. */
export async function sendMetrics(
  metrics: ServiceMetrics,
  res: ServerResponse,
  head: boolean,
): Promise<void> {
  const [own, ofProcess] = await Promise.all([metrics.registry.metrics(), processMetrics().metrics()]);
  const body = `${own}${ofProcess}`;
  res.writeHead(200, {
    "content-type": metrics.registry.contentType,
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(head ? undefined : body);
}

export { Counter, Gauge, Histogram };
