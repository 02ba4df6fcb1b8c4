// A link's redirect record carries the row's version (decision 0052): a trigger adds one whenever an
// UPDATE sets a column the record holds, whichever path wrote it, and Redis keeps the highest version it
// is given. So writes that reach Redis out of their commit order (two edits on two instances, an edit and
// the redirect's miss path, a delete and any write read before it) leave the newest state, and a deleted
// link never comes back. Against the real Postgres and Redis.
import { RedirectRecord, redirectKey } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteLinks } from "../src/links/delete-links.ts";
import { insertLink } from "../src/links/insert-link.ts";
import type { LinkWriterDeps } from "../src/links/link-writer.ts";
import { updateLink } from "../src/links/update-link.ts";
import type { RedirectRecords } from "../src/projections/link-records.ts";
import { createTestAccount, type InProcessWriterBed, startInProcessWriter } from "./links-helpers.ts";

let bed: InProcessWriterBed;
let prisma: PrismaClient;
let redis: Redis;
let records: RedirectRecords;
let deps: LinkWriterDeps;
let accountId: string;

beforeAll(async () => {
  bed = await startInProcessWriter("record_versions", 86_400_000);
  ({ prisma, redis, records, deps } = bed);
  accountId = (await createTestAccount(prisma, "versions")).account_id;
});

afterAll(async () => {
  await bed?.stop();
});

const stored = async (id: string) => (await prisma.link.findUniqueOrThrow({ where: { id } })).version;
const held = async (code: string): Promise<unknown> => JSON.parse((await redis.get(redirectKey(code)))!);
const record = async (code: string) => RedirectRecord.parse(await held(code));

describe("the links row's version", () => {
  it("starts at 1 and grows by one with each UPDATE of a column the record holds, on any path", async () => {
    const link = await insertLink(deps, accountId, { url: "https://example.com/v1", title: "one" });
    expect(await stored(link.id)).toBe(1n);
    expect((await record(link.shortCode)).v).toBe(1);

    // Columns the record does not hold: the title, the click totals.
    await updateLink(deps, accountId, link.id, { title: "retitled" });
    await prisma.$executeRaw`UPDATE links SET clicks_count = clicks_count + 5 WHERE id = ${link.id}::uuid`;
    expect(await stored(link.id)).toBe(1n);

    const edited = await updateLink(deps, accountId, link.id, { is_active: false });
    expect(edited.version).toBe(2n); // the row as the UPDATE returned it, trigger included
    expect(await record(link.shortCode)).toMatchObject({ active: false, v: 2 });

    // Raw SQL (as the legacy API and bulk paths write) counts the same.
    await prisma.$executeRaw`UPDATE links SET original_url = 'https://example.com/v3' WHERE id = ${link.id}::uuid`;
    expect(await stored(link.id)).toBe(3n);
  });
});

describe("redirect records written out of their commit order", () => {
  it("keep the edit when a read made before it (the miss path's) is written after it", async () => {
    const link = await insertLink(deps, accountId, { url: "https://example.com/first", title: "t" });
    const readBefore = await prisma.link.findUniqueOrThrow({ where: { id: link.id } });
    await updateLink(deps, accountId, link.id, { is_active: false });
    await records.put(readBefore);
    expect(await record(link.shortCode)).toMatchObject({ active: false, v: 2 });
  });

  it("never bring a deleted link back", async () => {
    const link = await insertLink(deps, accountId, { url: "https://example.com/doomed", title: "t" });
    const readBefore = await prisma.link.findUniqueOrThrow({ where: { id: link.id } });
    await deleteLinks(deps, accountId, [link.id]);
    expect(await held(link.shortCode)).toEqual({ id: link.id, deleted: true, c: link.createdAt.getTime() });
    await records.put(readBefore);
    await records.putMany([{ ...readBefore, version: readBefore.version + 10n }]);
    expect(await held(link.shortCode)).toEqual({ id: link.id, deleted: true, c: link.createdAt.getTime() });
  });
});
