import type { IncomingMessage, ServerResponse } from "node:http";
import { TimeoutError, withTimeout } from "@kurz/bus";
import type { RequestHandler } from "express";
import { sendJson } from "./envelope.ts";

export type HealthChecks = Record<string, () => Promise<unknown>>;

export interface HealthOptions {
  /** Per check; default 1000 ms. */
  timeoutMs?: number;
}

export type ReadinessReport =
  | { status: "ready"; checks: Record<string, "ok"> }
  | { status: "not_ready"; checks: Record<string, "ok" | "failed">; failing: Record<string, string> };

const MAX_REASON_LENGTH = 120;

// Readiness bodies can be seen by operators' tooling; keep reasons short and free of addresses.
function reasonOf(err: unknown): string {
  if (err instanceof TimeoutError) return err.message;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code !== "") return code;
  const message = err instanceof Error ? err.message : String(err);
  return message
    .replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, "<address>")
    .replace(/\[?[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}\]?(?::\d+)?/gi, "<address>")
    .slice(0, MAX_REASON_LENGTH);
}

export async function checkReadiness(
  checks: HealthChecks,
  options: HealthOptions = {},
): Promise<ReadinessReport> {
  const timeoutMs = options.timeoutMs ?? 1000;
  const names = Object.keys(checks);
  const results = await Promise.allSettled(names.map((name) => withTimeout(checks[name]!, timeoutMs, "")));
  const statuses: Record<string, "ok" | "failed"> = {};
  const failing: Record<string, string> = {};
  results.forEach((result, i) => {
    const name = names[i]!;
    statuses[name] = result.status === "fulfilled" ? "ok" : "failed";
    if (result.status === "rejected") failing[name] = reasonOf(result.reason);
  });
  if (Object.keys(failing).length === 0) {
    return { status: "ready", checks: statuses as Record<string, "ok"> };
  }
  return { status: "not_ready", checks: statuses, failing };
}

const NO_STORE = { "Cache-Control": "no-store" };

/**
 * Framework-free `/health` and `/ready`: returns true when it answered the request, false to
 * let the caller route it. For the bare node:http redirect server as well as express.
 */
export function handleHealth(
  checks: HealthChecks,
  options: HealthOptions = {},
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const url = req.url ?? "/";
    const queryAt = url.indexOf("?");
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    if (path === "/health") {
      // Liveness only: answering at all proves the event loop is serving.
      sendJson(res, 200, { status: "ok" }, NO_STORE);
      return true;
    }
    if (path === "/ready") {
      checkReadiness(checks, options).then(
        (report) => sendJson(res, report.status === "ready" ? 200 : 503, report, NO_STORE),
        // checkReadiness settles every check itself; this only guards a broken response stream.
        () => res.destroy(),
      );
      return true;
    }
    return false;
  };
}

/** Express middleware serving `/health` and `/ready`; mount with `app.use(healthRoutes(checks))`. */
export function healthRoutes(checks: HealthChecks, options: HealthOptions = {}): RequestHandler {
  const handle = handleHealth(checks, options);
  return (req, res, next) => {
    if (!handle(req, res)) next();
  };
}
