// A client written against SnipURL's public API docs (github.com/mdsaad31/snipurl-docs,
// content/ at commit 447aef3) works against Kurz without a line changed. Every request example of
// those pages (snipurl-docs.examples.ts) runs against the stack with only the host, the key and the
// ids of "your" links substituted, and SnipURL's JavaScript client (snipurl-docs.client.ts) runs its
// usage example and every method. Each answer is checked for what the pages document: status,
// envelope, field names and types, messages, and the headers every response carries
// (X-RateLimit-*, X-API-Version).
import { request } from "node:http";
import { printProcessOutputOnFailure, waitFor } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SnipURL } from "./snipurl-docs.client.ts";
import {
  BULK_CREATE_LINKS,
  DOC_EXAMPLES,
  DOC_LINK_IDS,
  DOC_SHORT_CODE,
  type DocExample,
  FIELD_TYPES,
  DOCUMENTED_MESSAGES as MESSAGES,
  type Shape,
} from "./snipurl-docs.examples.ts";

printProcessOutputOnFailure();

/** What Kurz sends in X-API-Version (docs/api.md, "Versions"). */
const API_VERSION = "1.0.0";
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
/** An alias the errors block takes once and then tries again. */
const TAKEN_ALIAS = "docs-taken-alias";
/** The gateway's failed-authentication budget per client (its default). */
const AUTH_FAILURES_PER_MINUTE = 30;

let stack: Stack;
let seq = 0;

beforeAll(async () => {
  stack = await startStack({
    inProcess: true,
    // The documented limits (60/min, 1000/h per key) stay; title fetches would go to the internet.
    extraEnv: { TITLE_FETCH_ENABLED: "false", CLICK_TOTALS_INTERVAL_MS: "200" },
  });
});
afterAll(async () => {
  await stack?.stop();
});

interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: the checks walk the documented shape member by member
  body: any;
  bytes: Buffer;
}

/** One account (own key, own rate budget) with the three links the docs call "yours". */
async function account(tag: string, linkLimit?: number) {
  const created = await stack.createAccount(`docs-${tag}-${process.pid}-${++seq}@example.test`, linkLimit);
  const ctx = {
    key: created.api_key,
    accountId: created.account_id,
    ids: new Map<string, string>(),
    code: "",
  };
  return ctx;
}
type Ctx = Awaited<ReturnType<typeof account>>;

async function seedDocLinks(ctx: Ctx): Promise<void> {
  for (const docId of DOC_LINK_IDS) {
    const res = await send(ctx, "POST", "/links", {
      json: true,
      body: { url: "https://example.com/article", title: "Example Article" },
    });
    expect(res.status).toBe(201);
    ctx.ids.set(docId, res.body.data.id);
    ctx.code ||= res.body.data.short_code;
  }
}

/** The docs' ids and short code replaced by the account's own. */
function substitute(ctx: Ctx, text: string): string {
  let out = text;
  for (const [docId, id] of ctx.ids) out = out.replaceAll(docId, id);
  return ctx.code ? out.replaceAll(DOC_SHORT_CODE, ctx.code) : out;
}

/** A request as the docs' examples send it, to the stack's public origin. */
async function send(
  ctx: Ctx | { key: string | null },
  method: string,
  path: string,
  opts: { json?: boolean; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (ctx.key !== null) headers.Authorization = `Bearer ${ctx.key}`;
  if (opts.json) headers["Content-Type"] = "application/json";
  const res = await fetch(`${stack.origin}/api/v1${path}`, {
    method,
    headers,
    body: opts.body === undefined ? null : JSON.stringify(opts.body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  let body: unknown = null;
  if ((res.headers.get("content-type") ?? "").includes("json")) body = JSON.parse(bytes.toString("utf8"));
  return { status: res.status, headers: res.headers, body, bytes };
}

/** Creates a link for the account, expiring at `expires_at` as sent: the created link. */
async function createExpiring(ctx: Ctx, url: string, expires_at: string) {
  const res = await send(ctx, "POST", "/links", { json: true, body: { url, expires_at } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** The headers every v1 answer carries (rate-limits.mdx, changelog.mdx). */
function expectEveryResponseHeaders(res: Answer, limit?: number): void {
  const what = `${res.status} ${JSON.stringify(res.body)}`;
  expect(res.headers.get("x-api-version"), what).toBe(API_VERSION);
  for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) {
    expect(res.headers.get(name), `${name} on ${what}`).toMatch(/^\d+$/);
  }
  if (limit !== undefined) expect(Number(res.headers.get("x-ratelimit-limit"))).toBe(limit);
  const reset = Number(res.headers.get("x-ratelimit-reset"));
  expect(reset).toBeGreaterThan(Date.now() / 1000 - 1);
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** Every documented field is there with its documented type. */
function expectShape(value: unknown, shape: Shape, where: string): void {
  expect(typeOf(value), where).toBe("object");
  for (const [field, type] of Object.entries(FIELD_TYPES[shape])) {
    const actual = typeOf((value as Record<string, unknown>)[field]);
    expect(type.split("|"), `${where}.${field} is ${actual}`).toContain(actual);
  }
  if (shape === "usage") {
    const usage = value as { current_key: unknown; keys: unknown[] };
    expectShape(usage.current_key, "currentKey", `${where}.current_key`);
    for (const [i, key] of usage.keys.entries()) expectShape(key, "keyItem", `${where}.keys[${i}]`);
  }
  if (shape === "link") {
    const link = value as { short_url: string; short_code: string; created_at: string };
    expect(link.short_url).toBe(`${stack.origin}/${link.short_code}`);
    expect(link.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }
}

function expectError(res: Answer, status: number, code: string, message?: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.success).toBe(false);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe("string");
  if (message !== undefined) expect(res.body.error.message).toBe(message);
}

async function click(shortUrl: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const res = await fetch(shortUrl, { redirect: "manual", headers: { "user-agent": BROWSER } });
    expect(res.status).toBe(302);
  }
}

describe("every request example of the docs pages", () => {
  const byPage = new Map<string, DocExample[]>();
  for (const ex of DOC_EXAMPLES) byPage.set(ex.page, [...(byPage.get(ex.page) ?? []), ex]);

  it.each([...byPage.keys()])("%s", async (page) => {
    // One account per page: its own key keeps every page inside the documented 60 requests a minute.
    const ctx = await account(page.split("/").at(-1)!.replace(".mdx", ""));
    await seedDocLinks(ctx);
    for (const ex of byPage.get(page)!) {
      const where = `${page} (${ex.example}): ${ex.method} ${ex.path}`;
      const res = await send(ctx, ex.method, substitute(ctx, ex.path), {
        ...(ex.json ? { json: true } : {}),
        ...(ex.body !== undefined ? { body: JSON.parse(substitute(ctx, JSON.stringify(ex.body))) } : {}),
      });
      expect(res.status, `${where}: ${JSON.stringify(res.body)}`).toBe(ex.expect.status);
      expectEveryResponseHeaders(res, 60);
      if (ex.expect.data === "image") {
        expect(res.headers.get("content-type"), where).toContain(ex.expect.contentType);
        // Kurz answers `private` where SnipURL says `public` (docs/api.md, "QR codes"); the lifetime is the same.
        expect(res.headers.get("cache-control"), where).toMatch(/max-age=86400/);
        expect(res.bytes.length, where).toBeGreaterThan(100);
        continue;
      }
      expect(res.body.success, where).toBe(true);
      const data = res.body.data;
      if (ex.expect.list) {
        expect(Array.isArray(data), where).toBe(true);
        for (const [i, item] of data.entries()) expectShape(item, ex.expect.data as Shape, `${where} [${i}]`);
        expectShape(res.body.meta, "meta", `${where} meta`);
      } else if (ex.expect.data) {
        expectShape(data, ex.expect.data, where);
      }
      if (ex.expect.match) {
        expect(data, where).toMatchObject(JSON.parse(substitute(ctx, JSON.stringify(ex.expect.match))));
      }
    }
  });

  it("links/list.mdx, pagination: getAllLinks walks meta.total_pages", async () => {
    const ctx = await account("pages");
    await seedDocLinks(ctx);
    // The docs' loop, with per_page lowered from 100 so that it takes more than one page.
    const all: { id: string }[] = [];
    let page = 1;
    let totalPages = 1;
    while (page <= totalPages) {
      const res = await send(ctx, "GET", `/links?page=${page}&per_page=2`);
      expectEveryResponseHeaders(res, 60);
      all.push(...res.body.data);
      totalPages = res.body.meta.total_pages;
      page++;
    }
    expect(totalPages).toBe(2);
    expect(new Set(all.map((l) => l.id))).toEqual(new Set(ctx.ids.values()));
  });

  it("links/create.mdx: a past expires_at (the documented 2025-12-31) is created, expired: the link answers 410", async () => {
    const ctx = await account("expired");
    const link = await createExpiring(ctx, "https://example.com/late", "2025-12-31T23:59:59Z");
    expect(link.expires_at).toBe("2025-12-31T23:59:59.000Z");
    expect((await fetch(link.short_url, { redirect: "manual" })).status).toBe(410);
  });

  it("expires_at is ISO 8601: a date is midnight UTC, an offset is kept as its instant, answered in UTC with milliseconds", async () => {
    const ctx = await account("dates");
    const created = await createExpiring(ctx, "https://example.com/dated", "2030-01-01");
    expect(created.expires_at).toBe("2030-01-01T00:00:00.000Z");
    const patched = await send(ctx, "PATCH", `/links/${created.id}`, {
      json: true,
      body: { expires_at: "2030-01-01T12:00:00+02:00" },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data.expires_at).toBe("2030-01-01T10:00:00.000Z");
    const bulk = await send(ctx, "POST", "/links/bulk", {
      json: true,
      body: { links: [{ url: "https://example.com/dated-bulk", expires_at: "2030-06-30" }] },
    });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(201);
    const read = await send(ctx, "GET", `/links/${bulk.body.data.success[0].id}`);
    expect(read.body.data.expires_at).toBe("2030-06-30T00:00:00.000Z");
    // A local time without a zone is still refused, with what to send instead.
    const local = await send(ctx, "POST", "/links", {
      json: true,
      body: { url: "https://example.com/local", expires_at: "2030-01-01T00:00:00" },
    });
    expectError(local, 400, "VALIDATION_ERROR");
    expect(local.body.error.details.expires_at._errors[0]).toMatch(/^Expected an ISO 8601 date \(2030-01-01/);
  });

  it("links/bulk-create.mdx: curl (five links, one expired on arrival), then the JavaScript and Python three", async () => {
    const ctx = await account("bulk");
    const curl = await send(ctx, "POST", "/links/bulk", { json: true, body: { links: BULK_CREATE_LINKS } });
    expect(curl.status, JSON.stringify(curl.body)).toBe(201);
    expectEveryResponseHeaders(curl, 60);
    // All five as the page shows them, "secret" (a link password is any non-empty string) included.
    expect(curl.body.data.failed).toEqual([]);
    expect(curl.body.data.success).toHaveLength(5);
    for (const [i, item] of curl.body.data.success.entries()) expectShape(item, "bulkItem", `success[${i}]`);
    expect(curl.body.data.success[0]).toMatchObject({
      title: "Page One",
      original_url: "https://example.com/page-1",
    });
    expect(curl.body.data.success[1]).toMatchObject({ short_code: "page-2" });
    const expired = curl.body.data.success.find(
      (item: { original_url: string }) => item.original_url === "https://example.com/page-5",
    );
    expect((await fetch(expired.short_url, { redirect: "manual" })).status).toBe(410);
    // page-4 asks for its password, and "secret" opens it.
    const guarded = curl.body.data.success.find(
      (item: { original_url: string }) => item.original_url === "https://example.com/page-4",
    );
    const unlocked = await fetch(guarded.short_url, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "password=secret",
    });
    expect(unlocked.status).toBe(303);
    expect(unlocked.headers.get("location")).toBe("https://example.com/page-4");

    // The same alias again: the documented partial failure, with its documented wording.
    for (const example of ["javascript", "python"]) {
      const res = await send(ctx, "POST", "/links/bulk", {
        json: true,
        body: { links: BULK_CREATE_LINKS.slice(0, 3) },
      });
      expect(res.status, example).toBe(201);
      expect(res.body.data.success, example).toHaveLength(2);
      expect(res.body.data.failed, example).toEqual([{ index: 1, error: MESSAGES.bulkAliasTaken }]);
    }
  });

  it("links/bulk-delete.mdx: curl, JavaScript and Python, each on its own account", async () => {
    for (const [example, take] of [
      ["curl", 3],
      ["javascript", 2],
      ["python", 2],
    ] as const) {
      const ctx = await account(`bulk-delete-${example}`);
      await seedDocLinks(ctx);
      const ids = DOC_LINK_IDS.slice(0, take).map((id) => ctx.ids.get(id)!);
      // A stranger's id and a made-up one are skipped without error (the page's notes).
      const res = await send(ctx, "DELETE", "/links/bulk", {
        json: true,
        body: { ids: [...ids, "00000000-0000-4000-8000-000000000000"] },
      });
      expect(res.status, example).toBe(200);
      expectEveryResponseHeaders(res, 60);
      expect(res.body).toEqual({ success: true, data: { deleted: take } });
    }
  });

  it("links/delete.mdx: curl, JavaScript and Python each delete a link; it is then not found", async () => {
    const ctx = await account("delete");
    await seedDocLinks(ctx);
    for (const docId of DOC_LINK_IDS) {
      const id = ctx.ids.get(docId)!;
      const res = await send(ctx, "DELETE", `/links/${id}`);
      expect(res.status).toBe(200);
      expectEveryResponseHeaders(res, 60);
      expect(res.body).toEqual({ success: true, data: { deleted: true } });
      expectError(await send(ctx, "GET", `/links/${id}`), 404, "NOT_FOUND", MESSAGES.linkNotFound);
    }
  });
});

describe("the documented errors, with their documented messages", () => {
  let ctx: Ctx;
  beforeAll(async () => {
    ctx = await account("errors");
    await seedDocLinks(ctx);
  });

  it("authentication.mdx: a missing or unknown key is 401 UNAUTHORIZED 'Invalid API key.', with the client's budget in the headers", async () => {
    for (const key of [null, "snip_live_your_key_here", `kurz_live_${"x".repeat(32)}`]) {
      const res = await send({ key }, "GET", "/links");
      expectError(res, 401, "UNAUTHORIZED", MESSAGES.invalidKey);
      expectEveryResponseHeaders(res, AUTH_FAILURES_PER_MINUTE);
    }
  });

  it("authentication.mdx: a revoked key is 401 KEY_REVOKED", async () => {
    const made = await send(ctx, "POST", "/account/keys", { json: true, body: { name: "CI/CD Pipeline" } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const revoked = { key: made.body.data.key as string };
    expect((await send(revoked, "GET", "/account")).status).toBe(200);
    expect((await send(ctx, "DELETE", `/account/keys/${made.body.data.id}`)).status).toBe(200);
    const res = await send(revoked, "GET", "/account");
    expectError(res, 401, "KEY_REVOKED");
    expectEveryResponseHeaders(res);
  });

  it("get.mdx, link-stats.mdx, generate.mdx: 404 NOT_FOUND 'Link not found.' (JSON for QR too)", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    for (const [method, path] of [
      ["GET", `/links/${missing}`],
      ["PATCH", `/links/${missing}`],
      ["DELETE", `/links/${missing}`],
      ["GET", `/analytics/${missing}`],
      ["GET", "/qr/no-such-code"],
    ] as const) {
      const res = await send(
        ctx,
        method,
        path,
        method === "PATCH" ? { json: true, body: { title: "x" } } : {},
      );
      expectError(res, 404, "NOT_FOUND", MESSAGES.linkNotFound);
      expectEveryResponseHeaders(res, 60);
    }
  });

  it("create.mdx: alias taken is 409 CONFLICT 'This custom alias is already taken.'", async () => {
    const body = { url: "https://example.com/", custom_alias: TAKEN_ALIAS };
    expect((await send(ctx, "POST", "/links", { json: true, body })).status).toBe(201);
    const res = await send(ctx, "POST", "/links", { json: true, body });
    expectError(res, 409, "CONFLICT", MESSAGES.aliasTaken);
    expectEveryResponseHeaders(res, 60);
  });

  it("create.mdx: at the limit, 403 FORBIDDEN 'Link limit reached (N). Delete existing links or upgrade your plan.'", async () => {
    const small = await account("limit", 1);
    expect(
      (await send(small, "POST", "/links", { json: true, body: { url: "https://example.com/" } })).status,
    ).toBe(201);
    const res = await send(small, "POST", "/links", { json: true, body: { url: "https://example.com/" } });
    expectError(res, 403, "FORBIDDEN", MESSAGES.linkLimit(1));
    expectEveryResponseHeaders(res, 60);
    const bulk = await send(small, "POST", "/links/bulk", {
      json: true,
      body: { links: [{ url: "https://example.com/" }] },
    });
    expectError(bulk, 403, "FORBIDDEN", MESSAGES.linkLimit(1));
  });

  it("update.mdx: changing original_url or short_code is 400 BAD_REQUEST", async () => {
    const id = ctx.ids.get(DOC_LINK_IDS[0])!;
    for (const body of [{ original_url: "https://example.com/other" }, { short_code: "other" }]) {
      const res = await send(ctx, "PATCH", `/links/${id}`, { json: true, body });
      expectError(res, 400, "BAD_REQUEST");
      expectEveryResponseHeaders(res, 60);
    }
  });

  it("errors.mdx: VALIDATION_ERROR details are zod's formatted tree (details.url._errors), nested and for arrays", async () => {
    const res = await send(ctx, "POST", "/links", {
      json: true,
      body: { url: "not a url", expires_at: "Invalid datetime" },
    });
    expectError(res, 400, "VALIDATION_ERROR");
    expectEveryResponseHeaders(res, 60);
    const details = res.body.error.details;
    expect(details._errors).toEqual([]);
    for (const field of ["url", "expires_at"]) {
      expect(details[field]._errors.length, field).toBeGreaterThan(0);
      for (const message of details[field]._errors) expect(typeof message).toBe("string");
    }
    // An array member is keyed by its index, inside the array field's own tree.
    const shared = await send(ctx, "PATCH", `/links/${ctx.ids.get(DOC_LINK_IDS[0])}`, {
      json: true,
      body: { analytics_shared_fields: ["overview", "everything"] },
    });
    expectError(shared, 400, "VALIDATION_ERROR");
    expect(shared.body.error.details).toMatchObject({
      _errors: [],
      analytics_shared_fields: { _errors: [], 1: { _errors: [expect.any(String)] } },
    });
    expect(shared.body.error.details.analytics_shared_fields).not.toHaveProperty("0");
    const ids = await send(ctx, "DELETE", "/links/bulk", { json: true, body: { ids: ["not-a-uuid"] } });
    expectError(ids, 400, "VALIDATION_ERROR");
    expect(ids.body.error.details.ids[0]._errors.length).toBeGreaterThan(0);
    // A list query too (list.mdx: 400 VALIDATION_ERROR for invalid query parameters).
    const query = await send(ctx, "GET", "/links?per_page=1000");
    expectError(query, 400, "VALIDATION_ERROR");
    expect(query.body.error.details.per_page._errors.length).toBeGreaterThan(0);
  });

  it("errors.mdx: the error-handling function's branches all get the code they switch on", async () => {
    // snipurlRequest() from errors.mdx, reduced to what it returns or throws per code.
    const snipurlRequest = async (key: string | null, method: string, endpoint: string, body?: unknown) => {
      const res = await send({ key }, method, endpoint, body === undefined ? {} : { json: true, body });
      if (!res.body.success) {
        const { code, message } = res.body.error;
        switch (code) {
          case "UNAUTHORIZED":
          case "KEY_EXPIRED":
          case "KEY_REVOKED":
            throw new Error(`Authentication failed: ${message}`);
          case "VALIDATION_ERROR":
            throw new Error(`Invalid input: ${message}`);
          case "NOT_FOUND":
            return null;
          case "CONFLICT":
            throw new Error(`Conflict: ${message}`);
          default:
            throw new Error(`API error [${code}]: ${message}`);
        }
      }
      return res.body;
    };
    await expect(snipurlRequest(null, "GET", "/links")).rejects.toThrow(
      "Authentication failed: Invalid API key.",
    );
    await expect(snipurlRequest(ctx.key, "GET", "/links/00000000-0000-4000-8000-000000000000")).resolves.toBe(
      null,
    );
    await expect(snipurlRequest(ctx.key, "POST", "/links", { url: "nope" })).rejects.toThrow(
      /^Invalid input: /,
    );
    await expect(
      snipurlRequest(ctx.key, "POST", "/links", { url: "https://example.com/", custom_alias: TAKEN_ALIAS }),
    ).rejects.toThrow(`Conflict: ${MESSAGES.aliasTaken}`);
    expect((await snipurlRequest(ctx.key, "GET", "/account"))?.success).toBe(true);
  });
});

describe("rate-limits.mdx: the 61st request of a minute", () => {
  it("is 429 RATE_LIMIT_EXCEEDED with Retry-After, Remaining 0 and the documented message and details", async () => {
    const ctx = await account("rate");
    let res: Answer | undefined;
    // At most two windows' worth: a minute boundary during the loop starts the count again.
    for (let i = 0; i < 130; i++) {
      res = await send(ctx, "GET", "/account");
      if (res.status === 429) break;
      expectEveryResponseHeaders(res, 60);
    }
    expect(res!.status).toBe(429);
    expectEveryResponseHeaders(res!, 60);
    const retryAfter = Number(res!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res!.headers.get("x-ratelimit-remaining")).toBe("0");
    expectError(res!, 429, "RATE_LIMIT_EXCEEDED", MESSAGES.rateLimited(retryAfter));
    expect(res!.body.error.details).toEqual({ limit: 60, window: "1m", retry_after: retryAfter });
  });
});

describe("sdks.mdx: SnipURL's JavaScript client", () => {
  it("runs its usage example and every method, and analytics agree with management at once", async () => {
    const ctx = await account("sdk");
    const answers: Response[] = [];
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      answers.push(res);
      return res;
    };
    const snip = new SnipURL(ctx.key, stack.origin, recording);

    // The usage example, verbatim apart from the key and the host.
    const { data } = (await snip.createLink("https://example.com", {
      custom_alias: "my-link",
      title: "My Link",
    })) as { data: { id: string; short_url: string } };
    expect(data.short_url).toBe(`${stack.origin}/my-link`);

    // "create, get, update, analytics": analytics knows the link the moment create answered.
    const analytics = await snip.getAnalytics(data.id);
    expectShape(analytics.data, "linkStats", "getAnalytics");
    expect(analytics.data).toMatchObject({ link_id: data.id, short_code: "my-link", total_clicks: 0 });
    expectShape((await snip.getLink(data.id)).data, "link", "getLink");
    const updated = await snip.updateLink(data.id, { title: "Renamed", is_active: true });
    expect(updated.data).toMatchObject({ id: data.id, title: "Renamed" });
    const ranged = await snip.getAnalytics(data.id, {
      start: "2025-06-01T00:00:00Z",
      end: "2025-06-24T23:59:59Z",
    });
    expect(ranged.data).toMatchObject({ total_clicks: 0 });

    const listed = await snip.listLinks({ page: "1", per_page: "20", search: "example" });
    expect((listed.data as { id: string }[]).map((l) => l.id)).toEqual([data.id]);
    expect(listed.meta).toEqual({ page: 1, per_page: 20, total: 1, total_pages: 1 });
    expect((await snip.listLinks()).meta).toMatchObject({ total: 1 });

    // Clicks reach analytics, the summary and the account; deleting the link takes them from all three at once.
    await click(data.short_url, 3);
    await waitFor(
      async () =>
        ((await snip.getAccount()).data as { total_clicks: number }).total_clicks === 3 &&
        ((await snip.getSummary()).data as { total_clicks: number }).total_clicks === 3,
      { timeoutMs: 20_000, intervalMs: 200, description: "3 clicks in /account and /analytics/summary" },
    );
    expect((await snip.getAnalytics(data.id)).data).toMatchObject({ total_clicks: 3 });
    expectShape((await snip.getSummary()).data, "summary", "getSummary");
    expectShape((await snip.getAccount()).data, "account", "getAccount");

    // An update shows in the summary at once too, as a create and a delete do.
    await snip.updateLink(data.id, { title: "Renamed again", is_active: false });
    expect((await snip.getSummary()).data).toMatchObject({
      total_links: 1,
      active_links: 0,
      top_links: [{ id: data.id, short_code: "my-link", title: "Renamed again", clicks_count: 3 }],
    });

    expect((await snip.deleteLink(data.id)).data).toEqual({ deleted: true });
    await expect(snip.getAnalytics(data.id)).rejects.toThrow(MESSAGES.linkNotFound);
    await expect(snip.getLink(data.id)).rejects.toThrow(MESSAGES.linkNotFound);
    expect((await snip.getSummary()).data).toMatchObject({ total_links: 0, total_clicks: 0, top_links: [] });
    expect((await snip.getAccount()).data).toMatchObject({ total_links: 0, total_clicks: 0 });

    for (const res of answers) {
      expect(res.headers.get("x-api-version")).toBe(API_VERSION);
      expect(res.headers.get("x-ratelimit-limit")).toBe("60");
    }
  });

  it("create → analytics answers 200 at once, every time", async () => {
    const ctx = await account("sdk-fast");
    const snip = new SnipURL(ctx.key, stack.origin);
    for (let i = 0; i < 8; i++) {
      const { data } = (await snip.createLink(`https://example.com/${i}`, { title: "t" })) as {
        data: { id: string };
      };
      expect((await snip.getAnalytics(data.id)).data).toMatchObject({ link_id: data.id, total_clicks: 0 });
      await snip.deleteLink(data.id);
      await expect(snip.getAnalytics(data.id)).rejects.toThrow(MESSAGES.linkNotFound);
    }
  });
});

describe("headers on refusals (rate-limit headers on every response; changelog.mdx: X-API-Version)", () => {
  let ctx: Ctx;
  beforeAll(async () => {
    ctx = await account("refusals");
  });

  it("an unknown v1 route (404) and a wrong method (405) carry both", async () => {
    const unknown = await send(ctx, "GET", "/no-such-route");
    expectError(unknown, 404, "NOT_FOUND");
    expectEveryResponseHeaders(unknown, 60);
    const wrong = await send(ctx, "PUT", "/links", { json: true, body: {} });
    expectError(wrong, 405, "METHOD_NOT_ALLOWED");
    expectEveryResponseHeaders(wrong, 60);
  });

  it("a refused path (400) says which API version refused it", async () => {
    const res = await rawGet("/api/v1/links/%2e%2e/account", ctx.key);
    expect(res.status).toBe(400);
    expect(res.headers["x-api-version"]).toBe(API_VERSION);
    expect(JSON.parse(res.text)).toMatchObject({ success: false, error: { code: "BAD_REQUEST" } });
  });

  it("the OpenAPI document is a v1 response too; the older API sends no X-API-Version", async () => {
    const doc = await fetch(`${stack.origin}/api/v1/openapi.json`);
    expect(doc.headers.get("x-api-version")).toBe(API_VERSION);
    const legacy = await fetch(`${stack.origin}/api/account`, {
      headers: { Authorization: `Bearer ${ctx.key}` },
    });
    expect(legacy.status).toBe(200);
    expect(legacy.headers.get("x-api-version")).toBeNull();
    expect(legacy.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
  });
});

/** A GET with the path exactly as written (fetch would resolve the dot segment before sending). */
function rawGet(
  path: string,
  key: string,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const url = new URL(stack.origin);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path, headers: { authorization: `Bearer ${key}` }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}
