// Attacks on smart links' management side (docs/smart-links.md): another workspace's image named as a
// link's preview, another workspace's UTM template deleted, uploads that are not what they claim (too
// large, SVG, a polyglot, a decompression bomb), a viewer writing, and an image served as anything but
// an image.

import * as zlib from "node:zlib";
import { deflateSync } from "node:zlib";
import { IMAGE_CACHE_CONTROL, OG_IMAGE_MAX_BYTES, OG_IMAGE_READ_MAX_BYTES } from "@kurz/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import { type Caller, callAs, expectV1Error, type RawResponse, raw, useSessionStack } from "./attack.ts";
import { keyOf, makeTeam, type Team } from "./team.ts";

const { bed } = useSessionStack({ SESSION_RATE_LIMIT_PER_MINUTE: "100000" }, { inProcess: true });
const origin = () => bed.stack.origin;

let team: Team;
let rival: Team;
let key: string;
let rivalKey: string;
beforeAll(async () => {
  [team, rival] = await Promise.all([makeTeam(origin(), "smart"), makeTeam(origin(), "smart-rival")]);
  [key, rivalKey] = await Promise.all([
    keyOf(origin(), team.people.owner),
    keyOf(origin(), rival.people.owner),
  ]);
}, 90_000);

/** A PNG chunk: length, type, data, CRC. */
function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([head, body, crc]);
}

/** A PNG (8-bit RGB) of `width`×`height` whose IDAT is `idat`, or real rows of one colour. */
function png(width: number, height: number, idat?: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x7f)]);
  const pixels = idat ?? deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", pixels),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const upload = (who: Caller, body: Buffer, type: string): Promise<RawResponse> => {
  const headers: Record<string, string> = { "content-type": type, ...who.headers };
  if (who.key) headers.authorization = `Bearer ${who.key}`;
  if (who.cookie) headers.cookie = `kurz_session=${who.cookie}`;
  if (who.csrf) headers["x-csrf-token"] = who.csrf;
  return raw(origin(), "POST", "/api/v1/images", { headers, body });
};

const uploaded = async (apiKey: string): Promise<{ id: string; url: string }> => {
  const res = await upload({ key: apiKey }, png(16, 16), "image/png");
  expect(res.status, res.text).toBe(201);
  return res.body.data;
};

describe("another workspace's things", () => {
  it("never takes another workspace's image as a link's preview, and answers as for an unknown id", async () => {
    const theirs = await uploaded(rivalKey);
    const who = { key };
    const refused = await callAs(origin(), "POST", "/api/v1/links", who, {
      url: "https://example.com/",
      og: { image: theirs.id },
    });
    expectV1Error(refused, 400, "VALIDATION_ERROR");
    const unknown = await callAs(origin(), "POST", "/api/v1/links", who, {
      url: "https://example.com/",
      og: { image: "Z".repeat(22) },
    });
    expect(refused.body.error).toEqual(unknown.body.error);
    // Nor by an update of a link of one's own.
    const mine = await callAs(origin(), "POST", "/api/v1/links", who, { url: "https://example.com/m" });
    expect(mine.status).toBe(201);
    const patched = await callAs(origin(), "PATCH", `/api/v1/links/${mine.body.data.id}`, who, {
      og: { image: theirs.id },
    });
    expectV1Error(patched, 400, "VALIDATION_ERROR");
    const row = await bed.prisma.link.findUniqueOrThrow({ where: { id: mine.body.data.id } });
    expect(row.ogImageId).toBeNull();
  });

  it("never lists or deletes another workspace's UTM template (404, as for an unknown id)", async () => {
    const made = await callAs(
      origin(),
      "POST",
      "/api/v1/utm-templates",
      { key: rivalKey },
      {
        name: "Theirs",
        params: { utm_source: "rival" },
      },
    );
    expect(made.status, made.text).toBe(201);
    const listed = await callAs(origin(), "GET", "/api/v1/utm-templates", { key });
    expect(listed.body.data.map((t: { name: string }) => t.name)).not.toContain("Theirs");
    const stolen = await callAs(origin(), "DELETE", `/api/v1/utm-templates/${made.body.data.id}`, { key });
    expectV1Error(stolen, 404, "NOT_FOUND");
    const unknown = await callAs(origin(), "DELETE", "/api/v1/utm-templates/2147483000", { key });
    expect(stolen.body.error).toEqual(unknown.body.error);
    expect(await bed.prisma.utmTemplate.count({ where: { id: made.body.data.id } })).toBe(1);
  });
});

describe("uploads that are not what they claim", () => {
  it("refuses a file over 1 MB with a validation error naming the limit, and cuts off a far larger body", async () => {
    const before = await bed.prisma.image.count();
    const small = png(16, 16);
    const padded = (size: number) => Buffer.concat([small, Buffer.alloc(size - small.length, 0)]);
    const over = await upload({ key }, padded(OG_IMAGE_MAX_BYTES + 1), "image/png");
    expectV1Error(over, 400, "VALIDATION_ERROR");
    expect(over.text).toContain("1 MB");
    const huge = await upload({ key }, padded(OG_IMAGE_READ_MAX_BYTES + 1), "image/png");
    expect(huge.status, huge.text).toBe(413);
    expect(huge.body.success).toBe(false);
    expect(await bed.prisma.image.count()).toBe(before);
  });

  it("refuses SVG (as itself or named PNG), a PNG header over garbage and a decompression bomb", async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(document.cookie)"><script>alert(1)</script></svg>',
    );
    const bomb = png(60_000, 60_000, deflateSync(Buffer.alloc(4096)));
    const garbage = Buffer.concat([png(16, 16).subarray(0, 33), Buffer.from("<script>alert(1)</script>")]);
    const before = await bed.prisma.image.count();
    for (const [name, body, type] of [
      ["svg", svg, "image/svg+xml"],
      ["svg named png", svg, "image/png"],
      ["html named jpeg", Buffer.from("<html><script>alert(1)</script></html>"), "image/jpeg"],
      ["garbage after a png header", garbage, "image/png"],
      ["bomb", bomb, "image/png"],
    ] as const) {
      const res = await upload({ key }, body, type);
      expect(res.status, `${name}: ${res.text}`).toBe(400);
      expect(res.body.error.code, name).toBe("VALIDATION_ERROR");
    }
    expect(await bed.prisma.image.count()).toBe(before);
  });

  it("serves a polyglot (a PNG with HTML and script appended) as Kurz's own re-encoding, never the upload", async () => {
    const payload = "<html><script>alert(document.domain)</script></html>";
    const polyglot = Buffer.concat([png(24, 24), Buffer.from(payload)]);
    const res = await upload({ key }, polyglot, "image/png");
    expect(res.status, res.text).toBe(201);
    const served = await fetch(res.body.data.url, { headers: { accept: "text/html" } });
    expect(served.status).toBe(200);
    expect(["image/jpeg", "image/png"]).toContain(served.headers.get("content-type"));
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(served.headers.get("cache-control")).toBe(IMAGE_CACHE_CONTROL);
    const bytes = Buffer.from(await served.arrayBuffer());
    expect(bytes.includes(Buffer.from("<script"))).toBe(false);
    expect(bytes.equals(polyglot)).toBe(false);
  });
});

describe("roles", () => {
  it("lets a viewer list templates but neither upload an image nor create or delete a template", async () => {
    const viewer = team.people.viewer.session;
    const image = await upload(viewer, png(8, 8), "image/png");
    expectV1Error(image, 403, "FORBIDDEN");
    const template = await callAs(origin(), "POST", "/api/v1/utm-templates", viewer, {
      name: "viewer's",
      params: { utm_source: "v" },
    });
    expectV1Error(template, 403, "FORBIDDEN");
    const owners = await callAs(
      origin(),
      "POST",
      "/api/v1/utm-templates",
      { key },
      {
        name: "Owner's",
        params: { utm_source: "o" },
      },
    );
    expect(owners.status).toBe(201);
    expectV1Error(
      await callAs(origin(), "DELETE", `/api/v1/utm-templates/${owners.body.data.id}`, viewer),
      403,
      "FORBIDDEN",
    );
    expect((await callAs(origin(), "GET", "/api/v1/utm-templates", viewer)).status).toBe(200);
    const member = await upload(team.people.member.session, png(8, 8), "image/png");
    expect(member.status, member.text).toBe(201);
  });
});

describe("serving", () => {
  it("serves only JPEG or PNG: a stored row of any other type is not found", async () => {
    const image = await uploaded(key);
    await bed.prisma.image.update({ where: { id: image.id }, data: { contentType: "text/html" } });
    const res = await fetch(image.url);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("reads images on a budget of their own: a page of previews never spends the client's sign-in budget", async () => {
    const image = await uploaded(key);
    for (let i = 0; i < 70; i++) {
      const res = await raw(origin(), "GET", new URL(image.url).pathname);
      expect(res.status, res.text).toBe(200);
    }
    const signIn = await raw(origin(), "POST", "/api/v1/auth/login", {
      headers: { "content-type": "application/json" },
      body: Buffer.from(JSON.stringify({ email: "nobody@example.test", password: "wrong-password-1" })),
    });
    expect(signIn.status, signIn.text).not.toBe(429);
  });

  it("answers 404 for ids that are not ids, without a key, and refuses writes to an image", async () => {
    for (const id of ["..%2f..%2fetc", "%00", "a".repeat(65), "<script>"]) {
      const res = await raw(origin(), "GET", `/api/v1/images/${id}`);
      expect([400, 404], `${id}: ${res.text}`).toContain(res.status);
    }
    const image = await uploaded(key);
    for (const method of ["PUT", "DELETE", "PATCH"]) {
      const res = await callAs(origin(), method, `/api/v1/images/${image.id}`, { key });
      expect(res.status, `${method}: ${res.text}`).toBe(405);
    }
  });
});
