// The periodic framing re-check of overlay links (decision 0026: X-Frame-Options/CSP frame-ancestors are
// checked at link save and refreshed periodically), against the real Postgres, Redis and a destination on
// loopback whose policy changes: a stale check is redone and the redirect record follows, a fresh one and a
// link without an overlay are left alone.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { RedirectRecord, redirectKey } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertLink } from "../src/links/insert-link.ts";
import type { LinkWriterDeps } from "../src/links/link-writer.ts";
import { refreshFraming } from "../src/overlays/frame-refresher.ts";
import type { RedirectRecords } from "../src/projections/link-records.ts";
import { TitleFetcher } from "../src/titles/title-fetcher.ts";
import { createTestAccount, type InProcessWriterBed, startInProcessWriter } from "./links-helpers.ts";

const DAY = 86_400_000;
let bed: InProcessWriterBed;
let prisma: PrismaClient;
let redis: Redis;
let records: RedirectRecords;
let deps: LinkWriterDeps;
let server: Server;
let origin: string;
/** What the destination answers framing with; changed by the tests. */
let frameOptions: string | null = null;
const titles = new TitleFetcher({ allowHosts: ["127.0.0.1"] });

beforeAll(async () => {
  bed = await startInProcessWriter("frame_refresh", DAY);
  ({ prisma, redis, records, deps } = bed);
  server = createServer((_req, res) => {
    if (frameOptions !== null) res.setHeader("X-Frame-Options", frameOptions);
    res.setHeader("content-type", "text/html");
    res.end("<title>dest</title>");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await bed?.stop();
});

const record = async (code: string) =>
  RedirectRecord.parse(JSON.parse((await redis.get(redirectKey(code)))!));

describe("refreshFraming", () => {
  it("redoes a stale check, rewrites the redirect record, and leaves fresh checks and plain links alone", async () => {
    const { account_id } = await createTestAccount(prisma, "frames");
    const overlay = await prisma.overlay.create({
      data: { accountId: account_id, type: "message", name: "o" },
    });
    // Saved while the destination allowed framing.
    const framed = await insertLink(deps, account_id, {
      url: `${origin}/page`,
      title: "framed",
      overlayId: overlay.id,
      frameable: await titles.framingAllowed(`${origin}/page`),
    });
    expect(framed.frameable).toBe(true);
    const plain = await insertLink(deps, account_id, { url: `${origin}/plain`, title: "plain" });
    expect((await record(framed.shortCode)).frameable).toBe(true);

    // The site starts refusing frames; the check is fresh, so nothing is redone yet.
    frameOptions = "DENY";
    expect(await refreshFraming(prisma, titles, records, DAY)).toBe(0);
    expect((await record(framed.shortCode)).frameable).toBe(true);

    // A day later the check is stale: it is redone, and the redirect switches to the interstitial.
    await prisma.link.update({
      where: { id: framed.id },
      data: { frameCheckedAt: new Date(Date.now() - 2 * DAY) },
    });
    expect(await refreshFraming(prisma, titles, records, DAY)).toBe(1);
    const after = await prisma.link.findUniqueOrThrow({ where: { id: framed.id } });
    expect(after.frameable).toBe(false);
    expect(after.frameCheckedAt!.getTime()).toBeGreaterThan(Date.now() - DAY);
    expect((await record(framed.shortCode)).frameable).toBe(false);

    // Fresh again; the link without an overlay was never checked.
    expect(await refreshFraming(prisma, titles, records, DAY)).toBe(0);
    const untouched = await prisma.link.findUniqueOrThrow({ where: { id: plain.id } });
    expect([untouched.frameable, untouched.frameCheckedAt]).toEqual([null, null]);
  });
});
