// Every request the dashboard makes goes through `call`, typed and checked by the route records of
// packages/contracts (decision 0010): the path, the method, the body and query types, and the schema
// the answer is parsed with. Nothing here restates a wire shape. State-changing requests carry the
// session's CSRF token (docs/api.md, "Sessions"), and every request names the workspace the person
// chose, so a page never shows one workspace's data while another is picked.
import {
  CSRF_HEADER,
  ErrorEnvelope,
  LegacyErrorEnvelope,
  type RouteDef,
  WORKSPACE_HEADER,
} from "@kurz/contracts";
import type * as z from "zod";

type Schema<S> = S extends z.ZodType ? S : never;
type Input<R extends RouteDef> = {
  params?: R["params"] extends z.ZodType ? z.input<R["params"]> : never;
  query?: R["query"] extends z.ZodType ? z.input<R["query"]> : never;
  body?: R["body"] extends z.ZodType ? z.input<R["body"]> : never;
};
export type Output<R extends RouteDef> = z.output<Schema<R["response"]>>;

/** A refused request: the API's error code and message, or NETWORK/BAD_RESPONSE for the client's own. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;
/** Set from the session (sign-in, sign-up, GET /auth/session); cleared on sign-out. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

const WORKSPACE_KEY = "kurz.workspace";
/**
 * The chosen workspace, kept across visits and read at load; the session check confirms it (or falls
 * back to the first) before a page reads anything. null: the server's default (the user's first).
 */
let workspaceId: string | null = (() => {
  try {
    return localStorage.getItem(WORKSPACE_KEY);
  } catch {
    return null;
  }
})();
export const currentWorkspace = (): string | null => workspaceId;
export function setWorkspace(id: string | null): void {
  workspaceId = id;
  try {
    if (id) localStorage.setItem(WORKSPACE_KEY, id);
    else localStorage.removeItem(WORKSPACE_KEY);
  } catch {
    // Storage refused (a private window's quota): the choice lasts this visit only.
  }
}
/** The header naming the chosen workspace, for every request to the API. */
export const workspaceHeaders = (): Record<string, string> =>
  workspaceId ? { [WORKSPACE_HEADER]: workspaceId } : {};

let onUnauthorized: (() => void) | null = null;
/** Called when a session request answers 401: the session ended elsewhere or expired. */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

/** `/api/v1/links/:id` with `{id}` → `/api/v1/links/<id>`, each value encoded as one segment. */
export function pathOf(route: RouteDef, params?: Record<string, string>): string {
  return route.path.replace(/:([a-z_]+)/g, (_m, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

export function queryString(query?: Record<string, unknown>): string {
  if (!query) return "";
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}

export function urlOf<R extends RouteDef>(route: R, input: Input<R> = {}): string {
  return (
    pathOf(route, input.params as Record<string, string> | undefined) +
    queryString(input.query as Record<string, unknown> | undefined)
  );
}

export async function call<R extends RouteDef>(route: R, input: Input<R> = {}): Promise<Output<R>> {
  const headers: Record<string, string> = { accept: "application/json", ...workspaceHeaders() };
  if (route.method !== "GET" && csrfToken) headers[CSRF_HEADER] = csrfToken;
  let body: string | undefined;
  if (input.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(input.body);
  }
  return send(route, urlOf(route, input), headers, body);
}

/**
 * Sends one request for `route` and reads its answer: the response parsed with the route's schema, or
 * an ApiFailure with the API's error (v1's envelope or the older API's `{error: 1, message}`). A 401 on a
 * route that needs the session means the session ended. `call` (JSON bodies) and `upload` (a file) say
 * what is sent.
 */
export async function send<R extends RouteDef>(
  route: R,
  url: string,
  headers: Record<string, string>,
  body?: BodyInit,
): Promise<Output<R>> {
  let res: Response;
  try {
    res = await fetch(url, { method: route.method, headers, body, credentials: "same-origin" });
  } catch {
    throw new ApiFailure(
      0,
      "NETWORK",
      "The server could not be reached. Check your connection and try again.",
    );
  }
  const json: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const parsed = ErrorEnvelope.safeParse(json);
    // The older API's routes (domains, campaigns, channels, overlays) answer `{error: 1, message}`.
    const legacy = LegacyErrorEnvelope.safeParse(json);
    const failure = legacy.success
      ? new ApiFailure(res.status, "LEGACY_ERROR", legacy.data.message)
      : parsed.success
        ? new ApiFailure(
            res.status,
            parsed.data.error.code,
            parsed.data.error.message,
            parsed.data.error.details,
          )
        : new ApiFailure(res.status, "BAD_RESPONSE", `The server answered ${res.status}.`);
    if (res.status === 401 && route.auth !== "public") onUnauthorized?.();
    throw failure;
  }
  if (!route.response) throw new Error(`${route.path} has no JSON response`);
  const parsed = (route.response as z.ZodType).safeParse(json);
  if (!parsed.success)
    throw new ApiFailure(res.status, "BAD_RESPONSE", "The server sent an unexpected answer.");
  return parsed.data as Output<R>;
}

/** The validation messages of one field from a VALIDATION_ERROR's formatted tree. */
export function fieldError(err: unknown, field: string): string | undefined {
  if (!(err instanceof ApiFailure) || err.code !== "VALIDATION_ERROR") return undefined;
  const node = err.details?.[field] as { _errors?: string[] } | undefined;
  return node?._errors?.join(" ") || undefined;
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : "Something went wrong.";
}
