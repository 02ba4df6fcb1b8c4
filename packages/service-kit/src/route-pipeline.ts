// The one pipeline every route record runs through (docs/decisions/0010-routes-declared-once.md):
// identity, session, params, query, body, the handler, then the response check. Its transports are
// thin: Express (routes.ts) and the plain node:http fast path (direct-routes.ts) each authenticate the
// hop from the gateway their own way, hand over the identity and the raw parts, and send what comes
// back. So both answer a route alike, error for error.
import type { Readable } from "node:stream";
import { type Role, type RouteDef, type Scope, scopeOf } from "@kurz/contracts";
import type { Request, Response } from "express";
import type * as z from "zod";
import { requestLog } from "./access-log.ts";
import { apiError, badRequest, internalError, unauthorized, validation } from "./errors.ts";
import type { Identity } from "./internal-auth.ts";
import type { Logger } from "./logger.ts";
import { labelRoute } from "./metrics.ts";
import { withRequestCaller } from "./request-caller.ts";

export interface KeyIdentity {
  /** The workspace the request acts in. */
  accountId: string;
  keyId: string | null;
  /** Set when a session (not an API key) authenticated the request; always set on "session" routes. */
  sessionId: string | null;
  /** The user acting: the session's, or the key's creator; null when a key's creator is gone. */
  userId: string | null;
  /** What the caller may do in the workspace; the route's own scope is already checked. */
  scopes: readonly Scope[];
  /** The session's role in the workspace; null with a key. */
  role: Role | null;
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
  /** A stream is piped as it is produced (exports); an error after the first byte aborts the response. */
  body: Buffer | string | Readable;
  headers?: Record<string, string>;
}

/** A JSON route that also `produces` another media type (CSV) may answer either. */
export type RouteResult<R extends RouteDef> = R["response"] extends z.ZodType
  ? z.input<R["response"]> | (R["produces"] extends readonly string[] ? RawReply : never)
  : RawReply;

/** Whether `result` is a raw reply: always on a route without `response`, else one it `produces`. */
export function isRawReply(def: RouteDef, result: unknown): result is RawReply {
  if (!def.response) return true;
  if (!def.produces || typeof result !== "object" || result === null) return false;
  const { contentType } = result as Partial<RawReply>;
  return typeof contentType === "string" && def.produces.includes(contentType);
}

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

/** What a transport hands the pipeline: the request as it arrived, before any parsing. */
export interface RouteRequest {
  /**
   * Who the gateway says is calling, once the transport has checked the forwarding credential;
   * undefined when it has none (only a public route may then answer).
   */
  identity: Identity | undefined;
  params: unknown;
  query: unknown;
  /** The body as the transport's JSON (or raw) reader produced it; undefined when there is none. */
  body: unknown;
  req: Request;
  res: Response;
}

export interface ResponseCheck {
  /** Check every response against its record (see responseValidationFrom). */
  validate: boolean;
  /** Where a response that breaks its record is logged when the request has no logger of its own. */
  logger?: Logger;
}

function parsePart(schema: z.ZodType | undefined, raw: unknown): unknown {
  if (!schema) return undefined;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw validation(parsed.error);
  return parsed.data;
}

/**
 * The caller a route acts for: none on a public route, else a workspace (and a session if it needs
 * one), holding the scope the route needs (403 FORBIDDEN naming it otherwise).
 */
function identityFor(def: RouteDef, identity: Identity | undefined): KeyIdentity | null {
  if (def.auth === "public") return null;
  if (!identity?.accountId) throw unauthorized("No account identity on this request");
  if (def.auth === "session" && !identity.sessionId)
    throw unauthorized("Sign in: this route needs a session");
  const scopes = identity.scopes ?? [];
  const role = identity.role ?? null;
  const needed = scopeOf(def);
  if (needed !== null && identity.twoFactorMissing) {
    throw apiError(
      "TWO_FACTOR_REQUIRED",
      identity.sessionId
        ? "This workspace requires two-factor sign-in: add an authenticator app or a passkey (Settings → Security)"
        : "This workspace requires two-factor sign-in, and this key's creator has no second factor",
      { enrol: "/api/v1/auth/two-factor/totp" },
    );
  }
  if (needed !== null && !scopes.includes(needed)) {
    throw apiError(
      "FORBIDDEN",
      role !== null
        ? `Your role in this workspace (${role}) does not allow this: it needs ${needed}`
        : `This API key lacks the scope ${needed}`,
      { required_scope: needed },
    );
  }
  return {
    accountId: identity.accountId,
    keyId: identity.keyId,
    sessionId: identity.sessionId ?? null,
    userId: identity.userId ?? null,
    scopes,
    role,
  };
}

/** The handler's input, parsed by the record: identity first, then params, query and body. */
function inputFor(def: RouteDef, request: RouteRequest): RouteInput<RouteDef> {
  const identity = identityFor(def, request.identity);
  let params: unknown;
  if (def.params) {
    const parsed = def.params.safeParse(request.params);
    if (!parsed.success) {
      throw def.invalidParams
        ? apiError(def.invalidParams.code, def.invalidParams.message)
        : validation(parsed.error);
    }
    params = parsed.data;
  }
  const query = parsePart(def.query, request.query);
  // The record's own refusal comes before its schema (a link's immutable fields answer 400, not 422).
  const rejected = def.rejectBody?.(request.body);
  if (rejected !== undefined) throw badRequest(rejected);
  const body = parsePart(def.bodyParser ?? def.body, request.body);
  const { req, res } = request;
  return { params, query, body, identity, req, res } as RouteInput<RouteDef>;
}

/**
 * Runs `route` on `request`: its parsed input to its handler, and the result checked against the
 * record (a JSON route's schema, a raw route's media types) when `check.validate`. A result that
 * breaks its record is logged and answered 500 INTERNAL_ERROR; the transport sends any other.
 */
export async function runRoute(
  { def, handler }: MountedRoute<RouteDef>,
  request: RouteRequest,
  check: ResponseCheck,
): Promise<unknown> {
  labelRoute(request.res, def.path);
  const input = inputFor(def, request);
  // Who acts, where from: read by the audit log deep in the use cases (request-caller.ts).
  const result = await withRequestCaller(request.identity, () => handler(input));
  if (!check.validate) return result;
  if (def.response && !isRawReply(def, result)) {
    const checked = def.response.safeParse(result);
    if (!checked.success) throw drift(def, request, check, { issues: checked.error.issues });
  } else {
    const { contentType } = result as RawReply;
    if (!def.produces?.includes(contentType)) {
      throw drift(def, request, check, { contentType, produces: def.produces ?? [] });
    }
  }
  return result;
}

function drift(def: RouteDef, { req }: RouteRequest, check: ResponseCheck, problem: Record<string, unknown>) {
  requestLog(req, check.logger)?.error(
    { route: `${def.method} ${def.path}`, ...problem },
    "response does not match route schema",
  );
  return internalError();
}
