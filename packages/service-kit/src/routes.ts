// Mounts contracts' route records on Express (docs/decisions/0010-routes-declared-once.md): a thin
// transport over route-pipeline.ts, which parses the request and checks the response with the record,
// so a handler only maps typed input to a typed result.

import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { RouteDef } from "@kurz/contracts";
import type { Express, Request, Response, Router } from "express";
import { methodNotAllowed } from "./http.ts";
import type { Identity } from "./internal-auth.ts";
import type { Logger } from "./logger.ts";
import {
  isRawReply,
  type MountedRoute,
  type RawReply,
  type ResponseCheck,
  responseValidationFrom,
  runRoute,
} from "./route-pipeline.ts";

export interface MountOptions {
  /** Check every response against its record (default: responseValidationFrom(process.env)). */
  validateResponses?: boolean;
  /** Where a response that breaks its record is logged when the request has no logger of its own. */
  logger?: Logger;
}

type Mountable = Express | Router;
const mounted = new WeakMap<Mountable, RouteDef[]>();

/** The records mountRoutes put on this app or router, in mounting order. */
export function mountedRoutes(app: Mountable): readonly RouteDef[] {
  return mounted.get(app) ?? [];
}

/**
 * Mounts each route at its full path. Paths with fixed segments go first, so `/links/bulk` is not
 * taken for `/links/:id`; after each path's methods, any other method answers 405 with `Allow`.
 */
export function mountRoutes(
  app: Mountable,
  routes: readonly MountedRoute[],
  options: MountOptions = {},
): void {
  const check: ResponseCheck = {
    validate: options.validateResponses ?? responseValidationFrom(process.env),
    ...(options.logger ? { logger: options.logger } : {}),
  };
  const byPath = new Map<string, MountedRoute[]>();
  for (const mountedRoute of routes) {
    const { path, method } = mountedRoute.def;
    const same = byPath.get(path) ?? [];
    if (same.some((r) => r.def.method === method)) throw new Error(`mountRoutes: ${method} ${path} twice`);
    byPath.set(path, [...same, mountedRoute]);
  }
  for (const path of [...byPath.keys()].sort(bySpecificity)) {
    const onPath = byPath.get(path)!;
    const chain = app.route(path);
    for (const mountedRoute of onPath) {
      const method = mountedRoute.def.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete";
      chain[method](handlerFor(mountedRoute, check));
    }
    chain.all(methodNotAllowed(onPath.map((r) => r.def.method)));
  }
  mounted.set(app, [...(mounted.get(app) ?? []), ...routes.map((r) => r.def)]);
}

/**
 * A total order in which, segment by segment, a fixed segment comes before a parameter (all
 * parameters alike), so any path that could be taken for a parameterised one is mounted first.
 */
export function bySpecificity(a: string, b: string): number {
  const as = a.toLowerCase().split("/");
  const bs = b.toLowerCase().split("/");
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const aParam = as[i]!.startsWith(":");
    const bParam = bs[i]!.startsWith(":");
    if (aParam !== bParam) return aParam ? 1 : -1;
    if (!aParam && as[i] !== bs[i]) return as[i]! < bs[i]! ? -1 : 1;
  }
  return as.length - bs.length;
}

/** Express's transport: requireForwarded (mounted before) left the identity on `res.locals`. */
function handlerFor(
  mountedRoute: MountedRoute<RouteDef>,
  check: ResponseCheck,
): (req: Request, res: Response) => Promise<void> {
  const { def } = mountedRoute;
  // Express 5 passes a rejected promise to the error handler, which answers in the path's envelope.
  return async (req, res) => {
    const result = await runRoute(
      mountedRoute,
      {
        identity: res.locals.identity as Identity | undefined,
        params: req.params,
        query: def.query ? req.query : undefined,
        body: req.body,
        req,
        res,
      },
      check,
    );
    if (def.response && !isRawReply(def, result)) {
      res.status(def.status).json(result);
      return;
    }
    const reply = result as RawReply;
    res.status(def.status);
    if (reply.headers) res.set(reply.headers);
    res.set("Content-Type", reply.contentType);
    if (reply.body instanceof Readable) {
      await pipeline(reply.body, res);
      return;
    }
    res.send(reply.body);
  };
}
