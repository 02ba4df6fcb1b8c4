// Smart links' management side end to end through the public origin (docs/smart-links.md): a client
// that sends none of the new members still gets its link and its redirect; a preview image uploaded with
// a key is read by anyone at its URL; the redirect record, written on create and again by the redirect's
// miss path from Postgres, carries the link's smart members compiled.
import { clickLimitKey, IMAGE_CACHE_CONTROL, redirectKey } from "@kurz/contracts";
import { waitFor } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, RELAXED_LIMITS, raw, uniqueEmail } from "../security/attack.ts";

let stack: Stack;
let call: ReturnType<typeof api>;
let key: string;
let redis: Redis;

beforeAll(async () => {
  stack = await startStack({ inProcess: true, extraEnv: RELAXED_LIMITS });
  key = (await stack.createAccount(uniqueEmail("smart-e2e"))).api_key;
  call = api(stack, key);
  redis = new Redis(stack.env.REDIS_URL!, { keyPrefix: stack.env.REDIS_KEY_PREFIX });
});
afterAll(async () => {
  redis?.disconnect();
  await stack?.stop();
});

/** A 2×2 PNG, made by hand: signature, IHDR, one IDAT of two filtered RGB rows, IEND. */
async function tinyPng(): Promise<Buffer> {
  const { crc32, deflateSync } = await import("node:zlib");
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.from([0, 0, 0, 2, 0, 0, 0, 2, 8, 2, 0, 0, 0]);
  const rows = Buffer.from([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

describe("smart links through the stack", () => {
  it("leaves a client that sends none of the new members its link and its plain redirect", async () => {
    const res = await call("POST", "/api/v1/links", { url: "https://example.com/spec", title: "Spec" });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({
      original_url: "https://example.com/spec",
      title: "Spec",
      rules: [],
      split: null,
      forward_query: true,
      og: null,
    });
    const hop = await raw(stack.origin, "GET", `/${res.body.data.short_code}`);
    expect(hop.status).toBe(302);
    expect(hop.headers.location).toBe("https://example.com/spec");
  });

  it("serves an uploaded preview image to anyone, and the miss path rebuilds the compiled record", async () => {
    const uploaded = await raw(stack.origin, "POST", "/api/v1/images", {
      headers: { authorization: `Bearer ${key}`, "content-type": "image/png" },
      body: await tinyPng(),
    });
    expect(uploaded.status, uploaded.text).toBe(201);
    const image = uploaded.body.data as { id: string; url: string };
    expect(image.url).toBe(`${stack.origin}/api/v1/images/${image.id}`);
    const served = await fetch(image.url, { headers: { "user-agent": "Slackbot-LinkExpanding 1.0" } });
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/jpeg");
    expect(served.headers.get("cache-control")).toBe(IMAGE_CACHE_CONTROL);

    const created = await call("POST", "/api/v1/links", {
      url: "https://example.com/smart",
      rules: [{ when: { country: ["DE"] }, url: "https://example.com/de" }],
      max_clicks: 2,
      og: { title: "Hello", image: image.id },
    });
    expect(created.status, created.text).toBe(201);
    const { id, short_code: code } = created.body.data;
    const compiled = {
      r: [{ u: "https://example.com/de", c: ["DE"] }],
      f: 1,
      m: 2,
      g: { t: "Hello", i: image.url },
    };
    expect(JSON.parse((await redis.get(redirectKey(code)))!).s).toEqual(compiled);

    // The record gone from Redis (evicted, or never written): the redirect asks management, which
    // answers from Postgres and writes it again, compiled the same way.
    await redis.del(redirectKey(code));
    const hop = await raw(stack.origin, "GET", `/${code}`);
    expect([302, 200]).toContain(hop.status);
    const healed = JSON.parse((await redis.get(redirectKey(code)))!);
    expect(healed.s).toEqual(compiled);

    // Deleting the link removes its click counter with its record.
    await redis.set(clickLimitKey(id), "1");
    expect((await call("DELETE", `/api/v1/links/${id}`)).status).toBe(200);
    expect(await redis.get(clickLimitKey(id))).toBeNull();
  });

  it("sends each visitor where the link's members say, and counts each click under its destination", async () => {
    const created = await call("POST", "/api/v1/links", {
      url: "https://example.com/home",
      ios_url: "https://apps.apple.com/app/id1",
      rules: [{ when: { language: ["de"] }, url: "https://example.com/de?lang=de" }],
      max_clicks: 4,
      expired_url: "https://example.com/over",
      og: { title: "Preview <title>" },
    });
    expect(created.status, created.text).toBe(201);
    const { id, short_code: code } = created.body.data;
    const visit = (headers: Record<string, string>, query = "") =>
      raw(stack.origin, "GET", `/${code}${query}`, { headers });
    const IPHONE =
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
    const DESKTOP =
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";

    // A preview fetcher gets the preview page and is not counted against the limit.
    const preview = await visit({
      "user-agent": "Slackbot-LinkExpanding 1.1 (+https://api.slack.com/robots)",
    });
    expect(preview.status).toBe(200);
    expect(preview.text).toContain('<meta property="og:title" content="Preview &lt;title&gt;"');

    const ios = await visit({ "user-agent": IPHONE });
    expect(ios.headers.location).toBe("https://apps.apple.com/app/id1");
    const german = await visit(
      { "user-agent": DESKTOP, "accept-language": "de-AT,de;q=0.9,en;q=0.5" },
      "?utm_source=news",
    );
    // Forwarding is on by default: the visit's query joins the rule's own.
    expect(german.headers.location).toBe("https://example.com/de?lang=de&utm_source=news");
    const plain = await visit({ "user-agent": DESKTOP, "accept-language": "en-US" });
    expect(plain.headers.location).toBe("https://example.com/home");
    const fourth = await visit({ "user-agent": DESKTOP });
    expect(fourth.headers.location).toBe("https://example.com/home");
    // The fifth counted visit is over the limit: the fallback, counted as `expired`.
    const over = await visit({ "user-agent": DESKTOP });
    expect(over.status).toBe(302);
    expect(over.headers.location).toBe("https://example.com/over");

    const destinations = await waitFor(
      async () => {
        const res = await call("GET", `/api/v1/analytics/${id}`);
        const list = (res.body.data?.destinations ?? []) as { destination: string; count: number }[];
        const total = list.reduce((sum, d) => sum + d.count, 0);
        return total >= 5 ? Object.fromEntries(list.map((d) => [d.destination, d.count])) : null;
      },
      { timeoutMs: 20_000 },
    );
    expect(destinations).toEqual({ default: 2, ios: 1, "rule:1": 1, expired: 1 });
  });
});
