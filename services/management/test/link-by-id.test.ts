// `GET /api/v1/links/:id`'s one-statement read (decision 0044) against the real Postgres: for every kind
// of link it returns exactly the row `prisma.link.findFirst` returns (less the redirect record's version),
// and the JSON made from it equals the JSON the Prisma path made (the link plus all the account's
// domains); another account's link, or an unknown id, is not found.
import { randomUUID } from "node:crypto";
import { createPrisma, type Link, type PrismaClient, poolOf } from "@kurz/db";
import type { TestDatabase } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { linkWithDomain } from "../src/links/get-link.ts";
import { toLinkJson } from "../src/links/link-json.ts";
import { accountDomains } from "../src/links/short-url.ts";
import { createTestAccount } from "./links-helpers.ts";

const BASE_URL = "https://kurz.example";

let database: TestDatabase;
let prisma: PrismaClient;
let accountA: string;
let accountB: string;
const links: Record<string, Link> = {};

beforeAll(async () => {
  database = await createMigratedDatabase("link_by_id");
  prisma = createPrisma(database.url);
  [accountA, accountB] = await Promise.all([
    createTestAccount(prisma, "by-id-a").then((a) => a.account_id),
    createTestAccount(prisma, "by-id-b").then((a) => a.account_id),
  ]);
  // A's domain is stored with a trailing slash on its origin (short URLs drop it); B's is foreign to A.
  const ownDomain = await prisma.domain.create({
    data: { accountId: accountA, host: "go.brand-a.example", origin: "https://go.brand-a.example/" },
  });
  const foreignDomain = await prisma.domain.create({
    data: { accountId: accountB, host: "go.brand-b.example", origin: "https://go.brand-b.example" },
  });
  const overlay = await prisma.overlay.create({ data: { accountId: accountA, type: "message", name: "o" } });
  const make = (key: string, data: Partial<Link>) =>
    prisma.link
      .create({
        data: {
          accountId: accountA,
          shortCode: `byid${key}${randomUUID().slice(0, 8)}`,
          originalUrl: `https://example.com/${key}`,
          title: `Title ${key}`,
          ...data,
        } as Parameters<PrismaClient["link"]["create"]>[0]["data"],
      })
      .then((link) => {
        links[key] = link;
      });
  await Promise.all([
    make("plain", {}),
    make("everything", {
      passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
      isActive: false,
      expiresAt: new Date("2031-02-03T04:05:06.789Z"),
      clicksCount: 9_007_199_254_740_993n,
      analyticsPublic: true,
      analyticsSharedFields: ["referrers", "countries"],
      overlayId: overlay.id,
      domainId: ownDomain.id,
      frameable: true,
      frameCheckedAt: new Date("2030-01-01T00:00:00.001Z"),
      title: "Ünïcödé “quotes” \\ and emoji 🙂",
    }),
    make("emptyShared", { analyticsSharedFields: [] }),
    // Not something the API lets happen; the rule of accountDomains is that a domain that is not the
    // account's own shows the main host, and the one-statement read must agree.
    make("foreignDomain", { domainId: foreignDomain.id }),
  ]);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

describe("linkWithDomain", () => {
  for (const key of ["plain", "everything", "emptyShared", "foreignDomain"]) {
    it(`reads the ${key} link exactly as Prisma does, and the same JSON comes of it`, async () => {
      const id = links[key]!.id;
      const viaPrisma = await prisma.link.findFirst({ where: { id, accountId: accountA } });
      const found = await linkWithDomain(prisma, accountA, id);
      expect(found).not.toBeNull();
      // Every column but the redirect record's version, which the API never shows.
      const { version: _, ...shown } = viaPrisma!;
      expect(found!.link).toStrictEqual(shown);
      expect(toLinkJson(found!.link, BASE_URL, found!.domains)).toStrictEqual(
        toLinkJson(viaPrisma!, BASE_URL, await accountDomains(prisma, accountA)),
      );
    });
  }

  it("gives the branded domain's host and origin without its trailing slash", async () => {
    const found = await linkWithDomain(prisma, accountA, links.everything!.id);
    const json = toLinkJson(found!.link, BASE_URL, found!.domains);
    expect(json.domain).toBe("go.brand-a.example");
    expect(json.short_url).toBe(`https://go.brand-a.example/${links.everything!.shortCode}`);
    expect(json.clicks_count).toBe(Number(9_007_199_254_740_993n));
  });

  it("finds nothing for another account's link, an unknown id, or a link of the asking account asked as another", async () => {
    expect(await linkWithDomain(prisma, accountB, links.plain!.id)).toBeNull();
    expect(await linkWithDomain(prisma, accountA, randomUUID())).toBeNull();
    expect(await linkWithDomain(prisma, randomUUID(), links.everything!.id)).toBeNull();
  });

  it("is planned once for all calls, not again at each (the generic plan is kept)", async () => {
    // At a realistic size: on a near-empty table ten index probes cost so little that even the old
    // statement's generic plan won.
    const filler = await createTestAccount(prisma, "by-id-filler");
    await prisma.$executeRaw`
      INSERT INTO links (id, account_id, short_code, original_url, title, updated_at)
      SELECT gen_random_uuid(), ${filler.account_id}::uuid, 'byidfill' || i, 'https://example.com/f', 'f', now()
      FROM generate_series(1, 50000) AS i`;
    await prisma.$executeRaw`ANALYZE links`;
    // One connection, so that its session's prepared statement is the one every call used.
    const url = new URL(database.url);
    url.searchParams.set("connection_limit", "1");
    const single = createPrisma(url.toString());
    try {
      for (let call = 0; call < 12; call++) {
        // Batches of one and of three reads: a custom plan of each size costs differently.
        const ids =
          call % 2 === 0 ? [links.plain!.id] : [links.plain!.id, links.everything!.id, randomUUID()];
        const found = await Promise.all(ids.map((id) => linkWithDomain(single, accountA, id)));
        expect(found[0]?.link.id).toBe(links.plain!.id);
      }
      const { rows } = await poolOf(single).query<{
        generic_plans: string;
        custom_plans: string;
      }>("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'kurz_links_by_id'");
      expect(rows).toHaveLength(1);
      // Postgres tries five custom plans before it weighs the generic one.
      expect(Number(rows[0]!.custom_plans)).toBeLessThanOrEqual(5);
      expect(Number(rows[0]!.generic_plans)).toBeGreaterThanOrEqual(7);
    } finally {
      await single.$disconnect();
    }
  });

  it("answers reads sent together in one statement, each only with its own account's link", async () => {
    const query = vi.spyOn(poolOf(prisma) as unknown as { query: (q: unknown) => unknown }, "query");
    try {
      const asked: [string, string][] = [
        [accountA, links.plain!.id],
        [accountB, links.plain!.id], // A's link asked as B
        [accountA, links.everything!.id],
        [accountA, randomUUID()],
        [accountB, links.everything!.id],
        [accountA, links.plain!.id], // the same read twice
      ];
      const found = await Promise.all(asked.map(([account, id]) => linkWithDomain(prisma, account, id)));
      const calls = query.mock.calls.filter(([q]) => (q as { name?: string }).name === "kurz_links_by_id");
      expect(calls).toHaveLength(1);
      expect(found.map((f) => f?.link.id ?? null)).toEqual([
        links.plain!.id,
        null,
        links.everything!.id,
        null,
        null,
        links.plain!.id,
      ]);
      expect(found[2]!.domains.size).toBe(1);
    } finally {
      query.mockRestore();
    }
  });
});
