// The label a gateway request's metrics carry (service-kit's metrics.ts): the public route record it
// matched (its path template), or the part of the origin it reached. Never the raw path, whose ids and
// codes would make a series per link.
import type { IncomingMessage } from "node:http";
import { UNMATCHED_ROUTE } from "@kurz/service-kit";
import { pathOf } from "./authenticate.ts";
import { RouteTable } from "./route-table.ts";

const under = (path: string, prefix: string) =>
  path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47); // "/"

export function createRequestRoute(table = new RouteTable()): (req: IncomingMessage) => string {
  return (req) => {
    const path = pathOf(req.url ?? "/").toLowerCase();
    if (path === "/api/v1/openapi.json") return path;
    if (under(path, "/api")) return table.recordOf(req.method ?? "GET", path) ?? UNMATCHED_ROUTE;
    if (under(path, "/docs")) return "/docs";
    if (under(path, "/c")) return "/c/:slug";
    if (path === "/health" || path === "/ready") return path;
    // The dashboard's pages and files (or, behind a separate redirect, whatever it forwards there).
    return "web";
  };
}
