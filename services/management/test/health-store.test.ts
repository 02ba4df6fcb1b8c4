// A link's health in the real Postgres: history rows only on change, `redirected` when the final URL
// moves, and every read and write scoped by workspace.
import { createPrisma, type PrismaClient } from "@kurz/db";
import type { TestDatabase } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CheckResult } from "../src/health/check-destination.ts";
import { readHealth, recordCheck } from "../src/health/health-store.ts";
import { createTestAccount, uniqueAlias } from "./links-helpers.ts";

let database: TestDatabase;
let prisma: PrismaClient;
let a: string;
let b: string;

beforeAll(async () => {
  database = await createMigratedDatabase("health_store");
  prisma = createPrisma(database.url);
  a = (await createTestAccount(prisma, "health-a")).account_id;
  b = (await createTestAccount(prisma, "health-b")).account_id;
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

const newLink = async (accountId: string) =>
  (
    await prisma.link.create({
      data: { accountId, shortCode: uniqueAlias("h"), originalUrl: "https://a.example/", title: "t" },
    })
  ).id;

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
    expect(await readHealth(prisma, a, id)).toEqual({ current: null, history: [] });
    expect(await recordCheck(prisma, a, id, result("ok", "https://a.example/"))).toBe("ok");
    expect(await recordCheck(prisma, a, id, result("ok", "https://a.example/"))).toBe("ok");
    expect(await recordCheck(prisma, a, id, result("ok", "https://b.example/"))).toBe("redirected");
    // The same new URL again: the chain has not changed since the last check.
    expect(await recordCheck(prisma, a, id, result("ok", "https://b.example/"))).toBe("ok");
    expect(await recordCheck(prisma, a, id, result("server_error", "https://b.example/", 503))).toBe(
      "server_error",
    );
    expect(await recordCheck(prisma, a, id, result("server_error", "https://b.example/", 503))).toBe(
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
    await recordCheck(prisma, a, id, result("ok", "https://a.example/"));
    expect(await readHealth(prisma, b, id)).toEqual({ current: null, history: [] });
    expect(await recordCheck(prisma, b, id, result("client_error", "https://x.example/", 404))).toBeNull();
    const own = await readHealth(prisma, a, id);
    expect(own.current?.state).toBe("ok");
    expect(own.history).toHaveLength(1);
  });

  it("two first checks of one link at once: one row, one change", async () => {
    const id = await newLink(a);
    const same = result("ok", "https://a.example/");
    await Promise.all([recordCheck(prisma, a, id, same), recordCheck(prisma, a, id, same)]);
    expect(await prisma.linkHealth.count({ where: { linkId: id } })).toBe(1);
    expect((await readHealth(prisma, a, id)).history).toHaveLength(1);
  });

  it("the health goes with the link", async () => {
    const id = await newLink(a);
    await recordCheck(prisma, a, id, result("ok", "https://a.example/"));
    await prisma.link.delete({ where: { id } });
    expect(await prisma.linkHealth.count({ where: { linkId: id } })).toBe(0);
    expect(await prisma.linkHealthChange.count({ where: { linkId: id } })).toBe(0);
  });
});
