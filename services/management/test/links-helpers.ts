// Shared by the tests of the v1 API through the gateway: their stack, accounts, a v1 client and envelope
// assertions.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ErrorCode, redirectKey } from "@kurz/contracts";
import { createPrisma, type PrismaClient } from "@kurz/db";
import { cleanupRedisPrefix, holdAdvisoryLock, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { type Stack, startStack } from "@kurz/testing/stack";
import { type StackFixture, useStack, withMembers } from "@kurz/testing/use-stack";
import { Redis } from "ioredis";
import { expect } from "vitest";
import { createAccount } from "../src/accounts/create-account.ts";
import { RELAY_LOCK } from "../src/db/outbox.ts";
import type { LinkWriterDeps } from "../src/links/link-writer.ts";
import { RedirectRecords } from "../src/projections/link-records.ts";

/** Keys created by these stacks get limits high enough for many requests per test file. */
export const RELAXED_LIMITS = { RATE_LIMIT_PER_MINUTE: "100000", RATE_LIMIT_PER_HOUR: "1000000" };

/**
 * A stack for one links test file: relaxed key limits and its own redirect click spool (the default
 * ./.data/spool is locked by whichever stack started first). With `keepOutboxEvents`, the outbox
 * relay's lock is held until stop, so the events the file's writes leave stay in `outbox_events` for
 * its assertions (the relay deletes what it publishes: decision 0003).
 */
export async function startLinksStack(
  extraEnv: Record<string, string> = {},
  opts: { keepOutboxEvents?: boolean } = {},
): Promise<Stack> {
  const spool = mkdtempSync(join(tmpdir(), "kurz-links-spool-"));
  const stack = await startStack({
    inProcess: true,
    extraEnv: { ...RELAXED_LIMITS, SPOOL_DIR: spool, ...extraEnv },
  });
  const relay = opts.keepOutboxEvents
    ? await holdAdvisoryLock(stack.databaseUrl, RELAY_LOCK).catch(async (err: unknown) => {
        await stack.stop();
        rmSync(spool, { recursive: true, force: true });
        throw err;
      })
    : undefined;
  return {
    ...stack,
    stop: async () => {
      try {
        await relay?.release();
        await stack.stop();
      } finally {
        rmSync(spool, { recursive: true, force: true });
      }
    },
  };
}

/** useStack's fixture for a links stack, and what its tests do on it. */
export interface LinksFixture extends StackFixture {
  /** A fresh account (createTestAccount), and a v1 caller with its key. */
  newAccount(tag: string, linkLimit?: number): Promise<{ api: V1Caller; accountId: string; key: string }>;
  /** The redirect record management wrote to Redis for `code`, or null. */
  redirectRecord(code: string): Promise<unknown>;
}

/** startLinksStack for the file's tests (useStack): started in beforeAll, stopped in afterAll. */
export function useLinksStack(
  extraEnv: Record<string, string> = {},
  opts: { keepOutboxEvents?: boolean } = {},
): LinksFixture {
  const bed = useStack(() => startLinksStack(extraEnv, opts));
  return withMembers(bed, {
    newAccount: async (tag: string, linkLimit?: number) => {
      const account = await createTestAccount(bed.prisma, tag, linkLimit);
      return {
        api: v1Caller(bed.stack, account.api_key),
        accountId: account.account_id,
        key: account.api_key,
      };
    },
    redirectRecord: async (code: string) => {
      const raw = await bed.redis.get(redirectKey(code));
      return raw === null ? null : JSON.parse(raw);
    },
  });
}

export interface V1Response {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on the shape member by member
  body: any;
}

export type V1Caller = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<V1Response>;

/** Calls `/api/v1<path>` with the key; an object body is sent as JSON, a string verbatim. */
export function v1Caller(stack: Stack, apiKey: string): V1Caller {
  return keyCaller(stack, apiKey, "/api/v1");
}

/**
 * Calls `<api><path>` on the stack's public origin with the key (the v1 API or the older one under
 * `/api`); an object body is sent as JSON, a string verbatim; the answer's body parsed when it is JSON.
 */
export function keyCaller(stack: Stack, apiKey: string, api: "/api/v1" | "/api"): V1Caller {
  return async (method, path, body, extra = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${stack.origin}${api}${path}`, {
      method,
      headers: { ...headers, ...extra },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, headers: res.headers, body: parsed };
  };
}

/** The v1 error envelope exactly: `{ success: false, error: { code, message, details? } }`. */
export function expectV1Error(res: V1Response, status: number, code: string, message?: RegExp): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(Object.keys(res.body).sort()).toEqual(["error", "success"]);
  expect(res.body.success).toBe(false);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe("string");
  expect(res.body.error.message.length).toBeGreaterThan(0);
  if (message) expect(res.body.error.message).toMatch(message);
}

export function expectV1Success(res: V1Response, status = 200): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.success).toBe(true);
  expect(res.body).toHaveProperty("data");
}

/** A v1 success with `status` whose data has exactly `fields`, in any order: the data. */
// biome-ignore lint/suspicious/noExplicitAny: tests assert on the shape member by member
export function expectV1Fields(res: V1Response, status: number, fields: string[]): any {
  expectV1Success(res, status);
  expect(Object.keys(res.body.data).sort()).toEqual([...fields].sort());
  return res.body.data;
}

/** An API key as listed (GET /account/usage); a created one adds `key` itself, shown that once. */
export const KEY_FIELDS = [
  "created_at",
  "created_by",
  "scopes",
  "expires_at",
  "id",
  "key_prefix",
  "last_used_at",
  "name",
  "rate_limit_per_hour",
  "rate_limit_per_minute",
].sort();

export const LINK_FIELDS = [
  "analytics_public",
  "clicks_count",
  "created_at",
  "domain",
  "expires_at",
  "has_password",
  "id",
  "is_active",
  "original_url",
  "overlay_id",
  "short_code",
  "short_url",
  "title",
  "updated_at",
  // Smart links (docs/smart-links.md): always sent, null or [] when unset.
  "rules",
  "split",
  "forward_query",
  "max_clicks",
  "expired_url",
  "og",
  "ios_url",
  "android_url",
  // Link health (docs/health.md): always sent, null when unset or not broken.
  "broken_url",
  "broken_since",
].sort();

let seq = 0;
export const uniqueEmail = (tag: string) => `${tag}-${process.pid}-${Date.now()}-${++seq}@example.com`;
export const uniqueAlias = (tag: string) => `${tag}-${Date.now().toString(36)}-${++seq}`;

/**
 * An account with its key, made by the same function the admin CLI runs. In-process because spawning
 * the CLI (tsx start plus a migration check) costs seconds per account on a loaded machine.
 */
export async function createTestAccount(
  prisma: PrismaClient,
  tag: string,
  linkLimit?: number,
): Promise<{ account_id: string; api_key: string }> {
  return createAccount(prisma, {
    email: uniqueEmail(tag),
    ...(linkLimit !== undefined ? { linkLimit } : {}),
    keyLimits: {
      perMinute: Number(RELAXED_LIMITS.RATE_LIMIT_PER_MINUTE),
      perHour: Number(RELAXED_LIMITS.RATE_LIMIT_PER_HOUR),
    },
  });
}

const ERROR_CODES = new Set<string>(ErrorCode.options);

/** Any answer at all is a v1 envelope: a 2xx success with data, or a known error code. Never a 5xx. */
export function expectEnvelope(res: V1Response, what: string): void {
  expect(res.status, what).toBeLessThan(500);
  expect(typeof res.body, what).toBe("object");
  if (res.body.success === true) {
    expect(res.status, what).toBeLessThan(300);
    expect(res.body, what).toHaveProperty("data");
  } else {
    expect(res.body.success, what).toBe(false);
    expect(ERROR_CODES.has(res.body.error?.code), `${what} → ${JSON.stringify(res.body)}`).toBe(true);
    expect(typeof res.body.error.message, what).toBe("string");
  }
}

/**
 * The link writer's dependencies for tests that call the link use cases (src/links/) in this process: `records` as
 * the test needs them, no rotators to sync, no relay to wake.
 */
export function inProcessWriter(
  prisma: PrismaClient,
  records: LinkWriterDeps["records"],
  retiredCodeGraceMs = 30 * 86_400_000,
): LinkWriterDeps {
  return {
    prisma,
    records,
    domainAndRotatorRecords: { syncRotators: async () => {} },
    onEventsWritten: () => {},
    retiredCodeGraceMs,
  };
}

/**
 * A copy of the migrated database, a Redis under a prefix of its own and the link writer over both,
 * for tests that call the link use cases (src/links/) in this process and read the redirect records it writes.
 */
export interface InProcessWriterBed {
  prisma: PrismaClient;
  redis: Redis;
  records: RedirectRecords;
  deps: LinkWriterDeps;
  stop(): Promise<void>;
}

export async function startInProcessWriter(
  name: string,
  retiredCodeGraceMs: number,
): Promise<InProcessWriterBed> {
  // A copy of the migrated template, as the stacks get (the Prisma CLI per database is ~2 s of CPU).
  const database = await createMigratedDatabase(name);
  const prisma = createPrisma(database.url);
  const prefix = `${uniquePrefix(name)}:`;
  const redis = new Redis(testRedisUrl(), { keyPrefix: prefix });
  const records = new RedirectRecords(redis, { warn: () => {} });
  return {
    prisma,
    redis,
    records,
    deps: inProcessWriter(prisma, records, retiredCodeGraceMs),
    stop: async () => {
      redis.disconnect();
      await cleanupRedisPrefix(testRedisUrl(), prefix);
      await prisma.$disconnect();
      await database.drop();
    },
  };
}
