/**
 * Credentials between services (docs/security.md, "Edges, paths and internal credentials").
 *
 * One secret (INTERNAL_TOKEN) is configured everywhere, but it is never sent and unlocks
 * nothing by itself. Each use gets its own credential derived from it with HMAC-SHA256:
 * - a caller credential per service (`callerToken`) for `/internal/*` calls made on nobody's
 *   behalf, accepted only by the routes that list that caller (`requireCaller`);
 * - one forwarding credential (`forwardToken`), which only the gateway sends, beside the
 *   end-user identity headers, when it forwards a user's request to `/api/*`
 *   (`requireForwarded`).
 * An `/internal/*` route refuses any request carrying end-user identity or the forwarding
 * credential, so a user request that reaches it (a traversal, a confused proxy) acts as nobody.
 *
 * The operators' routes (`/internal/admin/*`) take a credential of their own, ADMIN_TOKEN, configured
 * on management only and derived from nothing (`requireAdmin`): INTERNAL_TOKEN is held by every
 * service, the public-facing redirect included, so no credential derived from it may change an
 * account's limits.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import {
  ADMIN_TOKEN_MIN_LENGTH,
  INTERNAL_HEADERS,
  type InternalCaller,
  ROLES,
  type Role,
  SCOPES,
  type Scope,
} from "@kurz/contracts";
import type { RequestHandler, Response } from "express";
import { forbidden, unauthorized } from "./errors.ts";

/** Carries a caller credential (`callerToken`) on `/internal/*` calls. */
export const INTERNAL_TOKEN_HEADER = INTERNAL_HEADERS.token;
/** Names the calling service; informational (logs), the token is what proves it. */
export const CALLER_HEADER = INTERNAL_HEADERS.caller;
/** Carries the forwarding credential (`forwardToken`) on requests the gateway forwards. */
export const FORWARD_TOKEN_HEADER = INTERNAL_HEADERS.forwardToken;
export const ACCOUNT_ID_HEADER = INTERNAL_HEADERS.accountId;
export const KEY_ID_HEADER = INTERNAL_HEADERS.keyId;
export const SESSION_ID_HEADER = INTERNAL_HEADERS.sessionId;
export const USER_ID_HEADER = INTERNAL_HEADERS.userId;
export const SCOPES_HEADER = INTERNAL_HEADERS.scopes;
export const ROLE_HEADER = INTERNAL_HEADERS.role;
export const TWO_FACTOR_HEADER = INTERNAL_HEADERS.twoFactor;
export const DEVICE_HEADER = INTERNAL_HEADERS.device;
export const CLIENT_HASH_HEADER = INTERNAL_HEADERS.clientHash;
export const IP_PREFIX_HEADER = INTERNAL_HEADERS.ipPrefix;
export const AGENT_HEADER = INTERNAL_HEADERS.agent;
/** Carries the operators' credential (ADMIN_TOKEN) on `/internal/admin/*`. */
export const ADMIN_TOKEN_HEADER = INTERNAL_HEADERS.adminToken;

export type Caller = InternalCaller;

const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);
const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);
export const CALLERS: readonly Caller[] = ["gateway", "redirect", "analytics", "management"];

/** Who the gateway says is calling; null on internal calls made on nobody's behalf. */
export interface Identity {
  accountId: string | null;
  keyId: string | null;
  /** The session that authenticated the request; null with an API key. */
  sessionId?: string | null;
  /** Keyed hash of the client's address (client-budget.ts), for per-client budgets upstream. */
  clientHash?: string | null;
  /** The user acting: a session's, or a key's creator (null once they are gone). */
  userId?: string | null;
  /** What the caller may do in the account's workspace; the route pipeline checks each route's. */
  scopes?: readonly Scope[];
  /** A session's role in the workspace; null with a key. */
  role?: Role | null;
  /** On sign-up and sign-in: the browser's device token (session-cookie.ts's deviceTokenFrom). */
  device?: string | null;
  /**
   * The workspace requires two-factor sign-in and the user has no second factor: only routes that
   * need no scope (the user's own, enrolment among them) may answer.
   */
  twoFactorMissing?: boolean;

  /** The client address's /24 or /48 prefix (the audit log's; the address itself stays at the gateway). */
  ipPrefix?: string | null;
  /** The client's user-agent family, e.g. "Chrome on macOS" (the audit log's). */
  agent?: string | null;
}

// A process holds one secret and a handful of labels, and the gateway derives the forwarding
// credential on every request: each derivation is made once (an HMAC was ~3% of the gateway's CPU).
const derived = new Map<string, string>();

const derive = (secret: string, label: string): string => {
  if (secret === "") throw new Error("internal-auth: the INTERNAL_TOKEN secret must not be empty");
  const memo = `${label}\u0000${secret}`;
  let token = derived.get(memo);
  if (token === undefined) {
    token = createHmac("sha256", secret).update(label).digest("hex");
    // Tests derive from many secrets; a process in service holds a few entries.
    if (derived.size > 64) derived.clear();
    derived.set(memo, token);
  }
  return token;
};

/** The credential `caller` presents on `/internal/*` (hex HMAC-SHA256 of `kurz-internal:<caller>`). */
export function callerToken(secret: string, caller: Caller): string {
  return derive(secret, `kurz-internal:${caller}`);
}

/** The credential the gateway presents when it forwards a user's request (HMAC of `kurz-forward`). */
export function forwardToken(secret: string): string {
  return derive(secret, "kurz-forward");
}

/** Headers for a call to another service's `/internal/*` made on nobody's behalf. */
export function internalHeaders(secret: string, caller: Caller): Record<string, string> {
  return { [INTERNAL_TOKEN_HEADER]: callerToken(secret, caller), [CALLER_HEADER]: caller };
}

/** Headers the gateway adds to a forwarded user request (tests use it to stand in for the gateway). */
export function forwardedHeaders(secret: string, identity: Partial<Identity> = {}): Record<string, string> {
  const headers: Record<string, string> = { [FORWARD_TOKEN_HEADER]: forwardToken(secret) };
  if (identity.accountId) headers[ACCOUNT_ID_HEADER] = identity.accountId;
  if (identity.keyId) headers[KEY_ID_HEADER] = identity.keyId;
  if (identity.sessionId) headers[SESSION_ID_HEADER] = identity.sessionId;
  if (identity.clientHash) headers[CLIENT_HASH_HEADER] = identity.clientHash;
  if (identity.userId) headers[USER_ID_HEADER] = identity.userId;
  if (identity.scopes) headers[SCOPES_HEADER] = identity.scopes.join(",");
  if (identity.role) headers[ROLE_HEADER] = identity.role;
  if (identity.device) headers[DEVICE_HEADER] = identity.device;
  if (identity.twoFactorMissing) headers[TWO_FACTOR_HEADER] = "missing";

  if (identity.ipPrefix) headers[IP_PREFIX_HEADER] = identity.ipPrefix;
  if (identity.agent) headers[AGENT_HEADER] = identity.agent;
  return headers;
}

// Hashing first makes both sides the same length, so the comparison leaks neither
// the token's content nor its length.
const digest = (value: string) => createHash("sha256").update(value).digest();
// The expected side is one of the few derived credentials: its digest is made once, like the credential.
const expectedDigests = new Map<string, Buffer>();
const expectedDigest = (expected: string): Buffer => {
  let d = expectedDigests.get(expected);
  if (d === undefined) {
    d = digest(expected);
    if (expectedDigests.size > 64) expectedDigests.clear();
    expectedDigests.set(expected, d);
  }
  return d;
};
const sameSecret = (presented: string, expected: string) =>
  timingSafeEqual(digest(presented), expectedDigest(expected));

function singleHeader(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === "string" && value !== "" ? value : null;
}

export function identityFrom(req: IncomingMessage): Identity {
  const identity: Identity = {
    accountId: singleHeader(req, ACCOUNT_ID_HEADER),
    keyId: singleHeader(req, KEY_ID_HEADER),
  };
  const sessionId = singleHeader(req, SESSION_ID_HEADER);
  if (sessionId !== null) identity.sessionId = sessionId;
  const clientHash = singleHeader(req, CLIENT_HASH_HEADER);
  if (clientHash !== null) identity.clientHash = clientHash;
  const userId = singleHeader(req, USER_ID_HEADER);
  if (userId !== null) identity.userId = userId;
  const scopes = singleHeader(req, SCOPES_HEADER);
  // Unknown names are dropped: a scope this build does not know grants nothing here.
  identity.scopes = scopes === null ? [] : scopes.split(",").filter(isScope);
  const role = singleHeader(req, ROLE_HEADER);
  if (role !== null && isRole(role)) identity.role = role;
  const device = singleHeader(req, DEVICE_HEADER);
  if (device !== null) identity.device = device;
  if (singleHeader(req, TWO_FACTOR_HEADER) === "missing") identity.twoFactorMissing = true;

  const ipPrefix = singleHeader(req, IP_PREFIX_HEADER);
  if (ipPrefix !== null) identity.ipPrefix = ipPrefix;
  const agent = singleHeader(req, AGENT_HEADER);
  if (agent !== null) identity.agent = agent;
  return identity;
}

/** True when the request carries the gateway's forwarding credential. */
export function hasForwardToken(req: IncomingMessage, secret: string): boolean {
  const presented = singleHeader(req, FORWARD_TOKEN_HEADER);
  return presented !== null && sameSecret(presented, forwardToken(secret));
}

function matchCaller(req: IncomingMessage, expected: readonly (readonly [Caller, string])[]): Caller | null {
  const presented = singleHeader(req, INTERNAL_TOKEN_HEADER);
  if (presented === null) return null;
  let match: Caller | null = null;
  // Compare against every allowed caller so the time taken does not reveal which one matched.
  for (const [caller, token] of expected) if (sameSecret(presented, token)) match = caller;
  return match;
}

const carriesUserContext = (req: IncomingMessage) =>
  req.headers[ACCOUNT_ID_HEADER] !== undefined ||
  req.headers[KEY_ID_HEADER] !== undefined ||
  req.headers[SESSION_ID_HEADER] !== undefined ||
  req.headers[USER_ID_HEADER] !== undefined ||
  req.headers[SCOPES_HEADER] !== undefined ||
  req.headers[ROLE_HEADER] !== undefined ||
  req.headers[TWO_FACTOR_HEADER] !== undefined ||
  req.headers[FORWARD_TOKEN_HEADER] !== undefined;

/**
 * Guards `/internal/*` routes: only the listed callers' credentials pass (401 otherwise), and a
 * request that carries end-user identity or the forwarding credential is refused (403) whatever
 * else it presents. Sets `res.locals.caller` and a null `res.locals.identity`.
 */
export function requireCaller(secret: string, allowed: Caller[]): RequestHandler {
  if (secret === "") throw new Error("requireCaller: the internal token must not be empty");
  if (allowed.length === 0) throw new Error("requireCaller: name at least one caller");
  const expected = allowed.map((caller) => [caller, callerToken(secret, caller)] as const);
  return (req, res, next) => {
    if (carriesUserContext(req)) {
      next(forbidden("Internal endpoints do not act on behalf of users"));
      return;
    }
    const caller = matchCaller(req, expected);
    if (caller === null) {
      next(unauthorized("Missing or invalid internal credential"));
      return;
    }
    res.locals.caller = caller;
    res.locals.identity = { accountId: null, keyId: null } satisfies Identity;
    next();
  };
}

/**
 * Guards the user-facing routes of internal services (`/api/*` behind the gateway): only the
 * gateway's forwarding credential passes (401 otherwise); the identity headers that come with it
 * land on `res.locals.identity`. Caller credentials and the raw secret are not accepted here.
 */
export function requireForwarded(secret: string): RequestHandler {
  if (secret === "") throw new Error("requireForwarded: the internal token must not be empty");
  const expected = forwardToken(secret);
  return (req, res, next) => {
    const presented = singleHeader(req, FORWARD_TOKEN_HEADER);
    if (presented === null || !sameSecret(presented, expected)) {
      next(unauthorized("Missing or invalid internal token"));
      return;
    }
    res.locals.identity = identityFrom(req);
    next();
  };
}

/**
 * The caller's account on a route behind requireForwarded, or 401 when the gateway sent none.
 * (No global `res.locals` typing: services keep their own view of locals.)
 */
export function requireIdentity(res: Response): {
  accountId: string;
  keyId: string | null;
  sessionId: string | null;
} {
  const identity = res.locals.identity as Identity | undefined;
  if (!identity?.accountId) throw unauthorized("No account identity on this request");
  return { accountId: identity.accountId, keyId: identity.keyId, sessionId: identity.sessionId ?? null };
}

/** The browser's device token the gateway sent with a sign-up or sign-in, on a route behind requireForwarded. */
export function deviceOf(res: Response): string | null {
  return (res.locals.identity as Identity | undefined)?.device ?? null;
}

/** The keyed hash of the client's address the gateway sent, on a route behind requireForwarded. */
export function clientHashOf(res: Response): string | null {
  return (res.locals.identity as Identity | undefined)?.clientHash ?? null;
}

/**
 * Why `adminToken` cannot be the operators' credential, or null: it must be long, and distinct from
 * INTERNAL_TOKEN and from every credential derived from it (those are held or presented by services).
 */
export function adminTokenProblem(adminToken: string, internalSecret: string): string | null {
  if (adminToken.length < ADMIN_TOKEN_MIN_LENGTH) {
    return `must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters (a long random secret)`;
  }
  const serviceCredentials = [
    internalSecret,
    forwardToken(internalSecret),
    ...CALLERS.map((caller) => callerToken(internalSecret, caller)),
  ];
  if (serviceCredentials.includes(adminToken)) {
    return "must differ from INTERNAL_TOKEN and from every credential derived from it";
  }
  return null;
}

/**
 * Guards `/internal/admin/*`: only ADMIN_TOKEN, presented in its own header, passes (401 otherwise).
 * A request carrying end-user identity, the forwarding credential or a service's caller credential
 * is refused (403) whatever else it presents, and with no ADMIN_TOKEN configured the routes are off
 * (403). Sets `res.locals.caller` to "admin" and a null `res.locals.identity`.
 */
export function requireAdmin(adminToken: string | undefined, internalSecret: string): RequestHandler {
  if (adminToken !== undefined) {
    const problem = adminTokenProblem(adminToken, internalSecret);
    if (problem !== null) throw new Error(`requireAdmin: ADMIN_TOKEN ${problem}`);
  }
  return (req, res, next) => {
    if (carriesUserContext(req) || req.headers[INTERNAL_TOKEN_HEADER] !== undefined) {
      next(forbidden("Admin endpoints take the admin credential only, never a user's or a service's"));
      return;
    }
    if (adminToken === undefined) {
      next(forbidden("The admin endpoints are off: management has no ADMIN_TOKEN"));
      return;
    }
    const presented = singleHeader(req, ADMIN_TOKEN_HEADER);
    if (presented === null || !sameSecret(presented, adminToken)) {
      next(unauthorized("Missing or invalid admin credential"));
      return;
    }
    res.locals.caller = "admin";
    res.locals.identity = { accountId: null, keyId: null } satisfies Identity;
    next();
  };
}
