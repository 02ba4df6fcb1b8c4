// The stored link count (decision 0037) against the real Postgres, through the service functions the
// v1 and bulk endpoints call: concurrent creates at the limit stay exact, deletes (single, bulk,
// overlapping) uncount exactly what they removed, and the count always equals the rows. In-process
// with no HTTP in between, so the races are as tight as the connection pool allows.
import { createPrisma, isUniqueViolation, type Link, type PrismaClient } from "@kurz/db";
import { isApiError } from "@kurz/service-kit";
import { type TestDatabase, waitFor } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteLinks } from "../src/links/delete-links.ts";
import { insertLink } from "../src/links/insert-link.ts";
import { assertRoomFor, linkCounts, storedLinkCount } from "../src/links/link-count.ts";
import type { LinkWriterDeps } from "../src/links/link-writer.ts";
import { listLinks } from "../src/links/list-links.ts";
import type { RedirectRecords } from "../src/projections/link-records.ts";
import { createTestAccount, inProcessWriter } from "./links-helpers.ts";

let database: TestDatabase;
let prisma: PrismaClient;
let deps: LinkWriterDeps;

beforeAll(async () => {
  database = await createMigratedDatabase("link_count");
  // More connections than racers, so every request of a race holds a transaction at the same time.
  const url = new URL(database.url);
  url.searchParams.set("connection_limit", "24");
  prisma = createPrisma(url.toString());
  // The redirect records (Redis) are not what these tests are about.
  const records = {
    put: async () => {},
    remove: async () => {},
    removeMany: async () => {},
  } as unknown as RedirectRecords;
  deps = inProcessWriter(prisma, records);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

const realCount = (accountId: string) => prisma.link.count({ where: { accountId } });

/** The stored count equals the rows, and so does what the list and the pre-check see. */
async function expectExact(accountId: string, expected: number): Promise<void> {
  expect(await realCount(accountId)).toBe(expected);
  expect(await storedLinkCount(prisma, accountId)).toBe(expected);
  const { total } = await listLinks(prisma, accountId, { page: 1, per_page: 1 });
  expect(total).toBe(expected);
}

const newLink = (i: number) => ({ url: `https://example.com/${i}`, title: `t${i}` });

/** Settles every promise; returns the fulfilled values and the rejections. */
async function settle<T>(promises: Promise<T>[]): Promise<{ ok: T[]; failed: unknown[] }> {
  const results = await Promise.allSettled(promises);
  return {
    ok: results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : [])),
    failed: results.flatMap((r) => (r.status === "rejected" ? [r.reason] : [])),
  };
}

const expectLimitErrors = (failed: unknown[], limit: number) => {
  for (const err of failed) {
    expect(isApiError(err), String(err)).toBe(true);
    expect(err).toMatchObject({ status: 403, code: "FORBIDDEN" });
    expect((err as Error).message).toBe(
      `Link limit reached (${limit}). Delete existing links or upgrade your plan.`,
    );
  }
};

describe("stored link count", () => {
  it("starts at zero and follows single creates and deletes", async () => {
    const { account_id: id } = await createTestAccount(prisma, "count-basic");
    await expectExact(id, 0);
    const a = await insertLink(deps, id, newLink(1));
    const b = await insertLink(deps, id, newLink(2));
    await expectExact(id, 2);
    expect(await deleteLinks(deps, id, [a.id])).toHaveLength(1);
    await expectExact(id, 1);
    // Unknown and already deleted ids remove nothing and uncount nothing.
    expect(await deleteLinks(deps, id, [a.id, "00000000-0000-4000-8000-000000000000"])).toHaveLength(0);
    await expectExact(id, 1);
    await deleteLinks(deps, id, [b.id]);
    await expectExact(id, 0);
  });

  it("lets exactly link_limit of 20 concurrent creates through, and rolls the others back", async () => {
    const { account_id: id } = await createTestAccount(prisma, "count-race", 5);
    const eventsBefore = await prisma.outboxEvent.count();
    const { ok, failed } = await settle(
      Array.from({ length: 20 }, (_, i) => insertLink(deps, id, newLink(i))),
    );
    expect(ok).toHaveLength(5);
    expect(failed).toHaveLength(15);
    expectLimitErrors(failed, 5);
    await expectExact(id, 5);
    // A refused create leaves nothing behind: no row, no event.
    expect((await prisma.outboxEvent.count()) - eventsBefore).toBe(5);
    await expect(assertRoomFor(prisma, id, 1)).rejects.toMatchObject({ status: 403 });
  });

  it("keeps concurrent batches exact at the limit (bulk creates each item in its own transaction)", async () => {
    const { account_id: id } = await createTestAccount(prisma, "count-bulk", 12);
    // Four batches of six, as four concurrent bulk requests would create them: in order, one by one.
    const batch = async (b: number) => {
      const created: Link[] = [];
      let refused = 0;
      for (let i = 0; i < 6; i++) {
        try {
          created.push(await insertLink(deps, id, newLink(b * 10 + i)));
        } catch (err) {
          expectLimitErrors([err], 12);
          refused++;
        }
      }
      return { created, refused };
    };
    const results = await Promise.all([0, 1, 2, 3].map(batch));
    expect(results.reduce((n, r) => n + r.created.length, 0)).toBe(12);
    expect(results.reduce((n, r) => n + r.refused, 0)).toBe(12);
    await expectExact(id, 12);

    // Two overlapping bulk deletes at once: each link is uncounted once, by the delete that removed it.
    const ids = results.flatMap((r) => r.created.map((l) => l.id));
    const [first, second] = await Promise.all([
      deleteLinks(deps, id, ids.slice(0, 8)),
      deleteLinks(deps, id, ids.slice(4, 12)),
    ]);
    expect(first.length + second.length).toBe(12);
    expect(new Set([...first, ...second].map((l) => l.id)).size).toBe(12);
    await expectExact(id, 0);
  });

  it("stays exact under creates and deletes mixed at the limit", async () => {
    const limit = 10;
    const { account_id: id } = await createTestAccount(prisma, "count-mixed", limit);
    const initial = await Promise.all(
      Array.from({ length: limit }, (_, i) => insertLink(deps, id, newLink(i))),
    );
    await expectExact(id, limit);
    // Full: 20 creates race 6 single deletes and one bulk delete of 2 (8 freed slots in all).
    const creates = Array.from({ length: 20 }, (_, i) => insertLink(deps, id, newLink(100 + i)));
    const deletes = [
      ...initial.slice(0, 6).map((l) => deleteLinks(deps, id, [l.id])),
      deleteLinks(
        deps,
        id,
        initial.slice(6, 8).map((l) => l.id),
      ),
    ];
    const [created, removed] = await Promise.all([settle(creates), Promise.all(deletes)]);
    expect(removed.flat()).toHaveLength(8);
    expectLimitErrors(created.failed, limit);
    // Never over the limit at any commit; at the end the rows and the count agree.
    const final = limit - 8 + created.ok.length;
    expect(final).toBeLessThanOrEqual(limit);
    await expectExact(id, final);
  });

  it("counts only the account's own links, and a failed create (taken alias) counts nothing", async () => {
    const [a, b] = await Promise.all([
      createTestAccount(prisma, "count-own-a"),
      createTestAccount(prisma, "count-own-b"),
    ]);
    const link = await insertLink(deps, a.account_id, { ...newLink(1), custom_alias: `own-${Date.now()}` });
    const err = await insertLink(deps, b.account_id, { ...newLink(2), custom_alias: link.shortCode }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ status: 409 });
    expect(isUniqueViolation(err)).toBe(false); // mapped to the 409, not leaked
    // Another account's ids are skipped by delete and uncount nothing there or here.
    expect(await deleteLinks(deps, b.account_id, [link.id])).toHaveLength(0);
    await expectExact(a.account_id, 1);
    await expectExact(b.account_id, 0);
  });

  it("gives the unfiltered list total from the stored count and still counts a filtered one", async () => {
    const { account_id: id } = await createTestAccount(prisma, "count-list");
    await insertLink(deps, id, newLink(1));
    await insertLink(deps, id, { ...newLink(2), title: "needle" });
    // Only a test writes the counter by hand: it shows which total reads it (38 more on one shard).
    await prisma.$executeRaw`UPDATE link_quota SET used = used + 38, lease = lease + 38
      WHERE account_id = ${id}::uuid AND shard = 0`;
    expect((await listLinks(prisma, id, { page: 1, per_page: 10 })).total).toBe(40);
    expect((await listLinks(prisma, id, { page: 1, per_page: 10, search: "needle" })).total).toBe(1);
    expect((await listLinks(prisma, id, { page: 1, per_page: 10, is_active: true })).total).toBe(2);
  });

  it("refuses a shard counted beyond its lease at the database", async () => {
    const { account_id: id } = await createTestAccount(prisma, "count-check");
    await insertLink(deps, id, newLink(1));
    await expect(
      prisma.$executeRaw`UPDATE link_quota SET used = lease + 1 WHERE account_id = ${id}::uuid AND shard = 0`,
    ).rejects.toThrow(/link_quota_used_within_lease/);
  });
});

// Decision 0037: the count is the sum of 16 shards, each counting creates within a leased share of the
// room; a spent lease sends a create to the rebalance, which locks the account and every shard.
describe("sharded count with leased quotas", () => {
  /** Every shard within its lease, and the unused leases within the room left under the limit. */
  async function expectLeasesWithinRoom(accountId: string): Promise<void> {
    const [row] = await prisma.$queryRaw<{ over: number; unused: number; room: number }[]>`
      SELECT count(*) FILTER (WHERE q.used > q.lease)::int AS over,
        COALESCE(sum(q.lease - q.used), 0)::int AS unused,
        (a.link_limit - COALESCE(sum(q.used), 0))::int AS room
      FROM accounts a LEFT JOIN link_quota q ON q.account_id = a.id
      WHERE a.id = ${accountId}::uuid GROUP BY a.link_limit`;
    expect(row!.over).toBe(0);
    expect(row!.unused).toBeLessThanOrEqual(Math.max(row!.room, 0));
  }

  /** Runs `workers` loops at once, each calling `step` until it returns false. */
  const workers = (n: number, step: (worker: number) => Promise<boolean>) =>
    Promise.all(
      Array.from({ length: n }, async (_, w) => {
        while (await step(w)) {}
      }),
    );

  it("lets exactly the limit through from 20 connections creating until refused", async () => {
    const limit = 240;
    const { account_id: id } = await createTestAccount(prisma, "quota-many", limit);
    let created = 0;
    const refusals: unknown[] = [];
    await workers(20, async (w) => {
      try {
        await insertLink(deps, id, newLink(w * 1000 + created));
        created++;
        return true;
      } catch (err) {
        refusals.push(err);
        return false;
      }
    });
    expect(created).toBe(limit);
    expect(refusals).toHaveLength(20);
    expectLimitErrors(refusals, limit);
    await expectExact(id, limit);
    await expectLeasesWithinRoom(id);
    // The creates spread over the shards rather than queueing on one row. Each batch of them counts on
    // one shard drawn at random (decision 0044). A batch holds at most one create per connection, so the
    // 240 make at least 12 batches (13 when measured): the chance that 12 draws of 16 shards fall on
    // three or fewer is about 1e-6.
    const [spread] = await prisma.$queryRaw<{ shards: number }[]>`
      SELECT count(*)::int AS shards FROM link_quota WHERE account_id = ${id}::uuid AND used > 0`;
    expect(spread!.shards).toBeGreaterThan(3);
  });

  it("stays exact, without deadlocks, under creates, bulk deletes and limit changes near the limit", async () => {
    const limit = 30;
    const { account_id: id } = await createTestAccount(prisma, "quota-churn", limit);
    const mine: string[] = [];
    const unexpected: unknown[] = [];
    let rounds = 0;
    // 12 connections: each creates, and every third round deletes up to two of the account's links
    // (one bulk delete), so shards go below zero, leases run out and rebalances overlap.
    const churn = workers(12, async (w) => {
      try {
        mine.push((await insertLink(deps, id, newLink(w * 10_000 + rounds))).id);
      } catch (err) {
        if (!(isApiError(err) && err.status === 403)) unexpected.push(err);
      }
      if (++rounds % 3 === 0) {
        const ids = mine.splice(0, 2);
        try {
          await deleteLinks(deps, id, ids);
        } catch (err) {
          unexpected.push(err);
        }
      }
      return rounds < 400;
    });
    // Meanwhile the limit goes down and up again (each lowering takes the leases back), once every 20
    // rounds of the churn's 400.
    const limits = (async () => {
      for (let i = 0; i < 20; i++) {
        await waitFor(() => rounds >= i * 20, {
          timeoutMs: 60_000,
          intervalMs: 5,
          description: `round ${i * 20}`,
        });
        await prisma.account.update({ where: { id }, data: { linkLimit: i % 2 === 0 ? limit - 10 : limit } });
      }
    })();
    await Promise.all([churn, limits]);
    expect(unexpected).toEqual([]);
    const rows = await realCount(id);
    expect(rows).toBeLessThanOrEqual(limit);
    await expectExact(id, rows);
    await expectLeasesWithinRoom(id);
  });

  it("refuses creates at once when the limit is lowered below the count, until deletes make room", async () => {
    const { account_id: id } = await createTestAccount(prisma, "quota-lowered", 100);
    const links = await Promise.all(Array.from({ length: 10 }, (_, i) => insertLink(deps, id, newLink(i))));
    // The shards hold leases for the 90 links still allowed; lowering the limit takes them back.
    await prisma.account.update({ where: { id }, data: { linkLimit: 8 } });
    await expectLeasesWithinRoom(id);
    const refused = await settle(
      Array.from({ length: 16 }, (_, i) => insertLink(deps, id, newLink(100 + i))),
    );
    expect(refused.ok).toHaveLength(0);
    expectLimitErrors(refused.failed, 8);
    await expect(assertRoomFor(prisma, id, 1)).rejects.toMatchObject({ status: 403 });
    await expectExact(id, 10);

    await deleteLinks(
      deps,
      id,
      links.slice(0, 4).map((l) => l.id),
    );
    await expectExact(id, 6);
    const raced = await settle(Array.from({ length: 16 }, (_, i) => insertLink(deps, id, newLink(200 + i))));
    expect(raced.ok).toHaveLength(2);
    expectLimitErrors(raced.failed, 8);
    await expectExact(id, 8);

    // Raised again: the new room is handed out by the next rebalance.
    await prisma.account.update({ where: { id }, data: { linkLimit: 11 } });
    const more = await settle(Array.from({ length: 8 }, (_, i) => insertLink(deps, id, newLink(300 + i))));
    expect(more.ok).toHaveLength(3);
    await expectExact(id, 11);
    await expectLeasesWithinRoom(id);
  });

  it("keeps each account's quota its own when two accounts race at their limits", async () => {
    const [a, b] = await Promise.all([
      createTestAccount(prisma, "quota-own-a", 6),
      createTestAccount(prisma, "quota-own-b", 6),
    ]);
    const race = (account: string, from: number) =>
      settle(Array.from({ length: 15 }, (_, i) => insertLink(deps, account, newLink(from + i))));
    const [ra, rb] = await Promise.all([race(a.account_id, 0), race(b.account_id, 100)]);
    expect(ra.ok).toHaveLength(6);
    expect(rb.ok).toHaveLength(6);
    // A's deletes free room for A only; B's ids deleted by A remove and uncount nothing.
    expect(
      await deleteLinks(
        deps,
        a.account_id,
        rb.ok.map((l) => l.id),
      ),
    ).toHaveLength(0);
    await deleteLinks(
      deps,
      a.account_id,
      ra.ok.slice(0, 3).map((l) => l.id),
    );
    const again = await settle(
      Array.from({ length: 5 }, (_, i) => insertLink(deps, b.account_id, newLink(200 + i))),
    );
    expect(again.ok).toHaveLength(0);
    await expectExact(a.account_id, 3);
    await expectExact(b.account_id, 6);
  });

  it("gives a newly created account its shards at its first create, and refuses an unknown account", async () => {
    const { account_id: id } = await createTestAccount(prisma, "quota-new", 3);
    expect(await prisma.linkQuota.count({ where: { accountId: id } })).toBe(0);
    await insertLink(deps, id, newLink(1));
    expect(await prisma.linkQuota.count({ where: { accountId: id } })).toBe(16);
    await expectExact(id, 1);
    await expect(insertLink(deps, "00000000-0000-4000-8000-000000000000", newLink(2))).rejects.toMatchObject({
      status: 401,
    });
  });
});

describe("active link count", () => {
  /** What the redirect answers at `now`, counted row by row: the truth linkCounts must match. */
  const answering = (accountId: string, now: Date) =>
    prisma.link.count({
      where: { accountId, isActive: true, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
    });

  it("equals the links that answer, whatever mix of switched off, expired and expiring", async () => {
    const { account_id: id } = await createTestAccount(prisma, "active-mix", 1_000);
    const other = await createTestAccount(prisma, "active-other", 1_000);
    const now = new Date();
    const created = [];
    for (let i = 0; i < 60; i++) created.push(await insertLink(deps, id, newLink(i)));
    // Another account's switched-off and expired links must not be subtracted from this one's.
    for (let i = 0; i < 5; i++) {
      const l = await insertLink(deps, other.account_id, newLink(100 + i));
      await prisma.link.update({ where: { id: l.id }, data: { isActive: false, expiresAt: new Date(0) } });
    }
    // Each link gets one of six states, from a seeded sequence so that a failure repeats.
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (const l of created) {
      const r = next() % 6;
      await prisma.link.update({
        where: { id: l.id },
        data: {
          isActive: r % 2 === 0,
          expiresAt:
            r < 2
              ? null
              : r < 4
                ? new Date(now.getTime() - 1_000 * (1 + r))
                : new Date(now.getTime() + 60_000),
        },
      });
    }
    const expected = await answering(id, now);
    expect(expected).toBeGreaterThan(0);
    expect(expected).toBeLessThan(60);
    expect(await linkCounts(prisma, id, now)).toEqual({ total: 60, active: expected });
    expect(await linkCounts(prisma, other.account_id, now)).toEqual({ total: 5, active: 0 });
    // A link expiring exactly at `now` no longer answers (the redirect's rule: expires_at > now).
    const edge = created[0]!;
    await prisma.link.update({ where: { id: edge.id }, data: { isActive: true, expiresAt: now } });
    expect((await linkCounts(prisma, id, now)).active).toBe(await answering(id, now));
    // Later, the links that were expiring have expired too.
    const later = new Date(now.getTime() + 120_000);
    expect((await linkCounts(prisma, id, later)).active).toBe(await answering(id, later));
  });

  it("follows creates and deletes through the stored count", async () => {
    const { account_id: id } = await createTestAccount(prisma, "active-follow", 100);
    const now = new Date();
    expect(await linkCounts(prisma, id, now)).toEqual({ total: 0, active: 0 });
    const [a, b, c] = [
      await insertLink(deps, id, newLink(1)),
      await insertLink(deps, id, newLink(2)),
      await insertLink(deps, id, newLink(3)),
    ];
    await prisma.link.update({ where: { id: b.id }, data: { isActive: false } });
    await prisma.link.update({ where: { id: c.id }, data: { expiresAt: new Date(now.getTime() - 1) } });
    expect(await linkCounts(prisma, id, now)).toEqual({ total: 3, active: 1 });
    await deleteLinks(deps, id, [a.id, b.id]);
    expect(await linkCounts(prisma, id, now)).toEqual({ total: 1, active: 0 });
    await deleteLinks(deps, id, [c.id]);
    expect(await linkCounts(prisma, id, now)).toEqual({ total: 0, active: 0 });
  });
});
