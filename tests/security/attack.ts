// Helpers for the attack suite. Requests go out with node:http and the path exactly as written: fetch
// and URL would resolve dot segments and backslashes before sending, hiding the very paths under test.
import { request } from "node:http";
import { waitFor } from "@kurz/testing";
import { type Stack, type StackOptions, startStack } from "@kurz/testing/stack";
import { type StackFixture, useStack } from "@kurz/testing/use-stack";
import { beforeAll, beforeEach, expect } from "vitest";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: attacks assert on the shape member by member
  body: any;
}

/** Sends `method rawPath` to `origin` byte for byte (no normalisation), with optional headers and body. */
export function raw(
  origin: string,
  method: string,
  rawPath: string,
  opts: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: rawPath,
        headers: {
          ...(opts.body !== undefined ? { "content-length": String(Buffer.byteLength(opts.body)) } : {}),
          ...opts.headers,
        },
        // A fresh connection per attack: one refused request must not poison the next one's socket.
        agent: false,
        insecureHTTPParser: true,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.setTimeout(15_000, () => req.destroy(new Error(`timeout: ${method} ${rawPath}`)));
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

export const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

/** A JSON call through the public origin with an API key (path is sent as written). */
export function api(stack: Stack, apiKey: string) {
  return (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    raw(stack.origin, method, path, {
      headers: {
        ...bearer(apiKey),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
    });
}

/** The v1 error envelope exactly, with the given status and code. */
export function expectV1Error(res: RawResponse, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body?.success, res.text).toBe(false);
  expect(res.body.error.code, res.text).toBe(code);
  expect(typeof res.body.error.message).toBe("string");
}

/** The legacy error envelope exactly: `{ error: 1, message }`. */
export function expectLegacyError(res: RawResponse, status: number): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body?.error, res.text).toBe(1);
  expect(typeof res.body.message).toBe("string");
}

let seq = 0;
export const uniqueEmail = (tag: string) =>
  `${tag}-${process.pid}-${Date.now().toString(36)}-${++seq}@example.test`;

/**
 * Who a request speaks as: a session (its cookie, under `cookieName`, and CSRF token) and/or a key,
 * with any other `headers` it sends.
 */
export interface Caller {
  cookie?: string;
  /** The session cookie's name: `kurz_session` over plain http, `__Host-kurz_session` over https. */
  cookieName?: string;
  csrf?: string;
  key?: string;
  headers?: Record<string, string>;
}

/**
 * A request through `origin` as `who`, with a body when one is given: an object as JSON, a string as
 * written (JSON unless `who.headers` names another content type).
 */
export function callAs(
  origin: string,
  method: string,
  path: string,
  who: Caller = {},
  body?: unknown,
): Promise<RawResponse> {
  const headers: Record<string, string> = { ...who.headers };
  if (who.cookie !== undefined) headers.cookie = `${who.cookieName ?? "kurz_session"}=${who.cookie}`;
  if (who.csrf !== undefined) headers["x-csrf-token"] = who.csrf;
  if (who.key !== undefined) headers.authorization = `Bearer ${who.key}`;
  if (body !== undefined) headers["content-type"] ??= "application/json";
  return raw(origin, method, path, {
    headers,
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
}

/** A response's Set-Cookie headers as one string (Node gives an array when there are several). */
export const setCookieOf = (res: RawResponse): string => {
  const header = res.headers["set-cookie"];
  return Array.isArray(header) ? header.join("\n") : (header ?? "");
};

/** The session cookie's value a response sets over plain http (`kurz_session`), or "". */
export const sessionTokenOf = (res: RawResponse): string =>
  /kurz_session=([^;]*)/.exec(setCookieOf(res))?.[1] ?? "";

/** An account made by signing up through the public origin, as a person does: its session and key. */
export interface Owner {
  email: string;
  password: string;
  accountId: string;
  key: string;
  /** The session cookie's value (`kurz_session` over plain http). */
  token: string;
  csrf: string;
}

export async function registerOwner(
  origin: string,
  tag: string,
  password = `pw-${tag}-long-enough`,
): Promise<Owner> {
  const email = uniqueEmail(tag);
  const res = await raw(origin, "POST", "/api/v1/auth/register", {
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  expect(res.status, res.text).toBe(201);
  return {
    email,
    password,
    accountId: res.body.data.account.id,
    key: res.body.data.api_key.key,
    token: sessionTokenOf(res),
    csrf: res.body.data.session.csrf_token,
  };
}

/** Two accounts on one stack: the attacker and the victim. */
export async function attackerAndVictim(stack: Stack, tag: string) {
  const [attacker, victim] = await Promise.all([
    stack.createAccount(uniqueEmail(`${tag}-attacker`)),
    stack.createAccount(uniqueEmail(`${tag}-victim`)),
  ]);
  return { attacker, victim, asAttacker: api(stack, attacker.api_key), asVictim: api(stack, victim.api_key) };
}

/**
 * attackerAndVictim on the fixture's stack, made in beforeAll once the stack is up; its members read
 * as the pair's from then on.
 */
export function useAttackerAndVictim(bed: Pick<StackFixture, "stack">, tag: string) {
  let pair: Awaited<ReturnType<typeof attackerAndVictim>> | undefined;
  beforeAll(async () => {
    pair = await attackerAndVictim(bed.stack, tag);
  });
  const made = () => {
    if (!pair) throw new Error("the attacker and the victim are not made yet (useAttackerAndVictim)");
    return pair;
  };
  return {
    get attacker() {
      return made().attacker;
    },
    get victim() {
      return made().victim;
    },
    get asAttacker() {
      return made().asAttacker;
    },
    get asVictim() {
      return made().asVictim;
    },
  };
}

/** Rate limits high enough that an attack suite never trips them by accident. */
export const RELAXED_LIMITS = {
  RATE_LIMIT_PER_MINUTE: "100000",
  RATE_LIMIT_PER_HOUR: "1000000",
  LEGACY_RATE_LIMIT_PER_MINUTE: "100000",
};

/**
 * The gateway's own per-client budgets (sign-in requests, failed authentications) out of reach: every
 * request of a test file comes from one address, and they must not answer for management's.
 */
export const ONE_CLIENT_AUTH_LIMITS = {
  AUTH_RATE_LIMIT_PER_MINUTE: "100000",
  AUTH_FAILURE_LIMIT_PER_MINUTE: "100000",
};

type Env = Record<string, string>;

/**
 * The file's stack (useStack) with RELAXED_LIMITS, then `extraEnv`: an object, or a function read when
 * the stack starts (for what an earlier beforeAll set up, such as a DNS server's address).
 */
export function useAttackStack(
  extraEnv: Env | (() => Env) = {},
  opts: Omit<StackOptions, "extraEnv"> = {},
): StackFixture {
  return useStack(() =>
    startStack({
      ...opts,
      extraEnv: { ...RELAXED_LIMITS, ...(typeof extraEnv === "function" ? extraEnv() : extraEnv) },
    }),
  );
}

/**
 * Each test starts with unspent sign-in budgets: they count per account and per client, and a test
 * file is one client, so an attack that spends them must not decide the next one's answers.
 */
function freshSignInBudgets(bed: StackFixture): void {
  beforeEach(async () => {
    const prefix = bed.stack.env.REDIS_KEY_PREFIX!;
    const keys = await bed.redis.keys(`${prefix}signin-fail:*`);
    if (keys.length > 0) await bed.redis.del(...keys.map((k) => k.slice(prefix.length)));
  });
}

/**
 * The stack of a file that attacks sessions: useAttackStack with ONE_CLIENT_AUTH_LIMITS, then
 * `extraEnv`; each test starting with fresh sign-in budgets; and sessionCalls on it (`defaults`).
 */
export function useSessionStack(
  extraEnv: Env = {},
  opts: Omit<StackOptions, "extraEnv"> = {},
  defaults: Caller = {},
) {
  const bed = useAttackStack({ ...ONE_CLIENT_AUTH_LIMITS, ...extraEnv }, opts);
  freshSignInBudgets(bed);
  return { bed, ...sessionCalls(bed, defaults) };
}

/** callAs and registerOwner on the fixture's stack, `who` completed by `defaults` (a cookie name). */
export function sessionCalls(bed: Pick<StackFixture, "stack">, defaults: Caller = {}) {
  const call = (method: string, path: string, who: Caller = {}, body?: unknown) =>
    callAs(bed.stack.origin, method, path, { ...defaults, ...who }, body);
  return {
    call,
    /** The older API's account update (`password`, `email`), as `who` (a key, or a session). */
    updateAccount: (who: Caller, body: { password?: string; email?: string }) =>
      call("PUT", "/api/account/update", who, body),
    register: (tag: string, password?: string): Promise<Owner> =>
      registerOwner(bed.stack.origin, tag, password),
  };
}

/**
 * Imports through the public origin of the fixture's stack: `upload` sends a file (CSV unless `type`
 * says otherwise; `query` such as `?fetch_titles=true`), `completed` polls the job until it completes
 * (bounded: `timeoutMs`) and gives its answer's data, `imported` does both.
 */
export function importCalls(bed: Pick<StackFixture, "stack">, timeoutMs = 20_000) {
  type UploadOptions = { query?: string; type?: string };
  const upload = (apiKey: string, body: string | Buffer, opts: UploadOptions = {}) =>
    raw(bed.stack.origin, "POST", `/api/v1/imports${opts.query ?? ""}`, {
      headers: { ...bearer(apiKey), "content-type": opts.type ?? "text/csv" },
      body,
    });
  const completed = (apiKey: string, id: string) =>
    waitFor(
      async () => {
        const res = await raw(bed.stack.origin, "GET", `/api/v1/imports/${id}`, { headers: bearer(apiKey) });
        return res.body?.data?.status === "completed" ? res.body.data : null;
      },
      { timeoutMs, intervalMs: 100, description: `import ${id} completed` },
    );
  return {
    upload,
    completed,
    imported: async (apiKey: string, body: string | Buffer, opts: UploadOptions = {}) => {
      const res = await upload(apiKey, body, opts);
      expect(res.status, res.text).toBe(202);
      return completed(apiKey, res.body.data.id as string);
    },
  };
}
