// A create's one statement on Prisma's pool (decision 0039) against the real Postgres: the link
// createLink returns is exactly the row `prisma.link.findFirst` reads back (so its JSON and its redirect
// record are what they were when the call went through Prisma), its outbox event carries the stored
// expiry, and the function's refusals still arrive as the API's errors.
import { createPrisma, type Link, type PrismaClient } from "@kurz/db";
import type { TestDatabase } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLink, type LinkWriterDeps, type NewLink } from "../src/links-service.ts";
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

describe("createLink's statement", () => {
  it("returns the row Prisma reads back, with the account's default expiry, and writes that to the record and the event", async () => {
    const before = Date.now();
    const link = await createLink(deps, accountA, input());
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
    const link = await createLink(
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
    await createLink(deps, accountA, input({ custom_alias: alias }));
    await expect(createLink(deps, accountA, input({ custom_alias: alias }))).rejects.toMatchObject({
      status: 409,
      code: "CONFLICT",
    });
    await expect(createLink(deps, "00000000-0000-4000-8000-000000000000", input())).rejects.toMatchObject({
      status: 401,
    });
    // The account's limit is 3 and it has 3 links now.
    await expect(createLink(deps, accountA, input())).rejects.toMatchObject({ status: 403 });
    expect(await prisma.link.count({ where: { accountId: accountA } })).toBe(3);
    expect(await prisma.outboxEvent.count()).toBe(3);
  });
});
