// Helpers for the attack suite. Requests go out with node:http and the path exactly as written: fetch
// and URL would resolve dot segments and backslashes before sending, hiding the very paths under test.
import { request } from "node:http";
import type { Stack } from "@kurz/testing/stack";
import { expect } from "vitest";

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

/** Who a request speaks as: a session (its cookie, under `cookieName`, and CSRF token) and/or a key. */
export interface Caller {
  cookie?: string;
  /** The session cookie's name: `kurz_session` over plain http, `__Host-kurz_session` over https. */
  cookieName?: string;
  csrf?: string;
  key?: string;
}

/** A request through `origin` as `who`, with a JSON body when one is given. */
export function callAs(
  origin: string,
  method: string,
  path: string,
  who: Caller = {},
  body?: unknown,
): Promise<RawResponse> {
  const headers: Record<string, string> = {};
  if (who.cookie !== undefined) headers.cookie = `${who.cookieName ?? "kurz_session"}=${who.cookie}`;
  if (who.csrf !== undefined) headers["x-csrf-token"] = who.csrf;
  if (who.key !== undefined) headers.authorization = `Bearer ${who.key}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  return raw(origin, method, path, {
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
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

/** Rate limits high enough that an attack suite never trips them by accident. */
export const RELAXED_LIMITS = {
  RATE_LIMIT_PER_MINUTE: "100000",
  RATE_LIMIT_PER_HOUR: "1000000",
  LEGACY_RATE_LIMIT_PER_MINUTE: "100000",
};
