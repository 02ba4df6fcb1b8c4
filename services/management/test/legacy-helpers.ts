// Shared by the legacy-*.test.ts files: a client for the older API through the gateway, and helpers
// that set up what those tests need through public interfaces (v1 links, the admin CLI).
import { spawn } from "node:child_process";
import { request } from "node:http";
import { resolve } from "node:path";
import { cliNodeArgs, ensureBundles } from "@kurz/testing/bundles";
import { type Stack, startStack } from "@kurz/testing/stack";
import { type StackFixture, useStack } from "@kurz/testing/use-stack";
import { beforeAll, expect } from "vitest";
import { keyCaller, type V1Response } from "./links-helpers.ts";

const root = resolve(import.meta.dirname, "../../..");

export type LegacyResponse = V1Response;

export type Caller = (method: string, path: string, body?: unknown) => Promise<LegacyResponse>;

/** Calls `/api<path>` with the account's key; `body` is sent as JSON (a string is sent verbatim). */
export function legacyCaller(stack: Stack, apiKey: string): Caller {
  return keyCaller(stack, apiKey, "/api");
}

/** Asserts the legacy error envelope exactly: `{ error: 1, message }` and nothing else. */
export function expectLegacyError(res: LegacyResponse, status: number, message?: RegExp): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(Object.keys(res.body).sort()).toEqual(["error", "message"]);
  expect(res.body.error).toBe(1);
  expect(typeof res.body.message).toBe("string");
  expect(res.body.message.length).toBeGreaterThan(0);
  if (message) expect(res.body.message).toMatch(message);
}

/** A success with a message: integer `error: 0`. */
export function expectLegacyMessage(res: LegacyResponse, message?: RegExp): void {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.error).toBe(0);
  expect(Object.keys(res.body).sort()).toEqual(["error", "message"]);
  if (message) expect(res.body.message).toMatch(message);
}

/** List envelope: string `error: "0"` and the pagination members as integers (nextpage may be null). */
export function expectLegacyList(res: LegacyResponse, collection: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.error).toBe("0");
  const data = res.body.data;
  expect(Object.keys(data).sort()).toEqual(
    ["currentpage", "maxpage", "nextpage", "perpage", "result", collection].sort(),
  );
  for (const key of ["result", "perpage", "currentpage", "maxpage"])
    expect(Number.isInteger(data[key])).toBe(true);
  expect(data.nextpage === null || Number.isInteger(data.nextpage)).toBe(true);
  expect(Array.isArray(data[collection])).toBe(true);
  return data;
}

/**
 * A list page with no items, exactly: `result` items in all, 10 a page, page `currentpage` of `maxpage`
 * (an account with none: 0 on page 1 of 0; past the last page: the count, and that page).
 */
export function expectEmptyLegacyPage(
  res: LegacyResponse,
  collection: string,
  page: { result: number; currentpage: number; maxpage: number } = { result: 0, currentpage: 1, maxpage: 0 },
): void {
  expect(expectLegacyList(res, collection)).toEqual({
    ...page,
    perpage: 10,
    nextpage: null,
    [collection]: [],
  });
}

export const LEGACY_DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** Creates a v1 link for the account and returns its UUID and short code. */
export async function createLink(
  stack: Stack,
  apiKey: string,
  url: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; short_code: string }> {
  const res = await fetch(`${stack.origin}/api/v1/links`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ url, title: "Test link", ...extra }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { id: string; short_code: string } }).data;
}

/** Runs the admin CLI against the stack's database; resolves with exit code and output. */
export async function runCli(
  stack: Stack,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // The CLI's bundle (what the image runs, decision 0001) with the flags `./kurz` gives it: a third of
  // tsx's start-up CPU per call, and its WebAssembly kept off TurboFan (~1 s of CPU less a call).
  await ensureBundles();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, cliNodeArgs(args), {
      cwd: root,
      env: { ...process.env, ...stack.env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("error", reject);
    child.on("exit", (code) => resolvePromise({ code, stdout, stderr }));
  });
}

let counter = 0;
/** An e-mail address unique to this test run. */
export const uniqueEmail = (label: string) =>
  `${label}-${process.pid}-${Date.now()}-${++counter}@example.com`;

/** Functional tests make more calls than 30 a minute allows; the limit has its own test file. */
export const RELAXED_LIMITS = {
  LEGACY_RATE_LIMIT_PER_MINUTE: "100000",
};

/** The file's in-process stack (useStack) with RELAXED_LIMITS, then `extraEnv` (a function: read at start). */
export function useLegacyStack(
  extraEnv: Record<string, string> | (() => Record<string, string>) = {},
): StackFixture {
  return useStack(() =>
    startStack({
      inProcess: true,
      extraEnv: { ...RELAXED_LIMITS, ...(typeof extraEnv === "function" ? extraEnv() : extraEnv) },
    }),
  );
}

/** GET with an explicit Host header (fetch may not override it), not following redirects. */
export function getWithHost(
  url: string,
  host: string,
): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolvePromise, reject) => {
    const req = request(url, { method: "GET", headers: { host } }, (res) => {
      res.resume();
      res.on("end", () => resolvePromise({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Two accounts on one stack, each with a legacy caller: the owner (`call`) and a stranger (`other`). */
export async function twoTenants(stack: Stack, label: string) {
  const [a, b] = await Promise.all([
    stack.createAccount(uniqueEmail(`${label}-a`)),
    stack.createAccount(uniqueEmail(`${label}-b`)),
  ]);
  return { a, b, call: legacyCaller(stack, a.api_key), other: legacyCaller(stack, b.api_key) };
}

/**
 * useLegacyStack with twoTenants on it (made in beforeAll): `call` speaks as the owner, `other` as the
 * stranger; `owner()` and `stranger()` give their accounts once made; `newCaller` speaks for a new
 * account of its own (a test that counts or lists everything an account has).
 */
export function useLegacyTenants(
  label: string,
  extraEnv: Record<string, string> | (() => Record<string, string>) = {},
) {
  const bed = useLegacyStack(extraEnv);
  let tenants: Awaited<ReturnType<typeof twoTenants>> | undefined;
  beforeAll(async () => {
    tenants = await twoTenants(bed.stack, label);
  });
  const made = () => {
    if (!tenants)
      throw new Error("the two tenants are not made yet (useLegacyTenants makes them in beforeAll)");
    return tenants;
  };
  const call: Caller = (method, path, body) => made().call(method, path, body);
  const other: Caller = (method, path, body) => made().other(method, path, body);
  const newCaller = async (label: string): Promise<Caller> =>
    legacyCaller(bed.stack, (await bed.stack.createAccount(uniqueEmail(label))).api_key);
  return { bed, call, other, owner: () => made().a, stranger: () => made().b, newCaller };
}
