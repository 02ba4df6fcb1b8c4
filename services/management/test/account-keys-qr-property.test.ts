// Property test: generated garbage at the account, key and QR endpoints never gets a 5xx, always gets
// the v1 envelope (or, for QR, a well-formed image), and changes no stored key of anyone. Companion of
// links-property.test.ts, which covers the links and bulk endpoints.
import { CreateApiKeyBody, ErrorCode, QrQuery } from "@kurz/contracts";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestAccount, expectEnvelope, useLinksStack, v1Caller } from "./links-helpers.ts";

const RUNS = 60;

const bed = useLinksStack({ TITLE_FETCH_ENABLED: "false" });
let apiKey: string;
let foreignKeyId: string;
let ownCode: string;
let foreignCode: string;

beforeAll(async () => {
  const [mine, theirs] = await Promise.all([
    createTestAccount(bed.prisma, "kprop-a"),
    createTestAccount(bed.prisma, "kprop-b"),
  ]);
  apiKey = mine.api_key;
  const theirKey = await bed.prisma.apiKey.findFirstOrThrow({ where: { accountId: theirs.account_id } });
  foreignKeyId = theirKey.id;
  const create = async (key: string, url: string) =>
    (await v1Caller(bed.stack, key)("POST", "/links", { url, title: "t" })).body.data.short_code as string;
  ownCode = await create(mine.api_key, "https://example.com/own");
  foreignCode = await create(theirs.api_key, "https://example.com/theirs");
});

/** Every stored key, every column but last_used_at (the requests themselves move it): the oracle. */
const snapshot = async () =>
  (await bed.prisma.apiKey.findMany({ orderBy: { id: "asc" } })).map(({ lastUsedAt: _, ...key }) => key);

const codes = new Set<string>(ErrorCode.options);

const junkString = fc.oneof(fc.string(), fc.string({ unit: "binary", maxLength: 40 }));
const junkValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  junkString,
  fc.constantFrom(null, true, 0, -1, 1e308, "", " ", "null", "[]", "{}"),
);
const encodeSegment = (s: string) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, "\uFFFD"));
const query = (keys: string[]) =>
  fc
    .dictionary(
      fc.oneof(fc.constantFrom(...keys), junkString),
      fc.oneof(junkString, fc.constantFrom("#", "%23ff0000", "transparent", "1000", "0", "H")),
      { maxKeys: 6 },
    )
    .map((q) => new URLSearchParams(q).toString());

describe("account, key and QR endpoints under generated garbage", () => {
  let before: Awaited<ReturnType<typeof snapshot>>;
  beforeAll(async () => {
    before = await snapshot();
  });
  const call = (method: string, path: string, body?: string) =>
    v1Caller(bed.stack, apiKey)(
      method,
      path,
      body,
      body === undefined ? {} : { "content-type": "application/json" },
    );

  it("GET /account and /account/usage with any query", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("/account", "/account/usage"), query(["x"]), async (path, q) => {
        const res = await call("GET", `${path}?${q}`);
        expectEnvelope(res, `GET ${path}?${q}`);
        expect(res.status).toBe(200);
      }),
      { numRuns: RUNS },
    );
  });

  it("POST /account/keys with invalid bodies", async () => {
    const body = fc
      .oneof(
        fc.record({ name: junkValue, expires_at: junkValue, extra: junkValue }, { requiredKeys: [] }),
        junkValue,
      )
      .filter((b) => !CreateApiKeyBody.safeParse(b).success)
      .map((b) => JSON.stringify(b) ?? "null");
    await fc.assert(
      fc.asyncProperty(fc.oneof(body, junkString), async (raw) => {
        let parsed: unknown;
        try {
          parsed = raw === "" ? {} : JSON.parse(raw);
        } catch {
          parsed = Symbol("not json");
        }
        fc.pre(!CreateApiKeyBody.safeParse(parsed).success);
        const res = await call("POST", "/account/keys", raw);
        expectEnvelope(res, `POST /account/keys ${raw}`);
        expect(res.status).toBeGreaterThanOrEqual(400);
      }),
      { numRuns: RUNS },
    );
  });

  it("DELETE /account/keys/:id with junk and foreign ids", async () => {
    const id = fc.oneof(junkString.map(encodeSegment), fc.uuid(), fc.constant(foreignKeyId));
    await fc.assert(
      fc.asyncProperty(id, async (raw) => {
        fc.pre(raw !== "" && raw !== "." && raw !== "..");
        const res = await call("DELETE", `/account/keys/${raw}`);
        expectEnvelope(res, `DELETE /account/keys/${raw}`);
        expect(res.status).toBeGreaterThanOrEqual(400);
      }),
      { numRuns: RUNS },
    );
  });

  it("GET /qr/:short_code with any code and parameters", async () => {
    const code = fc.oneof(junkString.map(encodeSegment), fc.constantFrom(ownCode, foreignCode));
    await fc.assert(
      fc.asyncProperty(code, query(["format", "size", "color", "bg", "ec", "margin"]), async (c, q) => {
        fc.pre(c !== "" && c !== "." && c !== "..");
        const res = await fetch(`${bed.stack.origin}/api/v1/qr/${c}?${q}`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        const what = `GET /qr/${c}?${q} → ${res.status}`;
        expect(res.status, what).toBeLessThan(500);
        const type = res.headers.get("content-type") ?? "";
        if (res.status === 200) {
          // Only the caller's own code with valid parameters renders; the image is really one.
          expect(c, what).toBe(ownCode);
          expect(QrQuery.safeParse(Object.fromEntries(new URLSearchParams(q))).success, what).toBe(true);
          const bytes = new Uint8Array(await res.arrayBuffer());
          if (type.startsWith("image/png")) expect([...bytes.slice(1, 4)], what).toEqual([0x50, 0x4e, 0x47]);
          else expect(new TextDecoder().decode(bytes), what).toContain("<svg");
        } else {
          expect(type, what).toContain("application/json");
          const body = (await res.json()) as { success: boolean; error: { code: string } };
          expect(body.success, what).toBe(false);
          expect(codes.has(body.error.code), what).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("left every stored key as it was", async () => {
    expect(await snapshot()).toEqual(before);
  });
});
