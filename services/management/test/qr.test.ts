// GET /api/v1/qr/:short_code through the gateway: PNG decoded with zbarimg, SVG parsed, every bad
// parameter refused, errors as JSON, tenant isolation.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { useStack } from "@kurz/testing/use-stack";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);

describe("QR codes", () => {
  const bed = useStack({ inProcess: true });
  let dir: string;
  let aliceKey: string;
  let bobKey: string;
  let link: { short_code: string; short_url: string };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "kurz-qr-"));
    const email = (label: string) => `qr-${label}-${process.pid}-${Date.now()}@example.com`;
    const [alice, bob] = await Promise.all([
      bed.stack.createAccount(email("a")),
      bed.stack.createAccount(email("b")),
    ]);
    aliceKey = alice.api_key;
    bobKey = bob.api_key;
    const res = await fetch(`${bed.stack.origin}/api/v1/links`, {
      method: "POST",
      headers: { authorization: `Bearer ${aliceKey}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/qr-target", title: "QR" }),
    });
    expect(res.status).toBe(201);
    link = ((await res.json()) as { data: typeof link }).data;
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const qr = (code: string, query = "", key = aliceKey) =>
    fetch(`${bed.stack.origin}/api/v1/qr/${code}${query}`, { headers: { authorization: `Bearer ${key}` } });

  let n = 0;
  async function decodePng(png: Buffer): Promise<string> {
    const file = join(dir, `qr-${++n}.png`);
    await writeFile(file, png);
    const { stdout } = await run("zbarimg", ["--quiet", "--raw", file]);
    return stdout.trim();
  }
  const pngWidth = (png: Buffer) => png.readUInt32BE(16); // IHDR width

  it("answers a PNG that decodes to the short URL, cacheable for a day", async () => {
    const res = await qr(link.short_code);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("cache-control")).toBe("private, max-age=86400");
    expect(res.headers.get("x-ratelimit-limit")).toBe("60");
    const png = Buffer.from(await res.arrayBuffer());
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(pngWidth(png)).toBe(400);
    expect(await decodePng(png)).toBe(link.short_url);
  });

  it("applies size, colours (with or without #, URL-encoded), transparent background, ec and margin", async () => {
    for (const query of [
      "?size=100",
      "?size=1000&margin=0&ec=H",
      "?color=%23003366&bg=%23FFFFEE",
      "?color=003366&bg=ffffee&ec=L&margin=4",
      "?format=png&ec=Q",
    ]) {
      const res = await qr(link.short_code, query);
      expect(res.status, query).toBe(200);
      const png = Buffer.from(await res.arrayBuffer());
      const size = /size=(\d+)/.exec(query)?.[1];
      expect(pngWidth(png), query).toBe(size ? Number(size) : 400);
      expect(await decodePng(png), query).toBe(link.short_url);
    }
    const transparent = await qr(link.short_code, "?bg=transparent");
    expect(transparent.status).toBe(200);
    const png = Buffer.from(await transparent.arrayBuffer());
    expect(png[25]).toBe(6); // colour type 6: RGBA, so the background can be transparent
  });

  it("answers an SVG that parses, with the requested size and colour", async () => {
    const res = await qr(link.short_code, "?format=svg&size=300&color=%23112233");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    expect(res.headers.get("cache-control")).toBe("private, max-age=86400");
    const svg = await res.text();
    expect(XMLValidator.validate(svg)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false }).parse(svg);
    expect(doc.svg["@_width"]).toBe("300");
    expect(svg).toContain('stroke="#112233"');
  });

  it.each([
    "?size=99",
    "?size=1001",
    "?size=12abc",
    "?size=1.5",
    "?size=",
    "?size=100&size=200",
    "?margin=5",
    "?margin=-1",
    "?color=red",
    "?color=12345",
    "?color=%2312345G",
    "?color=%23%23123456",
    "?bg=transparents",
    "?bg=1234567",
    "?ec=X",
    "?ec=m",
    "?format=gif",
    "?format=PNG",
  ])("refuses %s with 400 VALIDATION_ERROR as JSON", async (query) => {
    const res = await qr(link.short_code, query);
    expect(res.status, query).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await res.json()) as { success: boolean; error: { code: string; details?: unknown } };
    expect(body.success).toBe(false);
    expect(body.error.code).toBe("VALIDATION_ERROR");
    expect(body.error.details).toBeTypeOf("object");
  });

  it("answers 404 as JSON for an unknown code and for another account's code", async () => {
    for (const [code, key] of [
      ["nosuchcode", aliceKey],
      [link.short_code, bobKey],
    ] as const) {
      const res = await qr(code, "", key);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(res.headers.get("cache-control")).not.toBe("private, max-age=86400");
      expect(await res.json()).toEqual({
        success: false,
        error: { code: "NOT_FOUND", message: expect.any(String) },
      });
    }
  });

  it("answers a malformed code with 400 VALIDATION_ERROR", async () => {
    const res = await qr("not.a.code");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("VALIDATION_ERROR");
  });

  it("answers 405 with Allow for other methods", async () => {
    const res = await fetch(`${bed.stack.origin}/api/v1/qr/${link.short_code}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${aliceKey}` },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
  });
});
