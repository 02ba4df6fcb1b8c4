// Reading a running Kutt's or YOURLS's links through its API (`./kurz import --from-kutt/--from-yourls`),
// against their recorded answers (peer-replay.ts): Kutt's 50-link pages stepped through to its total,
// YOURLS's stats paged or whole, and every way a peer can fail us answered with a clear error that
// never shows the key or the signature.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchKuttExport, fetchYourlsExport, PeerExportError } from "../src/imports/fetch-peer-export.ts";
import { readImportFile } from "../src/imports/import-file.ts";
import { kuttPages, type PeerReplay, startPeerReplay, yourlsDir } from "./peer-replay.ts";

const KEY = "kutt-key-9f8e7d6c5b4a39281706";
const SIGNATURE = "a1b2c3d4e5";

let peer: PeerReplay;
beforeAll(async () => {
  peer = await startPeerReplay(KEY, SIGNATURE);
});
afterAll(async () => {
  await peer?.close();
});

/** The Kutt pages' links in the order Kutt listed them, and the total it reported. */
function recordedKutt() {
  const pages = [...kuttPages().entries()].sort(([a], [b]) => a - b).map(([, b]) => JSON.parse(b.toString()));
  return {
    total: pages[0].total as number,
    codes: pages.flatMap((p) => p.data.map((l: { address: string }) => l.address)),
  };
}

function recordedYourls() {
  const doc = JSON.parse(readFileSync(join(yourlsDir, "stats-limit-1000.json"), "utf8"));
  const links = Object.values(doc.links) as { shorturl: string; url: string }[];
  return { total: Number(doc.stats.total_links), urls: links.map((l) => l.url) };
}

/** The rejection's message, checked to be a PeerExportError that does not show `secret`. */
async function failure(promise: Promise<unknown>, secret: string): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PeerExportError);
  const message = (err as Error).message;
  expect(message).not.toContain(secret);
  return message;
}

describe("Kutt through its API", () => {
  it("pages by 50 until Kutt's total is read, and the result imports as those links", async () => {
    const { total, codes } = recordedKutt();
    expect(total).toBeGreaterThan(100);
    const from = peer.requests.length;
    const progress: [number, number][] = [];
    const content = await fetchKuttExport(`${peer.origin}/`, KEY, {
      onPage: (r, t) => progress.push([r, t]),
    });

    const asked = peer.requests.slice(from);
    expect(asked.map((u) => u.pathname)).toEqual(asked.map(() => "/api/v2/links"));
    expect(asked.map((u) => u.searchParams.get("limit"))).toEqual(asked.map(() => "50"));
    expect(asked.map((u) => Number(u.searchParams.get("skip")))).toEqual(
      Array.from({ length: Math.ceil(total / 50) }, (_, i) => i * 50),
    );
    expect(progress.at(-1)).toEqual([total, total]);

    const { format, rows } = readImportFile(content, "auto");
    expect(format).toBe("kutt");
    expect(rows).toHaveLength(total);
    expect(rows.map((r) => r.alias)).toEqual(codes);
  });

  it("takes the address of the links endpoint itself as well as the site's", async () => {
    const content = await fetchKuttExport(`${peer.origin}/api/v2/links`, KEY);
    expect(readImportFile(content, "kutt").rows).toHaveLength(recordedKutt().total);
  });

  it("says what Kutt answered to a wrong key, without the key", async () => {
    const message = await failure(fetchKuttExport(peer.origin, "not-the-key-000111"), "not-the-key-000111");
    expect(message).toBe(`Kutt at ${peer.origin}/api/v2/links answered 401: Unauthorized.`);
  });

  it("masks the key when the peer's own message repeats it", async () => {
    const message = await failure(fetchKuttExport(`${peer.origin}/echo`, KEY), KEY);
    expect(message).toContain("answered 500: bad key ***");
  });

  it("refuses an answer that is not JSON, a redirect, silence and too many bytes", async () => {
    expect(await failure(fetchKuttExport(`${peer.origin}/html`, KEY), KEY)).toMatch(
      /answered 200 with something that is not JSON \(text\/html; charset=utf-8\)/,
    );
    const before = peer.requests.length;
    expect(await failure(fetchKuttExport(`${peer.origin}/redirect`, KEY), KEY)).toBe(
      `Kutt at ${peer.origin}/redirect/api/v2/links answered a redirect (302) to http://elsewhere.invalid/api/v2/links; give the address it redirects to`,
    );
    expect(peer.requests.length).toBe(before + 1);
    expect(await failure(fetchKuttExport(`${peer.origin}/silent`, KEY, { timeoutMs: 300 }), KEY)).toBe(
      `Kutt at ${peer.origin}/silent/api/v2/links did not answer within 0.3 s`,
    );
    expect(await failure(fetchKuttExport(peer.origin, KEY, { maxBytes: 20_000 }), KEY)).toMatch(
      /sent more than the 32 MiB an import takes/,
    );
  });

  it("takes only an http(s) address without credentials in it", async () => {
    expect(await failure(fetchKuttExport("file:///etc/passwd", KEY), KEY)).toMatch(/http:\/\/ or https:\/\//);
    expect(await failure(fetchKuttExport("kutt.example", KEY), KEY)).toMatch(/full URL/);
    expect(await failure(fetchKuttExport(peer.origin.replace("//", "//u:p@"), KEY), KEY)).toMatch(
      /without user:password@/,
    );
  });

  it("says so when nothing listens there", async () => {
    const closed = await startPeerReplay(KEY, SIGNATURE);
    await closed.close();
    expect(await failure(fetchKuttExport(closed.origin, KEY), KEY)).toMatch(
      /could not reach Kutt at .*ECONNREFUSED/,
    );
  });
});

describe("YOURLS through its API", () => {
  it("reads the stats in one large page, and the result imports as those links", async () => {
    const { total, urls } = recordedYourls();
    const from = peer.requests.length;
    const content = await fetchYourlsExport(peer.origin, SIGNATURE);
    const asked = peer.requests.slice(from);
    expect(asked).toHaveLength(1);
    expect(Object.fromEntries(asked[0]!.searchParams)).toMatchObject({
      action: "stats",
      filter: "last",
      limit: "10000",
      start: "0",
      format: "json",
    });
    const { format, rows } = readImportFile(content, "auto");
    expect(format).toBe("yourls");
    expect(rows.map((r) => r.url)).toEqual(urls);
    expect(rows).toHaveLength(total);
  });

  it("pages with start until the total is read, and the pages join into the same links", async () => {
    const { total, urls } = recordedYourls();
    const from = peer.requests.length;
    const content = await fetchYourlsExport(`${peer.origin}/yourls-api.php`, SIGNATURE, { pageSize: 50 });
    const asked = peer.requests.slice(from);
    expect(asked.map((u) => Number(u.searchParams.get("start")))).toEqual(
      Array.from({ length: Math.ceil(total / 50) }, (_, i) => i * 50),
    );
    expect(readImportFile(content, "yourls").rows.map((r) => r.url)).toEqual(urls);
  });

  it("says what YOURLS answered to a wrong signature, without the signature or the query", async () => {
    const message = await failure(fetchYourlsExport(peer.origin, "0000000000"), "0000000000");
    expect(message).toBe(`YOURLS at ${peer.origin}/yourls-api.php answered 403: Please log in`);
    expect(await failure(fetchYourlsExport(`${peer.origin}/html`, SIGNATURE), SIGNATURE)).toMatch(/not JSON/);
  });
});
