// Click totals take a workspace's row before its links' rows, as leaving for good does (it locks the
// person's workspaces, then deletes their links): in the opposite order the two deadlocked, and when
// Postgres chose the deletion as the victim the person got a 500.
import { createPrisma, type PrismaClient, poolOf } from "@kurz/db";
import { type TestDatabase, waitFor } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyClickTotals } from "../src/links/click-totals.ts";
import { insertLink, type NewLink } from "../src/links/insert-link.ts";
import type { LinkWriterDeps } from "../src/links/link-writer.ts";
import { createTestAccount, inProcessWriter } from "./links-helpers.ts";

let database: TestDatabase;
let prisma: PrismaClient;

beforeAll(async () => {
  database = await createMigratedDatabase("click_totals_lock_order");
  prisma = createPrisma(database.url);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

describe("click totals beside a transaction that holds the workspace and deletes its links", () => {
  it("wait for the workspace before touching a link, so the deletion goes through and the totals after it", async () => {
    const account = (await createTestAccount(prisma, "totals-lock")).account_id;
    const deps = inProcessWriter(prisma, { put: async () => {} } as unknown as LinkWriterDeps["records"]);
    const link = await insertLink(deps, account, { url: "https://example.com/t", title: "T" } as NewLink);

    // A connection of another client's pool: the totals' transaction has the first client's.
    const other = createPrisma(database.url);
    const leaver = await poolOf(other).connect();
    try {
      await leaver.query("BEGIN");
      await leaver.query("SET LOCAL lock_timeout = '10s'");
      await leaver.query("SELECT id FROM accounts WHERE id = $1 FOR UPDATE", [account]);

      const totals = applyClickTotals(prisma, new Map([[link.id, { account, clicks: 5 }]])).then(
        () => "applied",
        (error: unknown) => `failed: ${String(error)}`,
      );
      // The totals' transaction is waiting on a lock (the workspace's row, with the fix).
      await waitFor(
        async () => {
          const { rows } = await leaver.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
          );
          return rows[0].n > 0;
        },
        { timeoutMs: 10_000, description: "the click totals to wait on a lock" },
      );

      // Holding the workspace, the deletion reaches the link: nothing else holds its row.
      const deleted = await leaver.query("DELETE FROM links WHERE account_id = $1", [account]);
      expect(deleted.rowCount).toBe(1);
      await leaver.query("COMMIT");
      expect(await totals).toBe("applied");
    } finally {
      leaver.release();
      await other.$disconnect();
    }
    expect(await prisma.link.findUnique({ where: { id: link.id } })).toBeNull();
  });

  it("still apply the larger count and the workspace's sum when nothing else holds them", async () => {
    const account = (await createTestAccount(prisma, "totals-apply")).account_id;
    const deps = inProcessWriter(prisma, { put: async () => {} } as unknown as LinkWriterDeps["records"]);
    const a = await insertLink(deps, account, { url: "https://example.com/a", title: "A" } as NewLink);
    const b = await insertLink(deps, account, { url: "https://example.com/b", title: "B" } as NewLink);
    await applyClickTotals(
      prisma,
      new Map([
        [a.id, { account, clicks: 7 }],
        [b.id, { account, clicks: 3 }],
      ]),
    );
    // A smaller total (a late or redelivered message) changes nothing.
    await applyClickTotals(prisma, new Map([[a.id, { account, clicks: 2 }]]));
    const links = await prisma.link.findMany({
      where: { accountId: account },
      orderBy: { createdAt: "asc" },
    });
    expect(Object.fromEntries(links.map((l) => [l.id, Number(l.clicksCount)]))).toEqual({
      [a.id]: 7,
      [b.id]: 3,
    });
    const stored = await prisma.account.findUniqueOrThrow({ where: { id: account } });
    expect(Number(stored.totalClicks)).toBe(10);
  });
});
