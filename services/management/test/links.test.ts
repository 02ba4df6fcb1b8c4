// /api/v1/links through the gateway on a real stack: create, list, get, update, delete, the link limit,
// the documented validation rules and tenant isolation.
import { waitFor } from "@kurz/testing";
import { useHttpServer } from "@kurz/testing/use-stack";
import { beforeAll, describe, expect, it } from "vitest";
import { storedLinkCount } from "../src/links/link-count.ts";
import {
  createTestAccount,
  expectV1Error,
  expectV1Success,
  LINK_FIELDS,
  uniqueAlias,
  useLinksStack,
  type V1Caller,
  v1Caller,
} from "./links-helpers.ts";

const page = useHttpServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end("<html><head><title>  Fetched &amp; Trimmed </title></head></html>");
});
const pageUrl = () => `${page().origin}/article`;
const bed = useLinksStack({ TITLE_FETCH_ALLOW_HOSTS: "127.0.0.1" }, { keepOutboxEvents: true });
let api: V1Caller; // account A
let other: V1Caller; // account B
let otherAccountId: string;
let accountId: string;

beforeAll(async () => {
  const [a, b] = await Promise.all([bed.newAccount("links-a"), bed.newAccount("links-b")]);
  ({ api, accountId } = a);
  ({ api: other, accountId: otherAccountId } = b);
});

const create = async (body: Record<string, unknown>, as: V1Caller = api) => {
  const res = await as("POST", "/links", body);
  expectV1Success(res, 201);
  return res.body.data;
};

const outboxTypes = async (linkId: string) =>
  (await bed.prisma.outboxEvent.findMany({ where: { key: linkId }, orderBy: { id: "asc" } })).map(
    (e) => (e.payload as { type: string }).type,
  );

describe("POST /links", () => {
  it("creates a link with every documented field, writes its redirect record and redirects", async () => {
    const res = await api("POST", "/links", { url: "https://example.com/a?b=1", title: "Example" });
    expectV1Success(res, 201);
    const link = res.body.data;
    expect(Object.keys(link).sort()).toEqual(LINK_FIELDS);
    expect(link).toMatchObject({
      original_url: "https://example.com/a?b=1",
      title: "Example",
      is_active: true,
      has_password: false,
      expires_at: null,
      clicks_count: 0,
      analytics_public: false,
    });
    expect(link.short_code).toMatch(/^[0-9A-Za-z]{7}$/);
    expect(link.short_url).toBe(`${bed.stack.origin}/${link.short_code}`);
    expect(link.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(link.updated_at).toBe(link.created_at);
    expect(await bed.redirectRecord(link.short_code)).toMatchObject({
      id: link.id,
      url: "https://example.com/a?b=1",
      active: true,
      password_hash: null,
    });
    const hop = await fetch(link.short_url, { redirect: "manual" });
    expect(hop.status).toBe(302);
    expect(hop.headers.get("location")).toBe("https://example.com/a?b=1");
    expect(await outboxTypes(link.id)).toEqual(["link.created"]);
  });

  it("hashes a password and never returns it", async () => {
    const res = await api("POST", "/links", {
      url: "https://example.com/p",
      title: "P",
      password: "s3cret-pw",
    });
    expectV1Success(res, 201);
    expect(res.body.data.has_password).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain("s3cret");
    const record = (await bed.redirectRecord(res.body.data.short_code)) as {
      password_hash: string;
    };
    expect(record.password_hash).toMatch(/^\$argon2id\$/);
  });

  it("accepts custom aliases at the length bounds and refuses a taken one with 409", async () => {
    const three = `a${Date.now().toString(36).slice(-1)}z`;
    const fifty = `${uniqueAlias("x")}-`.padEnd(49, "q").concat("z");
    for (const alias of [three, fifty]) {
      const link = await create({ url: "https://example.com/", title: "t", custom_alias: alias });
      expect(link.short_code).toBe(alias);
      expect(link.short_url).toBe(`${bed.stack.origin}/${alias}`);
    }
    expectV1Error(
      await api("POST", "/links", { url: "https://example.com/", custom_alias: three }),
      409,
      "CONFLICT",
    );
    // Unique across the service, not per account.
    expectV1Error(
      await other("POST", "/links", { url: "https://example.com/", custom_alias: fifty }),
      409,
      "CONFLICT",
    );
  });

  it.each([
    ["too short", "ab"],
    ["too long", "a".repeat(51)],
    ["underscore", "has_underscore"],
    ["space", "has space"],
    ["punctuation", "wow!"],
    ["leading hyphen", "-abc"],
    ["trailing hyphen", "abc-"],
    ["non-ASCII letter", "café"],
    ["reserved api", "api"],
    ["reserved any case", "API"],
    ["reserved dashboard", "Dashboard"],
    ["reserved admin", "aDmIn"],
    ["reserved docs", "docs"],
    ["not a string", 12345],
  ])("refuses a custom alias that is %s", async (_why, alias) => {
    expectV1Error(
      await api("POST", "/links", { url: "https://example.com/", title: "t", custom_alias: alias }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it.each([
    ["missing", undefined],
    ["ftp", "ftp://example.com/file"],
    ["javascript", "javascript:alert(1)"],
    ["mailto", "mailto:a@example.com"],
    ["relative", "/just/a/path"],
    ["garbage", "not a url"],
    ["a number", 42],
    ["too long", `https://example.com/${"a".repeat(2100)}`],
  ])("refuses a url that is %s", async (_why, url) => {
    expectV1Error(await api("POST", "/links", { url, title: "t" }), 400, "VALIDATION_ERROR");
  });

  it("accepts ISO 8601 expiries: a date as midnight UTC, a date-time with Z or an offset, stored in UTC", async () => {
    const day = await create({ url: "https://example.com/", title: "t", expires_at: "2099-01-02" });
    expect(day.expires_at).toBe("2099-01-02T00:00:00.000Z");
    const z = await create({ url: "https://example.com/", title: "t", expires_at: "2099-01-02T03:04:05Z" });
    expect(z.expires_at).toBe("2099-01-02T03:04:05.000Z");
    const offset = await create({
      url: "https://example.com/",
      title: "t",
      expires_at: "2099-01-02T03:04:05.678+02:00",
    });
    expect(offset.expires_at).toBe("2099-01-02T01:04:05.678Z");
  });

  it.each([
    ["a day that does not exist", "2099-02-29"],
    ["a local time without offset", "2099-01-02T03:04:05"],
    ["garbage", "next tuesday"],
    ["a number", 4102444800],
  ])("refuses expires_at that is %s", async (_why, expires_at) => {
    expectV1Error(
      await api("POST", "/links", { url: "https://example.com/", title: "t", expires_at }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("applies the account's default_expiry_hours when expires_at is omitted", async () => {
    const account = await createTestAccount(bed.prisma, "links-expiry");
    await bed.prisma.account.update({ where: { id: account.account_id }, data: { defaultExpiryHours: 48 } });
    const before = Date.now();
    const link = await create(
      { url: "https://example.com/", title: "t" },
      v1Caller(bed.stack, account.api_key),
    );
    const expires = Date.parse(link.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 48 * 3_600_000 - 1_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 48 * 3_600_000 + 1_000);
  });

  it("fetches the title when omitted, and falls back to the host name", async () => {
    expect((await create({ url: pageUrl() })).title).toBe("Fetched & Trimmed");
    expect((await create({ url: "https://no-such-host.invalid/x" })).title).toBe("no-such-host.invalid");
    // Private destinations are never fetched: the allow-list names 127.0.0.1 only.
    expect((await create({ url: `http://localhost:${page().port}/article` })).title).toBe("localhost");
  });

  it("refuses bad titles, passwords and bodies", async () => {
    for (const body of [
      { url: "https://example.com/", title: "" },
      { url: "https://example.com/", title: "x".repeat(501) },
      { url: "https://example.com/", title: 7 },
      { url: "https://example.com/", password: "" },
      { url: "https://example.com/", password: "p".repeat(129) },
      [],
      "null",
    ]) {
      expectV1Error(await api("POST", "/links", body), 400, "VALIDATION_ERROR");
    }
    expectV1Error(await api("POST", "/links", "{not json"), 400, "VALIDATION_ERROR");
    expectV1Error(
      await api("POST", "/links", "url=https://example.com/", {
        "content-type": "application/x-www-form-urlencoded",
      }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
  });

  it("stops at the link limit with a 403 that states the limit and what to do", async () => {
    const account = await createTestAccount(bed.prisma, "links-limit", 3);
    const limited = v1Caller(bed.stack, account.api_key);
    for (let i = 0; i < 3; i++) await create({ url: "https://example.com/", title: `n${i}` }, limited);
    const res = await limited("POST", "/links", { url: "https://example.com/", title: "one too many" });
    expectV1Error(res, 403, "FORBIDDEN", /\b3\b/);
    expect(res.body.error.message).toMatch(/delete/i);
    expect(res.body.error.message).toMatch(/upgrade/i);
    // A delete frees its slot at once (the stored count goes down in the delete's transaction).
    const [newest] = (await limited("GET", "/links")).body.data;
    expectV1Success(await limited("DELETE", `/links/${newest.id}`));
    await create({ url: "https://example.com/", title: "fits again" }, limited);
    expectV1Error(await limited("POST", "/links", { url: "https://example.com/" }), 403, "FORBIDDEN");
    expect(await storedLinkCount(bed.prisma, account.account_id)).toBe(3);
  });

  it("lets exactly link_limit of 20 concurrent creates through", async () => {
    const account = await createTestAccount(bed.prisma, "links-race", 5);
    const racer = v1Caller(bed.stack, account.api_key);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        racer("POST", "/links", { url: "https://example.com/", title: `r${i}` }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 403)).toHaveLength(15);
    const listed = await racer("GET", "/links");
    expect(listed.body.meta.total).toBe(5);
    // The stored count that the limit check and meta.total read agrees with the rows.
    expect(await storedLinkCount(bed.prisma, account.account_id)).toBe(5);
    expect(await bed.prisma.link.count({ where: { accountId: account.account_id } })).toBe(5);
  });
});

describe("GET /links", () => {
  let lister: V1Caller;
  let created: { id: string; short_code: string; title: string }[];

  beforeAll(async () => {
    const account = await createTestAccount(bed.prisma, "links-list");
    lister = v1Caller(bed.stack, account.api_key);
    created = [];
    for (let i = 0; i < 25; i++) {
      created.push(
        await create(
          {
            url: `https://shop${i % 5}.example.org/item/${i}`,
            title: i === 7 ? "100% real_deal" : i === 8 ? "Plain Title Eight" : `Item ${i}`,
            ...(i === 9 ? { custom_alias: uniqueAlias("needle") } : {}),
          },
          lister,
        ),
      );
    }
    // Deactivate every fourth link.
    for (const link of created.filter((_, i) => i % 4 === 0)) {
      expectV1Success(await lister("PATCH", `/links/${link.id}`, { is_active: false }));
    }
  });

  it("pages newest first with the documented meta and the default per_page of 20", async () => {
    const first = await lister("GET", "/links");
    expectV1Success(first);
    expect(first.body.meta).toEqual({ page: 1, per_page: 20, total: 25, total_pages: 2 });
    expect(first.body.data).toHaveLength(20);
    expect(first.body.data.map((l: { id: string }) => l.id)).toEqual(
      created
        .slice(5)
        .reverse()
        .map((l) => l.id),
    );
    expect(Object.keys(first.body.data[0]).sort()).toEqual(LINK_FIELDS);
    const second = await lister("GET", "/links?page=2");
    expect(second.body.meta).toEqual({ page: 2, per_page: 20, total: 25, total_pages: 2 });
    expect(second.body.data.map((l: { id: string }) => l.id)).toEqual(
      created
        .slice(0, 5)
        .reverse()
        .map((l) => l.id),
    );
    const beyond = await lister("GET", "/links?page=3");
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.meta).toEqual({ page: 3, per_page: 20, total: 25, total_pages: 2 });
    const huge = await lister("GET", "/links?page=999999999999999&per_page=100");
    expect(huge.body.data).toEqual([]);
    expect(huge.body.meta.total).toBe(25);
    const all = await lister("GET", "/links?per_page=100");
    expect(all.body.meta).toEqual({ page: 1, per_page: 100, total: 25, total_pages: 1 });
    const one = await lister("GET", "/links?per_page=1&page=25");
    expect(one.body.data[0].id).toBe(created[0]!.id);
  });

  it.each([
    "per_page=0",
    "per_page=101",
    "per_page=abc",
    "per_page=1.5",
    "per_page=",
    "per_page=1e2",
    "page=0",
    "page=-1",
    "page=x",
    "page=1&page=2",
    "is_active=TRUE",
    "is_active=1",
    "is_active=yes",
    "is_active=",
  ])("refuses ?%s", async (query) => {
    expectV1Error(await lister("GET", `/links?${query}`), 400, "VALIDATION_ERROR");
  });

  it("filters on is_active exactly", async () => {
    const inactive = await lister("GET", "/links?is_active=false&per_page=100");
    expect(inactive.body.meta.total).toBe(7);
    expect(inactive.body.data.every((l: { is_active: boolean }) => !l.is_active)).toBe(true);
    const active = await lister("GET", "/links?is_active=true&per_page=100");
    expect(active.body.meta.total).toBe(18);
    expect(active.body.data.every((l: { is_active: boolean }) => l.is_active)).toBe(true);
  });

  it("searches URL, short code and title case-insensitively, with % and _ taken literally", async () => {
    const search = async (term: string, extra = "") =>
      (await lister("GET", `/links?per_page=100&search=${encodeURIComponent(term)}${extra}`)).body;
    expect((await search("SHOP3.example")).meta.total).toBe(5);
    expect((await search("plain title")).data.map((l: { id: string }) => l.id)).toEqual([created[8]!.id]);
    expect((await search(created[9]!.short_code.toUpperCase())).data[0].id).toBe(created[9]!.id);
    expect((await search("%")).data.map((l: { id: string }) => l.id)).toEqual([created[7]!.id]);
    expect((await search("_")).data.map((l: { id: string }) => l.id)).toEqual([created[7]!.id]);
    // "item/1" is in links 1 and 10-19; of those, 12 and 16 are inactive.
    expect((await search("item/1", "&is_active=false")).meta.total).toBe(2);
    expect((await search("no such thing")).meta).toEqual({
      page: 1,
      per_page: 100,
      total: 0,
      total_pages: 0,
    });
    // Whitespace-only search means no filter.
    expect((await search("   ")).meta.total).toBe(25);
  });

  it("never shows another account's links", async () => {
    const res = await other("GET", "/links?per_page=100");
    expect(res.body.data.every((l: { id: string }) => !created.some((c) => c.id === l.id))).toBe(true);
    expect((await other("GET", "/links?search=Plain%20Title%20Eight")).body.meta.total).toBe(0);
  });
});

describe("GET /links/:id", () => {
  it("returns the link with analytics_shared_fields", async () => {
    const link = await create({ url: "https://example.com/g", title: "G" });
    const res = await api("GET", `/links/${link.id}`);
    expectV1Success(res);
    expect(Object.keys(res.body.data).sort()).toEqual([...LINK_FIELDS, "analytics_shared_fields"].sort());
    expect(res.body.data).toMatchObject({ ...link, analytics_shared_fields: null });
  });

  it("answers 400 for a malformed id, 404 for an unknown or foreign one", async () => {
    expectV1Error(await api("GET", "/links/not-a-uuid"), 400, "VALIDATION_ERROR");
    expectV1Error(await api("GET", "/links/00000000-0000-4000-8000-000000000000"), 404, "NOT_FOUND");
    const foreign = await create({ url: "https://example.com/b", title: "B" }, other);
    expectV1Error(await api("GET", `/links/${foreign.id}`), 404, "NOT_FOUND");
  });
});

describe("PATCH /links/:id", () => {
  it("updates every PATCH field, bumps updated_at and refreshes the redirect record", async () => {
    const link = await create({ url: "https://example.com/u", title: "Before" });
    // updated_at has millisecond precision: the update comes once the clock has passed the create's.
    await waitFor(() => Date.now() > Date.parse(link.updated_at), { intervalMs: 1 });
    const res = await api("PATCH", `/links/${link.id}`, {
      title: "After",
      is_active: false,
      password: "pw-long-enough",
      expires_at: "2099-05-06T07:08:09+00:00",
      analytics_public: true,
      analytics_shared_fields: ["overview", "devices"],
    });
    expectV1Success(res);
    expect(Object.keys(res.body.data).sort()).toEqual(LINK_FIELDS);
    expect(res.body.data).toMatchObject({
      id: link.id,
      short_code: link.short_code,
      original_url: link.original_url,
      title: "After",
      is_active: false,
      has_password: true,
      expires_at: "2099-05-06T07:08:09.000Z",
      analytics_public: true,
      created_at: link.created_at,
    });
    expect(Date.parse(res.body.data.updated_at)).toBeGreaterThan(Date.parse(link.updated_at));
    expect((await api("GET", `/links/${link.id}`)).body.data.analytics_shared_fields).toEqual([
      "overview",
      "devices",
    ]);
    expect(await bed.redirectRecord(link.short_code)).toMatchObject({
      active: false,
      expires_at: Date.parse("2099-05-06T07:08:09Z"),
    });
    expect((await fetch(link.short_url, { redirect: "manual" })).status).toBe(404);

    const back = await api("PATCH", `/links/${link.id}`, {
      is_active: true,
      password: null,
      expires_at: null,
      analytics_shared_fields: null,
    });
    expect(back.body.data).toMatchObject({ is_active: true, has_password: false, expires_at: null });
    expect((await api("GET", `/links/${link.id}`)).body.data.analytics_shared_fields).toBeNull();
    expect(await bed.redirectRecord(link.short_code)).toMatchObject({
      active: true,
      password_hash: null,
      expires_at: null,
    });
    expect((await fetch(link.short_url, { redirect: "manual" })).status).toBe(302);
    expect(await outboxTypes(link.id)).toEqual(["link.created", "link.updated", "link.updated"]);
  });

  it("answers BAD_REQUEST for immutable fields and VALIDATION_ERROR for anything else wrong", async () => {
    const link = await create({ url: "https://example.com/i", title: "Immutable" });
    for (const body of [
      { original_url: "https://evil.example/" },
      { short_code: "new-code" },
      { title: "x", short_code: "new-code", unknown: 1 },
    ]) {
      expectV1Error(await api("PATCH", `/links/${link.id}`, body), 400, "BAD_REQUEST", /cannot be changed/);
    }
    for (const body of [
      { unknown_field: true },
      { is_active: "true" },
      { title: "" },
      { password: "" },
      { password: "p".repeat(129) },
      { expires_at: "2099-01-01T00:00:00" },
      { expires_at: "2099-02-30" },
      { analytics_public: 1 },
      { analytics_shared_fields: ["overview", "overview"] },
      { analytics_shared_fields: ["everything"] },
      [],
    ]) {
      expectV1Error(await api("PATCH", `/links/${link.id}`, body), 400, "VALIDATION_ERROR");
    }
    const after = await api("GET", `/links/${link.id}`);
    expect(after.body.data).toMatchObject({ ...link, analytics_shared_fields: null });
  });

  it("treats an empty body as no change: same updated_at, no event", async () => {
    const link = await create({ url: "https://example.com/e", title: "Empty" });
    const res = await api("PATCH", `/links/${link.id}`, {});
    expectV1Success(res);
    expect(res.body.data).toEqual(link);
    expect(await outboxTypes(link.id)).toEqual(["link.created"]);
  });

  it("answers 404 for unknown and foreign links and leaves them alone", async () => {
    expectV1Error(
      await api("PATCH", "/links/00000000-0000-4000-8000-000000000000", { title: "x" }),
      404,
      "NOT_FOUND",
    );
    expectV1Error(await api("PATCH", "/links/nope", { title: "x" }), 400, "VALIDATION_ERROR");
    const foreign = await create({ url: "https://example.com/f", title: "Foreign" }, other);
    expectV1Error(await api("PATCH", `/links/${foreign.id}`, { title: "Hijacked" }), 404, "NOT_FOUND");
    expect((await other("GET", `/links/${foreign.id}`)).body.data.title).toBe("Foreign");
  });
});

describe("DELETE /links/:id", () => {
  it("removes the link and its redirect record, keeps the alias for its owner, announces it", async () => {
    const alias = uniqueAlias("gone");
    const link = await create({ url: "https://example.com/d", title: "D", custom_alias: alias });
    expect((await fetch(link.short_url, { redirect: "manual" })).status).toBe(302);
    const res = await api("DELETE", `/links/${link.id}`);
    expectV1Success(res);
    expect(res.body.data).toEqual({ deleted: true });
    expectV1Error(await api("GET", `/links/${link.id}`), 404, "NOT_FOUND");
    expectV1Error(await api("DELETE", `/links/${link.id}`), 404, "NOT_FOUND");
    // The record is a tombstone (decision 0052): no late write brings the link back.
    expect(await bed.redirectRecord(alias)).toEqual({
      id: link.id,
      deleted: true,
      c: Date.parse(link.created_at),
    });
    expect((await fetch(link.short_url, { redirect: "manual" })).status).toBe(404);
    expect(await outboxTypes(link.id)).toEqual(["link.created", "link.deleted"]);
    // The code stays reserved to its former owner (docs/security.md): another account gets the
    // taken-alias answer, the owner gets it back at once.
    expectV1Error(
      await other("POST", "/links", {
        url: "https://example.com/again",
        title: "Again",
        custom_alias: alias,
      }),
      409,
      "CONFLICT",
      /^This custom alias is already taken\.$/,
    );
    const again = await create({ url: "https://example.com/again", title: "Again", custom_alias: alias });
    expect(again.short_code).toBe(alias);
  });

  it("answers 404 for a foreign link and keeps it", async () => {
    const foreign = await create({ url: "https://example.com/k", title: "Keep" }, other);
    expectV1Error(await api("DELETE", `/links/${foreign.id}`), 404, "NOT_FOUND");
    expectV1Success(await other("GET", `/links/${foreign.id}`));
    expect(await bed.prisma.link.count({ where: { id: foreign.id, accountId: otherAccountId } })).toBe(1);
    expect(accountId).not.toBe(otherAccountId);
  });

  it("answers 405 with Allow for methods the resource lacks", async () => {
    const res = await api("PUT", "/links/00000000-0000-4000-8000-000000000000", { title: "x" });
    expectV1Error(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toBe("GET, PATCH, DELETE, HEAD");
  });
});
