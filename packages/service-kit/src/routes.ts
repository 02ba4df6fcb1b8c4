// Mounts contracts' route records on Express (docs/decisions/0010-routes-declared-once.md): the record
// parses the request and checks the response, so a handler only maps typed input to a typed result.
import type { RouteDef } from "@kurz/contracts";
import type { Express, Request, Response, Router } from "express";
import type * as z from "zod";
import { requestLog } from "./access-log.ts";
import { apiError, badRequest, internalError, unauthorized, validation } from "./errors.ts";
import { methodNotAllowed } from "./http.ts";
import { requireIdentity } from "./internal-auth.ts";
import type { Logger } from "./logger.ts";

export interface KeyIdentity {
  accountId: string;
  keyId: string | null;
  /** Set when a session (not an API key) authenticated the request; always set on "session" routes. */
  sessionId: string | null;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteInput<R extends RouteDef> {
  params: Parsed<R["params"]>;
  query: Parsed<R["query"]>;
  body: R["bodyParser"] extends z.ZodType ? z.output<R["bodyParser"]> : Parsed<R["body"]>;
  identity: R["auth"] extends "public" ? null : KeyIdentity;
  /** For what the record does not cover (the request's logger); the input above is already parsed. */
  req: Request;
  /** For extra headers only: the layer sends the result. */
  res: Response;
}

/** What a non-JSON route (a record without `response`) returns; sent as-is with the record's status. */
export interface RawReply {
  contentType: string;
  body: Buffer | string;
  headers?: Record<string, string>;
}

export type RouteResult<R extends RouteDef> = R["response"] extends z.ZodType
  ? z.input<R["response"]>
  : RawReply;

export type RouteHandler<R extends RouteDef> = (
  input: RouteInput<R>,
) => Promise<RouteResult<R>> | RouteResult<R>;

/** `MountedRoute` alone is a route of any record, for lists that mix them. */
// biome-ignore lint/suspicious/noExplicitAny: a handler's input differs per record, so lists need any
export interface MountedRoute<R extends RouteDef = any> {
  readonly def: R;
  readonly handler: RouteHandler<R>;
}

/** Pairs a record with its handler; the handler's types come from the record. */
export function route<R extends RouteDef>(def: R, handler: RouteHandler<R>): MountedRoute<R> {
  return { def, handler };
}

export interface MountOptions {
  /** Check every response against its record (default: responseValidationFrom(process.env)). */
  validateResponses?: boolean;
  /** Where a response that breaks its record is logged when the request has no logger of its own. */
  logger?: Logger;
}

const ON = new Set(["true", "1", "yes", "on"]);
const OFF = new Set(["false", "0", "no", "off"]);
const CHECKED_ENVIRONMENTS = new Set(["", "development", "test"]);

/**
 * VALIDATE_RESPONSES=true|false; when unset, on in development and tests (NODE_ENV unset, development
 * or test) and off otherwise, so production does not pay for a check the tests already made.
 */
export function responseValidationFrom(env: NodeJS.ProcessEnv): boolean {
  const explicit = env.VALIDATE_RESPONSES?.trim().toLowerCase();
  if (explicit && ON.has(explicit)) return true;
  if (explicit && OFF.has(explicit)) return false;
  if (explicit)
    throw new Error(`VALIDATE_RESPONSES: expected true or false, got "${env.VALIDATE_RESPONSES}"`);
  return CHECKED_ENVIRONMENTS.has(env.NODE_ENV?.trim() ?? "");
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
  const validate = options.validateResponses ?? responseValidationFrom(process.env);
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
      chain[method](handlerFor(mountedRoute, validate, options.logger));
    }
    chain.all(methodNotAllowed(onPath.map((r) => r.def.method)));
  }
  mounted.set(app, [...(mounted.get(app) ?? []), ...routes.map((r) => r.def)]);
}

/**
 * A total order in which, segment by segment, a fixed segment comes before a parameter (all
 * parameters alike), so any path that could be taken for a parameterised one is mounted first.
 */
function bySpecificity(a: string, b: string): number {
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

function parsePart(schema: z.ZodType | undefined, raw: unknown): unknown {
  if (!schema) return undefined;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw validation(parsed.error);
  return parsed.data;
}

function inputFor(def: RouteDef, req: Request, res: Response): RouteInput<RouteDef> {
  const identity = def.auth === "public" ? null : requireIdentity(res);
  if (def.auth === "session" && !identity?.sessionId)
    throw unauthorized("Sign in: this route needs a session");
  let params: unknown;
  if (def.params) {
    const parsed = def.params.safeParse(req.params);
    if (!parsed.success) {
      throw def.invalidParams
        ? apiError(def.invalidParams.code, def.invalidParams.message)
        : validation(parsed.error);
    }
    params = parsed.data;
  }
  const query = parsePart(def.query, req.query);
  const rejected = def.rejectBody?.(req.body);
  if (rejected !== undefined) throw badRequest(rejected);
  const body = parsePart(def.bodyParser ?? def.body, req.body);
  return { params, query, body, identity, req, res } as RouteInput<RouteDef>;
}

function handlerFor(
  { def, handler }: MountedRoute<RouteDef>,
  validate: boolean,
  fallbackLogger: Logger | undefined,
): (req: Request, res: Response) => Promise<void> {
  const name = `${def.method} ${def.path}`;
  const drift = (req: Request, problem: Record<string, unknown>) => {
    requestLog(req, fallbackLogger)?.error(
      { route: name, ...problem },
      "response does not match route schema",
    );
    return internalError();
  };
  // Express 5 passes a rejected promise to the error handler, which answers in the path's envelope.
  return async (req, res) => {
    const result = await handler(inputFor(def, req, res));
    if (def.response) {
      if (validate) {
        const checked = def.response.safeParse(result);
        if (!checked.success) throw drift(req, { issues: checked.error.issues });
      }
      res.status(def.status).json(result);
      return;
    }
    const reply = result as RawReply;
    if (validate && !def.produces?.includes(reply.contentType)) {
      throw drift(req, { contentType: reply.contentType, produces: def.produces ?? [] });
    }
    res.status(def.status);
    if (reply.headers) res.set(reply.headers);
    res.set("Content-Type", reply.contentType);
    res.send(reply.body);
  };
}
