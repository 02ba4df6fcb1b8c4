// Attacks on the dashboard-managed resources: CTA overlays, their contact forms, links on branded domains,
// campaign and channel membership. The attacker (A) holds an ordinary key and knows the victim's (B)
// ids; every such id must be refused as if it did not exist, overlay text must never become markup,
// and a flood of contact forms must be cut off.
import { useTestDnsServer } from "@kurz/testing/use-stack";
import { beforeAll, describe, expect, it } from "vitest";
import { expectLegacyError, expectV1Error, raw, useAttackerAndVictim, useAttackStack } from "./attack.ts";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const unique = `${process.pid}${Date.now().toString(36)}`;

const dns = useTestDnsServer();
const bed = useAttackStack(() => ({ DNS_SERVERS: dns().address }), { inProcess: true });
const ctx = useAttackerAndVictim(bed, "overlays");
let victimOverlay: number;
let victimLink: { id: string; short_code: string };
let victimCampaign: number;
let victimChannel: number;
let victimHost: string;

beforeAll(async () => {
  const o = await ctx.asVictim("POST", "/api/overlay/add", { type: "contact", name: "B's form" });
  expect(o.status, o.text).toBe(200);
  victimOverlay = o.body.id;
  const l = await ctx.asVictim("POST", "/api/v1/links", { url: "https://b.example/", title: "b" });
  victimLink = l.body.data;
  victimCampaign = (await ctx.asVictim("POST", "/api/campaign/add", { name: "B" })).body.id;
  expect((await ctx.asVictim("POST", `/api/campaign/${victimCampaign}/assign/${victimLink.id}`)).status).toBe(
    200,
  );
  victimChannel = (await ctx.asVictim("POST", "/api/channel/add", { name: "B" })).body.id;
  expect((await ctx.asVictim("POST", `/api/channel/${victimChannel}/assign/${victimLink.id}`)).status).toBe(
    200,
  );
  victimHost = `go.victim-${unique}.test`;
  const d = await ctx.asVictim("POST", "/api/domain/add", { domain: `https://${victimHost}` });
  await dns().setTxt(d.body.verification.name, [d.body.verification.value]);
  expect((await ctx.asVictim("POST", `/api/domain/${d.body.id}/verify`)).body.status).toBe("verified");
});

describe("another account's ids are refused", () => {
  it("overlay_id on create, update and bulk create", async () => {
    const made = await ctx.asAttacker("POST", "/api/v1/links", {
      url: "https://a.example/",
      overlay_id: victimOverlay,
    });
    expectV1Error(made, 400, "VALIDATION_ERROR");
    expect(made.text).toContain("overlay_id");
    const own = await ctx.asAttacker("POST", "/api/v1/links", { url: "https://a.example/", title: "a" });
    const patched = await ctx.asAttacker("PATCH", `/api/v1/links/${own.body.data.id}`, {
      overlay_id: victimOverlay,
    });
    expectV1Error(patched, 400, "VALIDATION_ERROR");
    const bulk = await ctx.asAttacker("POST", "/api/v1/links/bulk", {
      links: [{ url: "https://a.example/1", title: "x", overlay_id: victimOverlay }],
    });
    expect(bulk.body.data.success).toEqual([]);
    expect(bulk.body.data.failed[0].error).toContain("overlay_id");
  });

  it("the overlay itself: read, edit, delete, submissions and their export", async () => {
    expectLegacyError(await ctx.asAttacker("GET", `/api/overlay/${victimOverlay}`), 404);
    expectLegacyError(
      await ctx.asAttacker("PUT", `/api/overlay/${victimOverlay}/update`, { text: "pwned" }),
      404,
    );
    expectLegacyError(await ctx.asAttacker("DELETE", `/api/overlay/${victimOverlay}/delete`), 404);
    expectLegacyError(await ctx.asAttacker("GET", `/api/overlay/${victimOverlay}/submissions`), 404);
    expectLegacyError(await ctx.asAttacker("GET", `/api/overlay/${victimOverlay}/submissions/export`), 404);
    for (const [method, path] of [
      ["GET", ""],
      ["PATCH", ""],
      ["DELETE", ""],
      ["GET", "/submissions"],
      ["GET", "/submissions/export"],
    ] as const) {
      const res = await ctx.asAttacker(
        method,
        `/api/v1/overlays/${victimOverlay}${path}`,
        method === "PATCH" ? { text: "x" } : undefined,
      );
      expectV1Error(res, 404, "NOT_FOUND");
    }
    const still = await ctx.asVictim("GET", `/api/overlay/${victimOverlay}`);
    expect(still.body.data).toMatchObject({ name: "B's form", text: "" });
  });

  it("another account's domain, and an unverified domain of one's own", async () => {
    const theirs = await ctx.asAttacker("POST", "/api/v1/links", {
      url: "https://a.example/",
      domain: victimHost,
    });
    expectV1Error(theirs, 400, "VALIDATION_ERROR");
    const mine = `go.attacker-${unique}.test`;
    expect((await ctx.asAttacker("POST", "/api/domain/add", { domain: `https://${mine}` })).status).toBe(200);
    const unverified = await ctx.asAttacker("POST", "/api/v1/links", {
      url: "https://a.example/",
      domain: mine,
    });
    expectV1Error(unverified, 403, "FORBIDDEN");
    expect((await ctx.asAttacker("GET", `/api/v1/links?domain=${victimHost}`)).body.data).toEqual([]);
  });

  it("campaigns and channels: list, weigh and remove the victim's links", async () => {
    const c = victimCampaign;
    expectLegacyError(await ctx.asAttacker("GET", `/api/campaign/${c}/links`), 404);
    expectV1Error(await ctx.asAttacker("GET", `/api/v1/analytics/campaigns/${c}`), 404, "NOT_FOUND");
    expectV1Error(await ctx.asAttacker("GET", "/api/v1/analytics/campaigns/0"), 400, "VALIDATION_ERROR");
    expectLegacyError(
      await ctx.asAttacker("PUT", `/api/campaign/${c}/weight/${victimLink.id}`, { weight: 9 }),
      404,
    );
    expectLegacyError(await ctx.asAttacker("DELETE", `/api/campaign/${c}/remove/${victimLink.id}`), 404);
    expectLegacyError(
      await ctx.asAttacker("DELETE", `/api/channel/${victimChannel}/remove/${victimLink.id}`),
      404,
    );
    expect((await ctx.asAttacker("GET", `/api/v1/links?channel=${victimChannel}`)).body.data).toEqual([]);
    // The victim's campaign and channel are unchanged.
    const links = await ctx.asVictim("GET", `/api/campaign/${c}/links`);
    expect(links.body.data.links).toMatchObject([{ link_id: victimLink.id, weight: 1 }]);
    const inChannel = await ctx.asVictim("GET", `/api/v1/links?channel=${victimChannel}`);
    expect(inChannel.body.data.map((l: { id: string }) => l.id)).toEqual([victimLink.id]);
    // Weights are bounded.
    expectLegacyError(
      await ctx.asVictim("PUT", `/api/campaign/${c}/weight/${victimLink.id}`, { weight: 0 }),
      400,
    );
    expectLegacyError(
      await ctx.asVictim("PUT", `/api/campaign/${c}/weight/${victimLink.id}`, { weight: 1e6 }),
      400,
    );
  });
});

describe("overlay content is text, never markup", () => {
  it("escapes HTML and script in every member and refuses non-http button URLs", async () => {
    const evil = `<script>alert(1)</script><img src=x onerror=alert(2)>"'&`;
    const js = await ctx.asAttacker("POST", "/api/overlay/add", {
      type: "message",
      name: "x",
      button_label: "Go",
      button_url: "javascript:alert(1)",
    });
    expectLegacyError(js, 400);
    const css = await ctx.asAttacker("POST", "/api/overlay/add", {
      type: "message",
      name: "x",
      bg_color: "red;}</style><script>alert(1)</script>",
    });
    expectLegacyError(css, 400);
    const o = await ctx.asAttacker("POST", "/api/overlay/add", {
      type: "message",
      name: evil,
      text: evil,
      button_label: evil,
      button_url: 'https://a.example/?q="><script>alert(3)</script>',
    });
    expect(o.status, o.text).toBe(200);
    const l = await ctx.asAttacker("POST", "/api/v1/links", {
      url: 'https://a.example/"><script>alert(4)</script>',
      title: "t",
      overlay_id: o.body.id,
    });
    expect(l.status, l.text).toBe(201);
    const page = await raw(bed.stack.origin, "GET", `/${l.body.data.short_code}`, {
      headers: { "user-agent": BROWSER },
    });
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/<script/i);
    expect(page.text).not.toMatch(/<img/i);
    expect(page.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    const csp = String(page.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("script-src");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
  });
});

describe("contact forms", () => {
  it("a flood from one client is cut off after 5 per window; only those are stored", async () => {
    const o = await ctx.asAttacker("POST", "/api/overlay/add", {
      type: "contact",
      name: "flood",
      fields: ["email"],
    });
    const l = await ctx.asAttacker("POST", "/api/v1/links", {
      url: "https://a.example/",
      title: "t",
      overlay_id: o.body.id,
    });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await raw(bed.stack.origin, "POST", `/${l.body.data.short_code}`, {
        headers: { "user-agent": BROWSER, "content-type": "application/x-www-form-urlencoded" },
        body: `email=flood${i}%40example.com`,
      });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses.slice(5).every((s) => s === 429)).toBe(true);
    const list = await ctx.asAttacker("GET", `/api/overlay/${o.body.id}/submissions?limit=100`);
    expect(list.body.data.result).toBe(5);
  });

  it("refuses malformed and oversized forms and forms to links without a contact overlay", async () => {
    const o = await ctx.asAttacker("POST", "/api/overlay/add", {
      type: "contact",
      name: "v",
      fields: ["email", "message"],
    });
    const l = await ctx.asAttacker("POST", "/api/v1/links", {
      url: "https://a.example/",
      title: "t",
      overlay_id: o.body.id,
    });
    const post = (path: string, body: string, type = "application/x-www-form-urlencoded") =>
      raw(bed.stack.origin, "POST", path, { headers: { "user-agent": BROWSER, "content-type": type }, body });
    expect((await post(`/${l.body.data.short_code}`, "email=not-an-address")).status).toBe(400);
    expect((await post(`/${l.body.data.short_code}`, `message=${"x".repeat(5000)}`)).status).toBe(413);
    expect((await post(`/${l.body.data.short_code}`, '{"email":"a@b.c"}', "application/json")).status).toBe(
      415,
    );
    expect((await post(`/${victimLink.short_code}`, "email=a%40b.example")).status).toBe(405);
    const list = await ctx.asAttacker("GET", `/api/overlay/${o.body.id}/submissions`);
    expect(list.body.data.result).toBe(0);
  });
});
