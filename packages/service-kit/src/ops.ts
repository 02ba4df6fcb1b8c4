// The operational listener of the Express and node:http services: `/health`, `/ready` and `/metrics`
// on a port of its own (OPS_HOST:OPS_PORT, loopback by default), which no public origin forwards to,
// so metrics never need a credential of their own and never leak through the edge.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { z } from "zod";
import { port, unsetIfEmpty } from "./config.ts";
import { type HealthChecks, handleHealth } from "./health.ts";
import { type ServiceMetrics, sendMetrics } from "./metrics.ts";

/** OPS_HOST and OPS_PORT, for a service's config schema (`.extend({...opsConfig(9081)})`). */
export const opsConfig = (defaultPort: number) => ({
  // Loopback by default: only probers and Prometheus on the same host (or container) reach it.
  OPS_HOST: unsetIfEmpty(z.string().default("127.0.0.1")),
  OPS_PORT: port(defaultPort),
});

const pathOf = (url: string) => {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
};

export function createOpsHandler(deps: { readiness: HealthChecks; metrics: ServiceMetrics }) {
  const health = handleHealth(deps.readiness);
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (health(req, res)) return;
    if (pathOf(req.url ?? "/") === "/metrics" && (req.method === "GET" || req.method === "HEAD")) {
      sendMetrics(deps.metrics, res, req.method === "HEAD").catch(() => res.destroy());
      return;
    }
    req.resume();
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
    res.end("not found\n");
  };
}

export const createOpsServer = (deps: { readiness: HealthChecks; metrics: ServiceMetrics }): Server =>
  createServer(createOpsHandler(deps));
