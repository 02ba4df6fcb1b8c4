// A create's statement on Prisma's pool (decision 0044) against the real Postgres: the link
// insertLink returns is exactly the row `prisma.link.findFirst` reads back (so its JSON and its redirect
// record are what they were when the call went through Prisma), its outbox event carries the stored
// expiry, and the function's refusals still arrive as the API's errors. Creates sent together are one
// call of kurz_create_links, each done or refused on its own.
import { createPrisma, type Link, type PrismaClient, poolOf } from "@kurz/db";
import type { TestDatabase } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { insertLink, type NewLink } from "../src/links/insert-link.ts";
import type { LinkWriterDeps } from "../src/links/link-writer.ts";
import { createTestAccount, inProcessWriter } from "./links-helpers.ts";

let database: TestDatabase;
let prisma: PrismaClient;
let accountA: string;
let deps: LinkWriterDeps;
const written: Link[] = [];

beforeAll(async () => {
  database = await createMigratedDatabase("create_link_statement");
  prisma = createPrisma(database.url);
  accountA = (await createTestAccount(prisma, "create-stmt-a", 3)).account_id;
  await prisma.account.update({ where: { id: accountA }, data: { defaultExpiryHours: 48 } });
  deps = inProcessWriter(prisma, {
    put: async (link: Link) => void written.push(link),
  } as unknown as LinkWriterDeps["records"]);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

const input = (extra: Partial<NewLink> = {}): NewLink =>
  ({ url: "https://example.com/a", title: "A", ...extra }) as NewLink;

describe("insertLink's statement", () => {
  it("returns the row Prisma reads back, with the account's default expiry, and writes that to the record and the event", async () => {
    const before = Date.now();
    const link = await insertLink(deps, accountA, input());
    const stored = await prisma.link.findFirst({ where: { id: link.id } });
    expect(link).toStrictEqual(stored);
    expect(link.expiresAt!.getTime()).toBeGreaterThanOrEqual(before + 48 * 3_600_000 - 1_000);
    expect(written.at(-1)).toBe(link);
    const [event] = await prisma.outboxEvent.findMany({ where: { key: link.id } });
    expect(event?.payload).toMatchObject({
      type: "link.created",
      link_id: link.id,
      account_id: accountA,
      link: { short_code: link.shortCode, expires_at: link.expiresAt!.toISOString(), has_password: false },
    });
  });

  it("stores every column given (alias, password hash, expiry, title with quotes and emoji) as Prisma reads it", async () => {
    const link = await insertLink(
      deps,
      accountA,
      input({
        custom_alias: `stmt-${Date.now()}`,
        password: "correct horse",
        expires_at: "2031-02-03T04:05:06.789Z",
        title: "Ünïcödé “quotes” \\ ' and emoji 🙂",
        url: "https://example.com/?q='; DROP TABLE links; --",
        frameable: true,
      }),
    );
    const stored = await prisma.link.findFirst({ where: { id: link.id } });
    expect(link).toStrictEqual(stored);
    expect(link.passwordHash).toMatch(/^\$argon2id\$/);
    expect(link.expiresAt).toEqual(new Date("2031-02-03T04:05:06.789Z"));
    expect(link.frameCheckedAt).toBeInstanceOf(Date);
  });

  it("refuses a taken alias with 409, an unknown account with 401 and the limit with 403, writing nothing", async () => {
    const alias = `taken-${Date.now()}`;
    await insertLink(deps, accountA, input({ custom_alias: alias }));
    await expect(insertLink(deps, accountA, input({ custom_alias: alias }))).rejects.toMatchObject({
      status: 409,
      code: "CONFLICT",
    });
    await expect(insertLink(deps, "00000000-0000-4000-8000-000000000000", input())).rejects.toMatchObject({
      status: 401,
    });
    // The account's limit is 3 and it has 3 links now.
    await expect(insertLink(deps, accountA, input())).rejects.toMatchObject({ status: 403 });
    expect(await prisma.link.count({ where: { accountId: accountA } })).toBe(3);
    expect(await prisma.outboxEvent.count()).toBe(3);
  });
});

describe("creates sent together", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Counts the pool's kurz_create_links calls while calling the real pool. */
  const countCalls = () => {
    const query = vi.spyOn(poolOf(prisma) as unknown as { query: (q: unknown) => unknown }, "query");
    return () =>
      query.mock.calls.filter(([q]) => (q as { name?: string }).name === "kurz_create_links").length;
  };

  const outcome = (p: Promise<Link>) =>
    p.then(
      (link) => ({ ok: link }),
      (err: { status?: number }) => ({ status: err.status }),
    );

  it("are one call, in which each is done or refused on its own and the count stays exact", async () => {
    const b = (await createTestAccount(prisma, "batch-b", 5)).account_id;
    const c = (await createTestAccount(prisma, "batch-c", 5)).account_id;
    const other = (await createTestAccount(prisma, "batch-other")).account_id;
    const alias = `batch-${Date.now().toString(36)}`;
    const reserved = `${alias}-r`;
    // Retired by another account a moment ago: reserved to it within the grace.
    await prisma.retiredCode.create({
      data: { shortCode: reserved, accountId: other, linkId: "00000000-0000-4000-8000-000000000001" },
    });
    const eventsBefore = await prisma.outboxEvent.count();
    const calls = countCalls();

    const results = await Promise.all([
      outcome(insertLink(deps, b, input({ custom_alias: alias }))),
      outcome(insertLink(deps, b, input({ custom_alias: alias }))), // the same alias again: 409
      outcome(insertLink(deps, b, input({ custom_alias: reserved }))), // another's reserved code: 409
      ...Array.from({ length: 5 }, () => outcome(insertLink(deps, b, input()))),
      outcome(insertLink(deps, c, input())),
      outcome(insertLink(deps, "00000000-0000-4000-8000-000000000000", input())), // 401
    ]);

    expect(calls()).toBe(1);
    const forB = results.slice(0, 8);
    // Six of b's links could be inserted and five fit: the last one sent is refused at the limit.
    expect(forB.map((r) => ("ok" in r ? 201 : r.status))).toEqual([201, 409, 409, 201, 201, 201, 201, 403]);
    expect(results[8]).toHaveProperty("ok");
    expect(results[9]).toEqual({ status: 401 });

    const stored = await prisma.link.findMany({ where: { accountId: b } });
    const created = forB.flatMap((r) => ("ok" in r && r.ok ? [r.ok.id] : []));
    expect(stored.map((l) => l.id).sort()).toEqual([...created].sort());
    expect(stored.filter((l) => l.shortCode === alias)).toHaveLength(1);
    const [quota] = await prisma.$queryRaw<{ used: number }[]>`
      SELECT COALESCE(sum(used), 0)::int AS used FROM link_quota WHERE account_id = ${b}::uuid`;
    expect(quota?.used).toBe(5);
    // One event for each link created (b's five and c's one), none for the refused.
    expect(await prisma.outboxEvent.count()).toBe(eventsBefore + 6);
    expect(await prisma.outboxEvent.count({ where: { key: { in: created } } })).toBe(5);
  });

  it("are sent again after a deadlock, one at a time after another error, and not when the database is down", async () => {
    const d = (await createTestAccount(prisma, "batch-d", 10)).account_id;
    const pool = poolOf(prisma) as unknown as { query: (q: unknown) => Promise<unknown> };
    const deadlock = Object.assign(new Error("deadlock detected"), { code: "40P01" });
    const query = vi.spyOn(pool, "query").mockRejectedValueOnce(deadlock);
    const done = await Promise.all([insertLink(deps, d, input()), insertLink(deps, d, input())]);
    expect(
      query.mock.calls.filter(([q]) => (q as { name?: string }).name === "kurz_create_links"),
    ).toHaveLength(2);
    expect(await prisma.link.count({ where: { id: { in: done.map((l) => l.id) } } })).toBe(2);

    // Any other error: the creates are sent again one at a time, and only the one that fails alone fails.
    const dataError = Object.assign(new Error("division by zero"), { code: "22012" });
    query.mockRejectedValueOnce(dataError).mockRejectedValueOnce(dataError);
    const split = await Promise.all([
      outcome(insertLink(deps, d, input())),
      outcome(insertLink(deps, d, input())),
    ]);
    expect(split[0]).toEqual({ status: undefined });
    expect(split[1]).toHaveProperty("ok");
    // An unavailable database fails each create of the call at once, without sending them again.
    const calls = query.mock.calls.length;
    query.mockRejectedValueOnce(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
    const down = await Promise.all([
      outcome(insertLink(deps, d, input())),
      outcome(insertLink(deps, d, input())),
    ]);
    expect(down).toEqual([{ status: undefined }, { status: undefined }]);
    expect(query.mock.calls.length).toBe(calls + 1);
    expect(await prisma.link.count({ where: { accountId: d } })).toBe(3);
  });
});
