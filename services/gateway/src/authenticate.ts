// Who is calling the API: a Bearer key or a session cookie, checked against its budget, with the
// client's failed-authentication budget in front of both (docs/decisions/0021-sessions-and-csrf.md).
import type { IncomingMessage, ServerResponse } from "node:http";
import { CSRF_HEADER, ROLE_SCOPES, type SessionRecord, WORKSPACE_HEADER } from "@kurz/contracts";
import {
  AUTH_FAILURE_WINDOW,
  apiError,
  authFailureSubject,
  forbidden,
  type Identity,
  isApiError,
  type Logger,
  sessionCookie,
  sessionTokenFrom,
} from "@kurz/service-kit";
import type { ApiKeys } from "./api-keys.ts";
import type { Budgets } from "./budgets.ts";
import type { ClientHash } from "./client-hash.ts";
import type { GatewayConfig } from "./config.ts";
import type { KeyUsageRecorder } from "./key-usage.ts";
import type { RateLimiter, Window } from "./rate-limit.ts";
import { Sessions } from "./sessions.ts";

/**
 * The older API's routes a browser session may use: the resources the dashboard manages.
 * `/api/account/update` stays key-only: it changes the password without the current one, which a
 * session may only do through `/api/v1/account/password`.
 */
// Plain segments only: no dot segments or escapes that an upstream could resolve elsewhere.
const LEGACY_SESSION_RESOURCES = /^\/api\/(domains?|campaigns?|channels?|overlay)(\/[A-Za-z0-9_-]+)*\/?$/;
export const acceptsSessionOnLegacy = (path: string) => LEGACY_SESSION_RESOURCES.test(path);

/** Methods that change nothing: the only ones a session may use without its CSRF token. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The session's workspace for this request: the one `named` (X-Workspace-Id), else the user's first.
 * A workspace the user is not in answers 404 whether or not it exists. Every user has a workspace
 * (management gives one to whoever leaves their last), so a record without any is one read while
 * that change committed: 403 until the next lookup.
 */
function workspaceOf(record: SessionRecord, named: string | string[] | undefined) {
  // Node joins a repeated header into one string ("a, b"), which names no workspace.
  if (typeof named === "string" && named !== "") {
    const found = record.workspaces.find((w) => w.id === named.toLowerCase());
    if (!found) throw apiError("NOT_FOUND", "No such workspace", { hint: `Check ${WORKSPACE_HEADER}` });
    return found;
  }
  const first = record.workspaces[0];
  if (!first) throw forbidden("You belong to no workspace; create one or accept an invitation");
  return first;
}

/** The path of a request target, without its query. */
export const pathOf = (url: string) => url.split("?", 1)[0]!;

export interface AuthenticatorDeps {
  config: GatewayConfig;
  logger: Logger;
  keys: ApiKeys;
  sessions: Sessions;
  limiter: RateLimiter;
  keyUsage: KeyUsageRecorder;
}

export interface Authenticator {
  /** The caller's identity, its budget counted; throws 401, 403 (CSRF), 429 or 503. */
  authenticate(req: IncomingMessage, res: ServerResponse, legacy: boolean): Promise<Identity>;
  /** Reports the client's failed-authentication budget without spending it (a refused API path). */
  reportFailureBudget(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export function createAuthenticator(
  deps: AuthenticatorDeps,
  budgets: Budgets,
  clientHash: ClientHash,
): Authenticator {
  const { config } = deps;
  const { limiterDown, reportWindow, exceededError, enforceLimits } = budgets;
  // Failed authentications have a budget per client (hashed address), so a flood of made-up keys
  // costs neither a key lookup per request nor a management query per new key once it is spent.
  const authFailures: Window = { ...AUTH_FAILURE_WINDOW, limit: config.AUTH_FAILURE_LIMIT_PER_MINUTE };

  // A request without a valid key has no key whose budget could be counted, so its 401 (or 429) reports
  // the client's failed-authentication budget instead; 503s while keys cannot be checked report none.
  const authenticate = async (req: IncomingMessage, res: ServerResponse, legacy: boolean) => {
    const failSubject = authFailureSubject(clientHash(req));
    const budgetLeft = deps.limiter
      .peek(failSubject, authFailures)
      .catch(limiterDown)
      .then((spent) => {
        if (spent.count < spent.limit) return;
        reportWindow(res, { ...spent, remaining: 0 });
        throw exceededError(
          spent,
          legacy
            ? `Too many failed authentications: ${spent.limit} per minute from this client; retry later`
            : undefined,
        );
      });
    // Awaited below in every branch; this only keeps an early rejection from counting as unhandled.
    budgetLeft.catch(() => {});
    const countFailure = async (err: unknown): Promise<never> => {
      if (isApiError(err) && err.status === 401) {
        const [state] = await deps.limiter.hit(failSubject, [authFailures]).catch(() => []);
        if (state) reportWindow(res, state);
      }
      throw err;
    };
    // A session authenticates /api/v1 requests and the older API's domain, campaign, channel and
    // overlay routes (the dashboard manages them through the one store) that carry no
    // Authorization header; with one, the cookie is ignored (a key's request never takes on a
    // browser's identity).
    const sessionToken =
      (!legacy || acceptsSessionOnLegacy(pathOf(req.url ?? "/"))) && req.headers.authorization === undefined
        ? sessionTokenFrom(req.headers.cookie, { publicBaseUrl: config.PUBLIC_BASE_URL })
        : null;
    if (sessionToken !== null) {
      await budgetLeft;
      const session = await deps.sessions.authenticate(sessionToken).catch(countFailure);
      return authenticatedSession(req, res, session);
    }
    // The key's cache read goes out with the budget's peek, in one Redis round trip (auto-pipelining):
    // a round trip less per keyed request. A key the cache lacks is asked of management only once the
    // budget is known to be left, and a spent budget answers 429 whatever the key (as before).
    const lookup = deps.keys.authenticate(req.headers.authorization, Date.now(), budgetLeft);
    lookup.catch(() => {});
    await budgetLeft;
    const key = await lookup.catch(countFailure);
    deps.keyUsage.record(key.key_id);
    const windows: Window[] = legacy
      ? [{ name: "1m", seconds: 60, limit: config.LEGACY_RATE_LIMIT_PER_MINUTE }]
      : [
          { name: "1m", seconds: 60, limit: key.rate_limit_per_minute },
          { name: "1h", seconds: 3600, limit: key.rate_limit_per_hour },
        ];
    await enforceLimits(res, `${legacy ? "legacy" : "v1"}:${key.key_id}`, windows);
    return {
      accountId: key.account_id,
      keyId: key.key_id,
      userId: key.user_id,
      scopes: key.scopes,
      ...(key.two_factor_missing ? { twoFactorMissing: true } : {}),
    } satisfies Identity;
  };

  // A session's requests share one budget per user; a write must carry the session's CSRF token,
  // which a cross-site page cannot read or send (docs/decisions/0021-sessions-and-csrf.md). The
  // workspace is the one X-Workspace-Id names among the user's, else their first.
  const authenticatedSession = async (
    req: IncomingMessage,
    res: ServerResponse,
    session: Awaited<ReturnType<Sessions["authenticate"]>>,
  ): Promise<Identity> => {
    const { record } = session;
    const workspace = workspaceOf(record, req.headers[WORKSPACE_HEADER]);
    await enforceLimits(res, `session:${record.user_id}`, [
      { name: "1m", seconds: 60, limit: config.SESSION_RATE_LIMIT_PER_MINUTE },
    ]);
    if (!SAFE_METHODS.has(req.method ?? "") && !Sessions.csrfMatches(record, req.headers[CSRF_HEADER])) {
      throw forbidden("CSRF token missing or invalid");
    }
    if (session.renewedForSeconds !== undefined) {
      res.setHeader(
        "Set-Cookie",
        sessionCookie(session.token, session.renewedForSeconds, { publicBaseUrl: config.PUBLIC_BASE_URL }),
      );
    }
    return {
      accountId: workspace.id,
      keyId: null,
      sessionId: record.session_id,
      clientHash: clientHash(req),
      userId: record.user_id,
      scopes: ROLE_SCOPES[workspace.role],
      role: workspace.role,
      ...(workspace.two_factor_missing ? { twoFactorMissing: true } : {}),
    };
  };

  const reportFailureBudget = (req: IncomingMessage, res: ServerResponse) =>
    deps.limiter
      .peek(authFailureSubject(clientHash(req)), authFailures)
      .then((state) => reportWindow(res, state))
      .catch((err: unknown) => deps.logger.error({ err: String(err) }, "rate limiter unavailable"));

  return { authenticate, reportFailureBudget };
}
