// The operational listener: `/health`, `/ready` and `/metrics` on their own port
// (OPS_HOST:OPS_PORT, loopback by default), never on the public one. Behind the compose edge every
// non-API path of the public origin reaches the redirect's public port, so anything answered there is
// public; on the public port these paths are ordinary (reserved, so unknown) codes.
import type { IncomingMessage, ServerResponse } from "node:http";
import { type RedirectMetrics, sendMetrics } from "./metrics.ts";

export function createOpsHandler(deps: {
  health: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** Read on every scrape. */
  metrics: () => Promise<RedirectMetrics>;
}) {
  return function opsHandle(req: IncomingMessage, res: ServerResponse): void {
    if (deps.health(req, res)) return;
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    if (path === "/metrics" && (req.method === "GET" || req.method === "HEAD")) {
      const head = req.method === "HEAD";
      deps.metrics().then(
        (m) => sendMetrics(res, m, head),
        () => res.destroy(),
      );
      return;
    }
    req.resume();
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
    res.end("not found\n");
  };
}
