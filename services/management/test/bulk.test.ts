// /api/v1/links/bulk through the gateway on a real stack: per-item failures, the batch limit check,
// bounded concurrent title fetches, and bulk delete with foreign and unknown ids.
import { poolOf } from "@kurz/db";
import { useHttpServer } from "@kurz/testing/use-stack";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { storedLinkCount } from "../src/links/link-count.ts";
import {
  expectV1Error,
  expectV1Success,
  uniqueAlias,
  useLinksStack,
  type V1Caller,
} from "./links-helpers.ts";

let inFlight = 0;
let maxInFlight = 0;
let pageHits = 0;

// Answers slowly enough that concurrent fetches overlap, and records how many did.
const page = useHttpServer((req, res) => {
  inFlight++;
  pageHits++;
  maxInFlight = Math.max(maxInFlight, inFlight);
  setTimeout(() => {
    inFlight--;
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<title>Page ${req.url?.slice(1)}</title>`);
  }, 150);
});
const bed = useLinksStack({ TITLE_FETCH_ALLOW_HOSTS: "127.0.0.1" }, { keepOutboxEvents: true });

const linkCount = (accountId: string) => bed.prisma.link.count({ where: { accountId } });
/** The account's stored link count (decision 0037), which must always equal linkCount. */
const storedCount = (accountId: string) => storedLinkCount(bed.prisma, accountId);

describe("POST /links/bulk", () => {
  it("creates every valid item and reports the others by index", async () => {
    const { api, accountId } = await bed.newAccount("bulk-mixed");
    const taken = uniqueAlias("taken");
    const twice = uniqueAlias("twice");
    expectV1Success(
      await api("POST", "/links", { url: "https://example.com/", title: "t", custom_alias: taken }),
      201,
    );
    const res = await api("POST", "/links/bulk", {
      links: [
        { url: "https://example.com/0", title: "Zero" },
        { url: "ftp://example.com/1", title: "bad url" },
        { url: "https://example.com/2", custom_alias: "Admin" },
        { url: "https://example.com/3", title: "Three", custom_alias: taken },
        { url: "https://example.com/4", title: "Four", custom_alias: twice, password: "pw-long-enough" },
        { url: "https://example.com/5", title: "Five", custom_alias: twice },
        { url: "https://example.com/6", title: "Six", expires_at: "2001-01-01T00:00:00Z" },
        "not an object",
        { url: "https://example.com/8", title: "Eight", expires_at: "2099-01-01T00:00:00+01:00" },
      ],
    });
    expectV1Success(res, 201);
    const { success, failed } = res.body.data;
    expect(Object.keys(res.body.data).sort()).toEqual(["failed", "success"]);
    // A past expires_at is accepted, as in single create: the link is created expired (docs/api.md).
    expect(success.map((s: { title: string }) => s.title)).toEqual(["Zero", "Four", "Six", "Eight"]);
    for (const item of success) {
      expect(Object.keys(item).sort()).toEqual(
        ["created_at", "id", "original_url", "short_code", "short_url", "title"].sort(),
      );
      expect(item.short_url).toBe(`${bed.stack.origin}/${item.short_code}`);
      expect(await bed.redirectRecord(item.short_code)).toMatchObject({
        id: item.id,
        active: true,
      });
    }
    expect(success[1].short_code).toBe(twice);
    expect(failed.map((f: { index: number }) => f.index)).toEqual([1, 2, 3, 5, 7]);
    for (const f of failed) {
      expect(Object.keys(f).sort()).toEqual(["error", "index"]);
      expect(typeof f.error).toBe("string");
    }
    expect(failed.find((f: { index: number }) => f.index === 3).error).toBe("Alias already taken");
    expect(failed.find((f: { index: number }) => f.index === 5).error).toBe("Alias already taken");
    expect(failed.find((f: { index: number }) => f.index === 2).error).toMatch(/reserved/);
    expect(await linkCount(accountId)).toBe(5);
    const four = await api("GET", `/links/${success[1].id}`);
    expect(four.body.data).toMatchObject({ has_password: true, title: "Four" });
  });

  it.each([
    ["no links member", {}],
    ["links not an array", { links: { url: "https://example.com/" } }],
    ["an empty batch", { links: [] }],
    [
      "51 items",
      { links: Array.from({ length: 51 }, (_, i) => ({ url: `https://example.com/${i}`, title: "t" })) },
    ],
    ["an array body", [{ url: "https://example.com/" }]],
  ])("refuses %s with 400 and creates nothing", async (_why, body) => {
    const { api, accountId } = await bed.newAccount("bulk-invalid");
    expectV1Error(await api("POST", "/links/bulk", body), 400, "VALIDATION_ERROR");
    expect(await linkCount(accountId)).toBe(0);
  });

  it("creates the items of a batch in one database call (decision 0044)", async () => {
    const { api, accountId } = await bed.newAccount("bulk-one-call");
    // The stack runs in this process: every pool's queries, management's too, pass through the
    // prototype of this test's own pool (node-postgres' Pool).
    const query = vi.spyOn(
      Object.getPrototypeOf(poolOf(bed.prisma)) as { query: (q: unknown) => unknown },
      "query",
    );
    try {
      const res = await api("POST", "/links/bulk", {
        links: Array.from({ length: 20 }, (_, i) => ({ url: `https://example.com/${i}`, title: `T${i}` })),
      });
      expectV1Success(res, 201);
      expect(res.body.data.success.map((s: { title: string }) => s.title)).toEqual(
        Array.from({ length: 20 }, (_, i) => `T${i}`),
      );
      const calls = query.mock.calls.filter(([q]) => (q as { name?: string }).name === "kurz_create_links");
      expect(calls).toHaveLength(1);
    } finally {
      query.mockRestore();
    }
    expect(await linkCount(accountId)).toBe(20);
    expect(await storedCount(accountId)).toBe(20);
  });

  it("accepts exactly 50 items", async () => {
    const { api, accountId } = await bed.newAccount("bulk-fifty");
    const res = await api("POST", "/links/bulk", {
      links: Array.from({ length: 50 }, (_, i) => ({ url: `https://example.com/${i}`, title: `t${i}` })),
    });
    expectV1Success(res, 201);
    expect(res.body.data.success).toHaveLength(50);
    expect(await linkCount(accountId)).toBe(50);
  });

  it("answers 403 before creating anything when the valid items cannot fit the link limit", async () => {
    const { api, accountId } = await bed.newAccount("bulk-limit", 5);
    const fill = await api("POST", "/links/bulk", {
      links: [1, 2, 3].map((i) => ({ url: `https://example.com/${i}`, title: `t${i}` })),
    });
    expect(fill.body.data.success).toHaveLength(3);
    const over = await api("POST", "/links/bulk", {
      links: [4, 5, 6].map((i) => ({ url: `https://example.com/${i}`, title: `t${i}` })),
    });
    expectV1Error(over, 403, "FORBIDDEN", /\b5\b/);
    expect(await linkCount(accountId)).toBe(3);
    // Invalid items do not count against the limit.
    const fits = await api("POST", "/links/bulk", {
      links: [
        { url: "https://example.com/7", title: "ok" },
        { url: "nope" },
        { url: "https://example.com/8", title: "ok" },
        { url: "ftp://x/" },
      ],
    });
    expectV1Success(fits, 201);
    expect(fits.body.data.success).toHaveLength(2);
    expect(await linkCount(accountId)).toBe(5);
    expect(await storedCount(accountId)).toBe(5);
  });

  it("never passes the limit with concurrent batches, and counts what they created exactly", async () => {
    const { api, accountId } = await bed.newAccount("bulk-race", 12);
    const batches = await Promise.all(
      [0, 1, 2, 3, 4].map((b) =>
        api("POST", "/links/bulk", {
          links: Array.from({ length: 4 }, (_, i) => ({
            url: `https://example.com/${b}/${i}`,
            title: `b${b}`,
          })),
        }),
      ),
    );
    let created = 0;
    let refusedItems = 0;
    for (const res of batches) {
      // A batch is refused whole when it cannot fit as it starts, else item by item once the limit is hit.
      if (res.status === 403) {
        expectV1Error(res, 403, "FORBIDDEN", /\b12\b/);
        continue;
      }
      expectV1Success(res, 201);
      created += res.body.data.success.length;
      for (const failure of res.body.data.failed)
        expect(failure.error).toMatch(/^Link limit reached \(12\)\./);
      refusedItems += res.body.data.failed.length;
    }
    expect(created).toBeLessThanOrEqual(12);
    // An item refused on the limit means the account was full then, and nothing here deletes.
    if (refusedItems > 0) expect(created).toBe(12);
    expect(await linkCount(accountId)).toBe(created);
    expect(await storedCount(accountId)).toBe(created);
  });

  it("fetches missing titles concurrently, at most 4 at a time to one host", async () => {
    const { api } = await bed.newAccount("bulk-titles");
    maxInFlight = 0;
    pageHits = 0;
    const res = await api("POST", "/links/bulk", {
      links: Array.from({ length: 20 }, (_, i) => ({ url: `${page().origin}/${i}` })),
    });
    expectV1Success(res, 201);
    expect(res.body.data.success.map((s: { title: string }) => s.title)).toEqual(
      Array.from({ length: 20 }, (_, i) => `Page ${i}`),
    );
    expect(pageHits).toBe(20);
    expect(maxInFlight).toBeGreaterThan(1);
    expect(maxInFlight).toBeLessThanOrEqual(4);
  });
});

describe("DELETE /links/bulk", () => {
  let api: V1Caller;
  let apiAccountId: string;
  let other: V1Caller;

  beforeAll(async () => {
    ({ api, accountId: apiAccountId } = await bed.newAccount("bulk-del-a"));
    other = (await bed.newAccount("bulk-del-b")).api;
  });

  const createSome = async (as: V1Caller, n: number) => {
    const res = await as("POST", "/links/bulk", {
      links: Array.from({ length: n }, (_, i) => ({ url: `https://example.com/${i}`, title: `t${i}` })),
    });
    return res.body.data.success as { id: string; short_code: string; short_url: string }[];
  };

  it("deletes the caller's links and skips foreign, unknown and repeated ids", async () => {
    const mine = await createSome(api, 3);
    const [foreign] = await createSome(other, 1);
    const res = await api("DELETE", "/links/bulk", {
      ids: [...mine.map((l) => l.id), foreign!.id, "00000000-0000-4000-8000-000000000000", mine[0]!.id],
    });
    expectV1Success(res);
    expect(res.body.data).toEqual({ deleted: 3 });
    for (const link of mine) {
      expectV1Error(await api("GET", `/links/${link.id}`), 404, "NOT_FOUND");
      expect(await bed.redirectRecord(link.short_code)).toEqual({
        id: link.id,
        deleted: true,
        c: expect.any(Number),
      });
      expect((await fetch(link.short_url, { redirect: "manual" })).status).toBe(404);
      const events = await bed.prisma.outboxEvent.findMany({ where: { key: link.id } });
      expect(events.map((e) => (e.payload as { type: string }).type)).toContain("link.deleted");
    }
    // Each deleted code is reserved to its owner, recorded with the deleted link's id.
    const retired = await bed.prisma.retiredCode.findMany({
      where: { shortCode: { in: [...mine, foreign!].map((l) => l.short_code) } },
    });
    expect(retired.map((r) => ({ code: r.shortCode, link: r.linkId, account: r.accountId }))).toEqual(
      expect.arrayContaining(mine.map((l) => ({ code: l.short_code, link: l.id, account: apiAccountId }))),
    );
    expect(retired).toHaveLength(3);
    expectV1Success(await other("GET", `/links/${foreign!.id}`));
    expect((await fetch(foreign!.short_url, { redirect: "manual" })).status).toBe(302);
    const none = await api("DELETE", "/links/bulk", { ids: [foreign!.id] });
    expect(none.body.data).toEqual({ deleted: 0 });
    // Only what was deleted is uncounted: the repeated id once, the foreign one not at all.
    expect(await storedCount(apiAccountId)).toBe(await linkCount(apiAccountId));
    const otherId = (await bed.prisma.link.findUniqueOrThrow({ where: { id: foreign!.id } })).accountId;
    expect(await storedCount(otherId)).toBe(1);
  });

  it.each([
    ["no ids member", {}],
    ["an empty list", { ids: [] }],
    ["a malformed id", { ids: ["not-a-uuid"] }],
    ["51 ids", { ids: Array.from({ length: 51 }, () => "00000000-0000-4000-8000-000000000000") }],
    ["ids not an array", { ids: "00000000-0000-4000-8000-000000000000" }],
  ])("refuses %s with 400 and deletes nothing", async (_why, body) => {
    const [link] = await createSome(api, 1);
    const withReal =
      "ids" in body && Array.isArray(body.ids) && body.ids.length > 0
        ? { ids: [link!.id, ...body.ids] }
        : body;
    expectV1Error(await api("DELETE", "/links/bulk", withReal), 400, "VALIDATION_ERROR");
    expectV1Success(await api("GET", `/links/${link!.id}`));
  });

  it("answers 405 for other methods rather than treating 'bulk' as a link id", async () => {
    const res = await api("GET", "/links/bulk");
    expectV1Error(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toBe("POST, DELETE");
  });
});
