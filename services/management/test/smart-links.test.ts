// Smart links through the gateway (docs/smart-links.md): every member on create, update and read, the
// workspace's forward_query default, what the redirect record carries compiled, the checks beyond the
// schemas (loops, another workspace's image), preview images and UTM templates.

import * as zlib from "node:zlib";
import { deflateSync } from "node:zlib";
import {
  clickLimitKey,
  clickLimitReplayedKey,
  IMAGE_CACHE_CONTROL,
  UTM_TEMPLATES_MAX,
} from "@kurz/contracts";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import {
  expectV1Error,
  expectV1Success,
  LINK_FIELDS,
  useLinksStack,
  type V1Caller,
} from "./links-helpers.ts";

const bed = useLinksStack();
let api: V1Caller;
let other: V1Caller;
let accountId: string;
let otherAccountId: string;
let key: string;

beforeAll(async () => {
  const [a, b] = await Promise.all([bed.newAccount("smart-a"), bed.newAccount("smart-b")]);
  ({ api, accountId, key } = a);
  ({ api: other, accountId: otherAccountId } = b);
});

const create = async (body: Record<string, unknown>, as: V1Caller = api) => {
  const res = await as("POST", "/links", body);
  expectV1Success(res, 201);
  return res.body.data;
};

/** POST /images with `bytes` as `type`, by raw fetch (the body is the file). */
const upload = (bytes: Uint8Array, type: string, apiKey = key) =>
  fetch(`${bed.stack.origin}/api/v1/images`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": type },
    body: bytes,
  }).then(async (res) => ({
    status: res.status,
    headers: res.headers,
    // biome-ignore lint/suspicious/noExplicitAny: tests assert on the shape member by member
    body: (await res.json()) as any,
  }));

const png = (w: number, h: number, alpha = false) =>
  sharp({
    create: {
      width: w,
      height: h,
      channels: alpha ? 4 : 3,
      background: { r: 10, g: 120, b: 200, alpha: 0.5 },
    },
  })
    .png()
    .toBuffer();

const uploadedImage = async (as = key) => {
  const res = await upload(await png(64, 48), "image/png", as);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { id: string; url: string };
};

const EVERY_MEMBER = (imageId: string) => ({
  rules: [
    { when: { device: ["mobile"], country: ["DE", "AT"] }, url: "https://example.com/de-mobile" },
    { when: { language: ["pt-br", "fr"], query: { ref: "mail" } }, url: "https://example.com/lang" },
    {
      when: { after: "2030-01-01T00:00:00.000Z", before: "2030-02-01T00:00:00.000Z", os: ["ios"] },
      url: "https://example.com/jan",
    },
    { when: { browser: ["firefox"] }, url: "https://example.com/fx" },
  ],
  split: [
    { url: "https://example.com/a", weight: 3 },
    { url: "https://example.com/b", weight: 1 },
  ],
  forward_query: false,
  max_clicks: 100,
  expired_url: "https://example.com/over",
  og: { title: "Preview", description: "Seen in chats", image: imageId },
  ios_url: "myapp://item/42",
  android_url: "https://play.google.com/store/apps/details?id=x",
});

describe("link members", () => {
  it("creates, reads and lists a link with every smart member and compiles it into the redirect record", async () => {
    const image = await uploadedImage();
    const link = await create({ url: "https://example.com/home", ...EVERY_MEMBER(image.id) });
    expect(Object.keys(link).sort()).toEqual(LINK_FIELDS);
    const expected = {
      rules: [
        { when: { device: ["mobile"], country: ["DE", "AT"] }, url: "https://example.com/de-mobile" },
        // Language tags are stored in canonical case.
        { when: { language: ["pt-BR", "fr"], query: { ref: "mail" } }, url: "https://example.com/lang" },
        {
          when: { after: "2030-01-01T00:00:00.000Z", before: "2030-02-01T00:00:00.000Z", os: ["ios"] },
          url: "https://example.com/jan",
        },
        { when: { browser: ["firefox"] }, url: "https://example.com/fx" },
      ],
      split: EVERY_MEMBER(image.id).split,
      forward_query: false,
      max_clicks: 100,
      expired_url: "https://example.com/over",
      og: {
        title: "Preview",
        description: "Seen in chats",
        image: image.id,
        image_url: `${bed.stack.origin}/api/v1/images/${image.id}`,
      },
      ios_url: "myapp://item/42",
      android_url: "https://play.google.com/store/apps/details?id=x",
    };
    expect(link).toMatchObject(expected);
    const got = await api("GET", `/links/${link.id}`);
    expectV1Success(got);
    expect(got.body.data).toMatchObject(expected);
    const listed = await api("GET", "/links?per_page=100");
    expect(listed.body.data.find((l: { id: string }) => l.id === link.id)).toMatchObject(expected);

    const record = (await bed.redirectRecord(link.short_code)) as { s: unknown };
    expect(record.s).toEqual({
      r: [
        { u: "https://example.com/de-mobile", d: ["mobile"], c: ["DE", "AT"] },
        { u: "https://example.com/lang", l: ["pt-br", "fr"], q: [["ref", "mail"]] },
        {
          u: "https://example.com/jan",
          o: ["ios"],
          a: Date.parse("2030-01-01T00:00:00.000Z"),
          z: Date.parse("2030-02-01T00:00:00.000Z"),
        },
        { u: "https://example.com/fx", b: ["firefox"] },
      ],
      p: [
        ["https://example.com/a", 3],
        ["https://example.com/b", 1],
      ],
      i: "myapp://item/42",
      n: "https://play.google.com/store/apps/details?id=x",
      x: "https://example.com/over",
      m: 100,
      g: { t: "Preview", d: "Seen in chats", i: `${bed.stack.origin}/api/v1/images/${image.id}` },
    });
  });

  it("answers plain links with the members unset and forwards the query by the workspace's default", async () => {
    const account = await api("GET", "/account");
    expect(account.body.data.forward_query).toBe(true);
    const plain = await create({ url: "https://example.com/plain", title: "t" });
    expect(plain).toMatchObject({
      rules: [],
      split: null,
      forward_query: true,
      max_clicks: null,
      expired_url: null,
      og: null,
      ios_url: null,
      android_url: null,
    });
    expect(((await bed.redirectRecord(plain.short_code)) as { s: unknown }).s).toEqual({ f: 1 });

    const [b] = await Promise.all([bed.newAccount("smart-default")]);
    const patched = await b!.api("PATCH", "/account", { forward_query: false });
    expectV1Success(patched);
    expect(patched.body.data.forward_query).toBe(false);
    expect((await b!.api("GET", "/account")).body.data.forward_query).toBe(false);
    const off = await create({ url: "https://example.com/off", title: "t" }, b!.api);
    expect(off.forward_query).toBe(false);
    // Nothing smart: the record is a plain link's.
    expect(await bed.redirectRecord(off.short_code)).not.toHaveProperty("s");
    const on = await create({ url: "https://example.com/on", title: "t", forward_query: true }, b!.api);
    expect(on.forward_query).toBe(true);
    // Bulk creates take the default too.
    const bulk = await b!.api("POST", "/links/bulk", {
      links: [{ url: "https://example.com/b1" }, { url: "https://example.com/b2", forward_query: true }],
    });
    expectV1Success(bulk, 201);
    const made = await Promise.all(
      bulk.body.data.success.map((l: { id: string }) => b!.api("GET", `/links/${l.id}`)),
    );
    expect(made.map((r) => r.body.data.forward_query)).toEqual([false, true]);
    const audit = await bed.prisma.auditEvent.findFirst({
      where: { accountId: b!.accountId, action: "workspace.updated" },
    });
    expect(audit?.details).toEqual({ fields: ["forward_query"] });
  });

  it("updates each member, removes one with null, keeps og's members not named, and bumps the record", async () => {
    const image = await uploadedImage();
    const link = await create({ url: "https://example.com/u", title: "t", ...EVERY_MEMBER(image.id) });
    const before = (await bed.redirectRecord(link.short_code)) as { v: number };
    const res = await api("PATCH", `/links/${link.id}`, {
      rules: [{ when: { country: ["JP"] }, url: "https://example.com/jp" }],
      split: null,
      forward_query: true,
      max_clicks: 5,
      expired_url: null,
      og: { title: "New title" },
      ios_url: null,
    });
    expectV1Success(res);
    expect(res.body.data).toMatchObject({
      rules: [{ when: { country: ["JP"] }, url: "https://example.com/jp" }],
      split: null,
      forward_query: true,
      max_clicks: 5,
      expired_url: null,
      og: { title: "New title", description: "Seen in chats", image: image.id },
      ios_url: null,
      android_url: "https://play.google.com/store/apps/details?id=x",
    });
    const record = (await bed.redirectRecord(link.short_code)) as { v: number; s: Record<string, unknown> };
    expect(record.v).toBeGreaterThan(before.v);
    expect(record.s).toMatchObject({ r: [{ u: "https://example.com/jp", c: ["JP"] }], f: 1, m: 5 });
    expect(record.s).not.toHaveProperty("p");
    expect(record.s).not.toHaveProperty("x");
    expect(record.s).not.toHaveProperty("i");

    const second = await uploadedImage();
    const swapped = await api("PATCH", `/links/${link.id}`, { og: { image: second.id, description: null } });
    expect(swapped.body.data.og).toEqual({
      title: "New title",
      description: null,
      image: second.id,
      image_url: second.url,
    });
    expect(((await bed.redirectRecord(link.short_code)) as { s: { g: unknown } }).s.g).toEqual({
      t: "New title",
      i: second.url,
    });

    const cleared = await api("PATCH", `/links/${link.id}`, { og: null, rules: null, android_url: null });
    expect(cleared.body.data).toMatchObject({ og: null, rules: [], android_url: null });
    const audit = await bed.prisma.auditEvent.findMany({
      where: { accountId, resourceId: link.id, action: "link.updated" },
      orderBy: { id: "asc" },
    });
    expect(audit.map((e) => e.details)).toEqual([
      { fields: ["rules", "split", "forward_query", "max_clicks", "expired_url", "og", "ios_url"] },
      { fields: ["og"] },
      { fields: ["rules", "og", "android_url"] },
    ]);
    const created = await bed.prisma.auditEvent.findFirst({
      where: { accountId, resourceId: link.id, action: "link.created" },
    });
    expect(created?.details).toMatchObject({ smart: expect.arrayContaining(["rules", "og", "max_clicks"]) });
  });

  it("drops the click counter and its replayed ids when the limit is removed and when the link is deleted", async () => {
    const link = await create({ url: "https://example.com/c", title: "t", max_clicks: 3 });
    const counter = clickLimitKey(link.id);
    const replayed = clickLimitReplayedKey(link.id);
    await bed.redis.set(counter, "2");
    await bed.redis.sadd(replayed, "a-click-id");
    await api("PATCH", `/links/${link.id}`, { max_clicks: 10 });
    expect(await bed.redis.get(counter)).toBe("2"); // a raised limit keeps the clicks counted
    expectV1Success(await api("PATCH", `/links/${link.id}`, { max_clicks: null }));
    expect(await bed.redis.get(counter)).toBeNull();
    expect(await bed.redis.exists(replayed)).toBe(0);
    await bed.redis.set(counter, "1");
    await bed.redis.sadd(replayed, "a-click-id");
    expectV1Success(await api("DELETE", `/links/${link.id}`));
    expect(await bed.redis.get(counter)).toBeNull();
    expect(await bed.redis.exists(replayed)).toBe(0);
  });
});

describe("bad input: 400 VALIDATION_ERROR with the details tree, nothing written", () => {
  const rule = (when: unknown, url = "https://example.com/x") => ({ rules: [{ when, url }] });
  const cases: [string, Record<string, unknown>, (string | number)[]][] = [
    ["an unknown condition key", rule({ planet: ["mars"] }), ["rules", 0, "when"]],
    ["a bad country", rule({ country: ["XX"] }), ["rules", 0, "when", "country", 0]],
    ["a lower-case country", rule({ country: ["de"] }), ["rules", 0, "when", "country", 0]],
    ["a bad language", rule({ language: ["not a tag"] }), ["rules", 0, "when", "language", 0]],
    [
      "more than 25 rules",
      { rules: Array.from({ length: 26 }, () => ({ when: { device: ["mobile"] }, url: "https://e.com/" })) },
      ["rules"],
    ],
    [
      "a weight of 0",
      {
        split: [
          { url: "https://e.com/a", weight: 0 },
          { url: "https://e.com/b", weight: 1 },
        ],
      },
      ["split", 0, "weight"],
    ],
    [
      "a weight of 1.5",
      {
        split: [
          { url: "https://e.com/a", weight: 1 },
          { url: "https://e.com/b", weight: 1.5 },
        ],
      },
      ["split", 1, "weight"],
    ],
    ["a javascript: app link", { ios_url: "javascript://alert(1)" }, ["ios_url"]],
  ];

  const detailAt = (details: unknown, path: (string | number)[]) =>
    path.reduce<unknown>(
      (node, key) => (node as Record<string, unknown> | undefined)?.[String(key)],
      details,
    );

  for (const [name, body, path] of cases) {
    it(`refuses ${name}`, async () => {
      const count = await bed.prisma.link.count({ where: { accountId } });
      const res = await api("POST", "/links", { url: "https://example.com/v", ...body });
      expectV1Error(res, 400, "VALIDATION_ERROR");
      const node = detailAt(res.body.error.details, path) as { _errors: string[] } | undefined;
      expect(node?._errors.length, JSON.stringify(res.body.error.details)).toBeGreaterThan(0);
      expect(await bed.prisma.link.count({ where: { accountId } })).toBe(count);
    });
  }

  it("refuses a rule, split arm, fallback or app link that points back into Kurz (its host or a branded domain)", async () => {
    await bed.prisma.domain.create({
      data: {
        accountId: otherAccountId,
        host: "go.smart-brand.example",
        origin: "https://go.smart-brand.example",
      },
    });
    const own = new URL(bed.stack.origin);
    const count = await bed.prisma.link.count({ where: { accountId } });
    const res = await api("POST", "/links", {
      url: "https://example.com/loop",
      rules: [
        { when: { device: ["mobile"] }, url: "https://example.com/fine" },
        { when: { device: ["desktop"] }, url: `${bed.stack.origin}/abc` },
      ],
      split: [
        { url: "https://GO.smart-brand.example./x", weight: 1 },
        { url: "https://example.com/b", weight: 1 },
      ],
      expired_url: `http://${own.host}/gone`,
      android_url: "https://go.smart-brand.example/app",
    });
    expectV1Error(res, 400, "VALIDATION_ERROR", /short link/);
    const details = res.body.error.details;
    expect(details.rules[1].url._errors[0]).toMatch(/short link/);
    expect(details.rules[0]).toBeUndefined();
    expect(details.split[0].url._errors[0]).toMatch(/short link/);
    expect(details.split[1]).toBeUndefined();
    expect(details.expired_url._errors[0]).toMatch(/short link/);
    expect(details.android_url._errors[0]).toMatch(/short link/);
    expect(await bed.prisma.link.count({ where: { accountId } })).toBe(count);

    // The same on update, and the link stays as it was.
    const link = await create({ url: "https://example.com/keep", title: "t" });
    const patched = await api("PATCH", `/links/${link.id}`, {
      title: "changed",
      ios_url: `${bed.stack.origin}/x`,
    });
    expectV1Error(patched, 400, "VALIDATION_ERROR");
    expect(patched.body.error.details.ios_url._errors[0]).toMatch(/short link/);
    const after = await api("GET", `/links/${link.id}`);
    expect(after.body.data).toMatchObject({ title: "t", ios_url: null, updated_at: link.updated_at });
  });

  it("refuses og.image naming another workspace's image or no image, as the same error", async () => {
    const theirs = await uploadedImage(await otherKey());
    const a = await api("POST", "/links", { url: "https://example.com/og", og: { image: theirs.id } });
    const b = await api("POST", "/links", { url: "https://example.com/og", og: { image: "A".repeat(22) } });
    for (const res of [a, b]) {
      expectV1Error(res, 400, "VALIDATION_ERROR");
      expect(res.body.error.details.og.image._errors).toEqual([
        "Expected the id of an image uploaded to POST /api/v1/images by this workspace",
      ]);
    }
    expect(a.body.error).toEqual(b.body.error);
  });
});

let otherKeyValue: string | undefined;
async function otherKey(): Promise<string> {
  if (otherKeyValue === undefined) otherKeyValue = (await bed.newAccount("smart-img-other")).key;
  return otherKeyValue;
}

/** A PNG of the given size whose pixel data is a few bytes of zlib: a decompression bomb when large. */
function pngWithHeader(width: number, height: number, idat: Buffer): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", idat),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

describe("images", () => {
  it("re-encodes an upload, serves it publicly with long caching, and records the upload", async () => {
    const res = await upload(await png(64, 48), "image/png");
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const image = res.body.data;
    expect(image).toMatchObject({ width: 64, height: 48, content_type: "image/jpeg" });
    expect(image.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(image.url).toBe(`${bed.stack.origin}/api/v1/images/${image.id}`);
    const served = await fetch(image.url); // no key
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/jpeg");
    expect(served.headers.get("cache-control")).toBe(IMAGE_CACHE_CONTROL);
    expect(served.headers.get("etag")).toBe(`"${image.id}"`);
    const bytes = Buffer.from(await served.arrayBuffer());
    expect(bytes.byteLength).toBe(image.bytes);
    expect((await sharp(bytes).metadata()).format).toBe("jpeg");
    const stored = await bed.prisma.image.findUnique({ where: { id: image.id } });
    expect(stored?.accountId).toBe(accountId);
    const audit = await bed.prisma.auditEvent.findFirst({ where: { accountId, resourceId: image.id } });
    expect(audit).toMatchObject({ action: "image.uploaded", resourceType: "image" });
  });

  it("keeps transparency as PNG, fits large images into 1200×1200 and strips metadata (GPS)", async () => {
    const alpha = await upload(await png(30, 20, true), "image/png");
    expect(alpha.body.data).toMatchObject({ content_type: "image/png", width: 30, height: 20 });

    const big = await sharp({ create: { width: 2400, height: 1000, channels: 3, background: "green" } })
      .webp({ quality: 20 })
      .toBuffer();
    const fitted = await upload(big, "image/webp");
    expect(fitted.status, JSON.stringify(fitted.body)).toBe(201);
    expect(fitted.body.data).toMatchObject({ content_type: "image/jpeg", width: 1200, height: 500 });

    const located = await sharp({ create: { width: 40, height: 30, channels: 3, background: "red" } })
      .jpeg()
      .withExif({ IFD3: { GPSLatitudeRef: "N", GPSLatitude: "48/1 8/1 0/1" } })
      .toBuffer();
    expect((await sharp(located).metadata()).exif).toBeDefined();
    const stripped = await upload(located, "image/jpeg");
    expect(stripped.status).toBe(201);
    const served = Buffer.from(await (await fetch(stripped.body.data.url)).arrayBuffer());
    const meta = await sharp(served).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
  });

  it("refuses what is not a decodable PNG, JPEG or WebP of the declared type, storing nothing", async () => {
    const before = await bed.prisma.image.count({ where: { accountId } });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const garbage = Buffer.concat([(await png(10, 10)).subarray(0, 33), Buffer.alloc(400, 0x41)]);
    const bomb = pngWithHeader(50_000, 50_000, deflateSync(Buffer.alloc(1000)));
    const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: "red" } })
      .jpeg()
      .toBuffer();
    for (const [name, bytes, type] of [
      ["text", Buffer.from("hello, world"), "image/png"],
      ["SVG as PNG", svg, "image/png"],
      ["SVG", svg, "image/svg+xml"],
      ["a PNG header over garbage", garbage, "image/png"],
      ["a decompression bomb", bomb, "image/png"],
      ["a JPEG sent as PNG", jpeg, "image/png"],
      ["an empty body", Buffer.alloc(0), "image/png"],
    ] as const) {
      const res = await upload(bytes, type);
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error.code, name).toBe("VALIDATION_ERROR");
    }
    expect(await bed.prisma.image.count({ where: { accountId } })).toBe(before);
  });

  it("answers 404 for an unknown or malformed id", async () => {
    for (const id of ["A".repeat(22), "bad!id", "x"]) {
      const res = await fetch(`${bed.stack.origin}/api/v1/images/${id}`);
      expect(res.status, id).toBe(404);
    }
  });
});

describe("UTM templates", () => {
  it("creates, lists by name and deletes a workspace's templates, with their audit events", async () => {
    const first = await api("POST", "/utm-templates", {
      name: "Newsletter",
      params: { utm_source: "newsletter", utm_medium: "email" },
    });
    expectV1Success(first, 201);
    expect(first.body.data).toMatchObject({
      name: "Newsletter",
      params: { utm_source: "newsletter", utm_medium: "email" },
    });
    expectV1Success(
      await api("POST", "/utm-templates", { name: "Ads", params: { utm_campaign: "spring" } }),
      201,
    );
    const list = await api("GET", "/utm-templates");
    expect(list.body.data.map((t: { name: string }) => t.name)).toEqual(["Ads", "Newsletter"]);
    expect((await other("GET", "/utm-templates")).body.data).toEqual([]);
    // Another workspace may use the same name.
    expectV1Success(
      await other("POST", "/utm-templates", { name: "Newsletter", params: { utm_source: "x" } }),
      201,
    );

    expectV1Error(
      await api("POST", "/utm-templates", { name: "Newsletter", params: { utm_source: "y" } }),
      409,
      "CONFLICT",
    );
    expectV1Error(
      await api("POST", "/utm-templates", { name: "Empty", params: {} }),
      400,
      "VALIDATION_ERROR",
    );
    expectV1Error(
      await api("POST", "/utm-templates", { name: "Odd", params: { utm_other: "x" } }),
      400,
      "VALIDATION_ERROR",
    );

    expectV1Error(await other("DELETE", `/utm-templates/${first.body.data.id}`), 404, "NOT_FOUND");
    expectV1Success(await api("DELETE", `/utm-templates/${first.body.data.id}`));
    expectV1Error(await api("DELETE", `/utm-templates/${first.body.data.id}`), 404, "NOT_FOUND");
    const actions = await bed.prisma.auditEvent.findMany({
      where: { accountId, resourceType: "utm_template" },
      orderBy: { id: "asc" },
    });
    expect(actions.map((e) => e.action)).toEqual([
      "utm_template.created",
      "utm_template.created",
      "utm_template.deleted",
    ]);
  });

  it(`keeps at most ${UTM_TEMPLATES_MAX} per workspace`, async () => {
    const b = await bed.newAccount("smart-utm-max");
    await bed.prisma.utmTemplate.createMany({
      data: Array.from({ length: UTM_TEMPLATES_MAX - 1 }, (_, i) => ({
        accountId: b.accountId,
        name: `t${i}`,
        params: { utm_source: "s" },
      })),
    });
    expectV1Success(
      await b.api("POST", "/utm-templates", { name: "last", params: { utm_source: "s" } }),
      201,
    );
    expectV1Error(
      await b.api("POST", "/utm-templates", { name: "one more", params: { utm_source: "s" } }),
      409,
      "CONFLICT",
    );
  });
});
