// A link's health in the real Postgres and Redis: history rows only on change, `redirected` when the
// final URL moves, every read and write scoped by workspace, and the broken/recovered decision (two
// failures in a row, the first healthy check after) made once, with its outbox event and its redirect
// record.
import { decodeRedirectRecord, type LinkEvent, redirectKey } from "@kurz/contracts";
import { createPrisma, type PrismaClient } from "@kurz/db";
import { cleanupRedisPrefix, type TestDatabase, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CheckResult } from "../src/health/check-destination.ts";
import { type RecordCheckDeps, readHealth, recordCheck } from "../src/health/health-store.ts";
import { RedirectRecords } from "../src/projections/link-records.ts";
import { createTestAccount, uniqueAlias } from "./links-helpers.ts";

const prefix = `${uniquePrefix("health-store")}:`;
let database: TestDatabase;
let prisma: PrismaClient;
let redis: Redis;
let deps: RecordCheckDeps;
let wakes = 0;
let a: string;
let b: string;

const NEVER_CHECKED = { current: null, history: [], brokenSince: null, consecutiveFailures: 0 };

beforeAll(async () => {
  database = await createMigratedDatabase("health_store");
  prisma = createPrisma(database.url);
  redis = new Redis(testRedisUrl(), { keyPrefix: prefix });
  deps = {
    prisma,
    records: new RedirectRecords(redis, { warn: () => {} }),
    onEventsWritten: () => void wakes++,
  };
  a = (await createTestAccount(prisma, "health-a")).account_id;
  b = (await createTestAccount(prisma, "health-b")).account_id;
});

afterAll(async () => {
  await prisma?.$disconnect();
  if (redis) {
    await cleanupRedisPrefix(testRedisUrl(), prefix);
    redis.disconnect();
  }
  await database?.drop();
});

const newLink = async (accountId: string, brokenUrl: string | null = null) =>
  (
    await prisma.link.create({
      data: {
        accountId,
        shortCode: uniqueAlias("h"),
        originalUrl: "https://a.example/",
        title: "t",
        brokenUrl,
      },
    })
  ).id;

/** The link's health events waiting in the outbox (no relay runs here), oldest first. */
const healthEvents = async (linkId: string) =>
  (await prisma.outboxEvent.findMany({ where: { key: linkId }, orderBy: { id: "asc" } }))
    .map((row) => row.payload as unknown as LinkEvent)
    .filter((e) => e.type === "link.broken" || e.type === "link.recovered");

const recordOf = async (linkId: string) => {
  const { shortCode } = await prisma.link.findUniqueOrThrow({ where: { id: linkId } });
  const json = await redis.get(redirectKey(shortCode));
  return json === null ? null : decodeRedirectRecord(json);
};

let minute = 0;
const result = (outcome: CheckResult["outcome"], finalUrl: string, statusCode: number | null = 200) => ({
  outcome,
  statusCode,
  finalUrl,
  hops: [{ url: finalUrl, status: statusCode, method: "HEAD" as const }],
  durationMs: 12,
  checkedAt: new Date(Date.UTC(2026, 0, 1, 0, ++minute)),
  detail: null,
});

describe("recordCheck / readHealth", () => {
  it("records a history row only when the state or the final URL changes", async () => {
    const id = await newLink(a);
    expect(await readHealth(prisma, a, id)).toEqual(NEVER_CHECKED);
    expect(await recordCheck(deps, a, id, result("ok", "https://a.example/"))).toBe("ok");
    expect(await recordCheck(deps, a, id, result("ok", "https://a.example/"))).toBe("ok");
    expect(await recordCheck(deps, a, id, result("ok", "https://b.example/"))).toBe("redirected");
    // The same new URL again: the chain has not changed since the last check.
    expect(await recordCheck(deps, a, id, result("ok", "https://b.example/"))).toBe("ok");
    expect(await recordCheck(deps, a, id, result("server_error", "https://b.example/", 503))).toBe(
      "server_error",
    );
    expect(await recordCheck(deps, a, id, result("server_error", "https://b.example/", 503))).toBe(
      "server_error",
    );
    const view = await readHealth(prisma, a, id);
    expect(view.current).toMatchObject({
      state: "server_error",
      statusCode: 503,
      finalUrl: "https://b.example/",
      durationMs: 12,
      hops: [{ url: "https://b.example/", status: 503, method: "HEAD" }],
    });
    expect(view.history.map((h) => [h.state, h.finalUrl])).toEqual([
      ["server_error", "https://b.example/"],
      ["ok", "https://b.example/"],
      ["redirected", "https://b.example/"],
      ["ok", "https://a.example/"],
    ]);
  });

  it("another workspace neither reads nor writes a link's health", async () => {
    const id = await newLink(a);
    await recordCheck(deps, a, id, result("ok", "https://a.example/"));
    expect(await readHealth(prisma, b, id)).toEqual(NEVER_CHECKED);
    expect(await recordCheck(deps, b, id, result("client_error", "https://x.example/", 404))).toBeNull();
    const own = await readHealth(prisma, a, id);
    expect(own.current?.state).toBe("ok");
    expect(own.history).toHaveLength(1);
  });

  it("two first checks of one link at once: one row, one change", async () => {
    const id = await newLink(a);
    const same = result("ok", "https://a.example/");
    await Promise.all([recordCheck(deps, a, id, same), recordCheck(deps, a, id, same)]);
    expect(await prisma.linkHealth.count({ where: { linkId: id } })).toBe(1);
    expect((await readHealth(prisma, a, id)).history).toHaveLength(1);
  });

  it("the health goes with the link", async () => {
    const id = await newLink(a);
    await recordCheck(deps, a, id, result("ok", "https://a.example/"));
    await prisma.link.delete({ where: { id } });
    expect(await prisma.linkHealth.count({ where: { linkId: id } })).toBe(0);
    expect(await prisma.linkHealthChange.count({ where: { linkId: id } })).toBe(0);
  });
});

describe("broken and recovered", () => {
  it("two failing checks in a row break the link once: one event, broken_since, the redirect's `b`", async () => {
    const id = await newLink(a, "https://fallback.example/sorry");
    const wakesBefore = wakes;
    await recordCheck(deps, a, id, result("server_error", "https://a.example/", 503));
    expect(await healthEvents(id)).toEqual([]);
    expect((await readHealth(prisma, a, id)).consecutiveFailures).toBe(1);
    const second = result("timeout", "https://a.example/", null);
    await recordCheck(deps, a, id, second);
    // A third failure (of another kind) is still the same broken spell: nothing more.
    await recordCheck(deps, a, id, result("dns_error", "https://a.example/", null));

    const events = await healthEvents(id);
    expect(events.map((e) => e.type)).toEqual(["link.broken"]);
    expect(events[0]).toMatchObject({
      account_id: a,
      link: { id, original_url: "https://a.example/" },
      health: { state: "timeout", status_code: null, checked_at: second.checkedAt.toISOString() },
    });
    const view = await readHealth(prisma, a, id);
    expect(view.brokenSince).toEqual(second.checkedAt);
    expect(view.consecutiveFailures).toBe(3);
    expect(wakes).toBe(wakesBefore + 1);
    expect((await recordOf(id))?.b).toBe("https://fallback.example/sorry");
  });

  it("the first healthy check recovers it: link.recovered, and the record loses `b`", async () => {
    const id = await newLink(a, "https://fallback.example/sorry");
    await recordCheck(deps, a, id, result("client_error", "https://a.example/", 404));
    await recordCheck(deps, a, id, result("client_error", "https://a.example/", 404));
    const recovered = result("ok", "https://a.example/");
    expect(await recordCheck(deps, a, id, recovered)).toBe("ok");
    const events = await healthEvents(id);
    expect(events.map((e) => e.type)).toEqual(["link.broken", "link.recovered"]);
    expect(events[1]).toMatchObject({ health: { state: "ok", status_code: 200 } });
    expect(await readHealth(prisma, a, id)).toMatchObject({ brokenSince: null, consecutiveFailures: 0 });
    const record = await recordOf(id);
    expect(record?.url).toBe("https://a.example/");
    expect(record?.b).toBeUndefined();
  });

  it("one failure, then health: nothing; `refused` neither counts nor recovers", async () => {
    const id = await newLink(a);
    await recordCheck(deps, a, id, result("server_error", "https://a.example/", 500));
    await recordCheck(deps, a, id, result("ok", "https://a.example/"));
    await recordCheck(deps, a, id, result("server_error", "https://a.example/", 500));
    await recordCheck(deps, a, id, result("refused", "https://a.example/", null));
    expect(await healthEvents(id)).toEqual([]);
    expect((await readHealth(prisma, a, id)).consecutiveFailures).toBe(1);
    await recordCheck(deps, a, id, result("server_error", "https://a.example/", 500));
    expect((await healthEvents(id)).map((e) => e.type)).toEqual(["link.broken"]);
    await recordCheck(deps, a, id, result("refused", "https://a.example/", null));
    expect((await readHealth(prisma, a, id)).brokenSince).not.toBeNull();
    expect((await healthEvents(id)).map((e) => e.type)).toEqual(["link.broken"]);
  });

  it("concurrent second failures break the link exactly once", async () => {
    const id = await newLink(a);
    await recordCheck(deps, a, id, result("server_error", "https://a.example/", 500));
    await Promise.all(
      [1, 2, 3].map(() => recordCheck(deps, a, id, result("server_error", "https://a.example/", 500))),
    );
    expect((await healthEvents(id)).map((e) => e.type)).toEqual(["link.broken"]);
  });

  it("a broken link without broken_url keeps its plain record; updated_at is the owner's", async () => {
    const id = await newLink(a);
    const before = await prisma.link.findUniqueOrThrow({ where: { id } });
    await recordCheck(deps, a, id, result("server_error", "https://a.example/", 500));
    await recordCheck(deps, a, id, result("server_error", "https://a.example/", 500));
    const after = await prisma.link.findUniqueOrThrow({ where: { id } });
    expect(after.brokenSince).not.toBeNull();
    expect(after.updatedAt).toEqual(before.updatedAt);
    expect(after.version).toBeGreaterThan(before.version);
    expect((await recordOf(id))?.b).toBeUndefined();
  });

  it("another workspace's checks break nothing", async () => {
    const id = await newLink(a);
    for (let i = 0; i < 3; i++) {
      expect(await recordCheck(deps, b, id, result("server_error", "https://a.example/", 500))).toBeNull();
    }
    expect(await healthEvents(id)).toEqual([]);
    expect((await prisma.link.findUniqueOrThrow({ where: { id } })).brokenSince).toBeNull();
  });
});
