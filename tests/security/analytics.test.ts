// Attacks on analytics (docs/security.md, "Analytics: read-your-writes and tenant isolation"): another
// account's link is indistinguishable from a missing one, a deleted link is gone at once, a summary
// shows only its own account, and management's internal analytics endpoints take analytics'
// credential only: never the gateway's forwarding credential, end-user identity or the raw secret.
import { randomUUID } from "node:crypto";
import {
  ACCOUNT_ID_HEADER,
  CALLER_HEADER,
  callerToken,
  forwardedHeaders,
  INTERNAL_TOKEN_HEADER,
  internalHeaders,
  KEY_ID_HEADER,
} from "@kurz/service-kit";
import { waitFor } from "@kurz/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { expectV1Error, raw, useAttackerAndVictim, useAttackStack } from "./attack.ts";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
/** The victim's visitors use another browser: one visitor of theirs in the attacker's summary would show. */
const VICTIMS_VISITOR = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0";

const bed = useAttackStack({}, { inProcess: true });
const ctx = useAttackerAndVictim(bed, "analytics");
/** The victim's link with 2 clicks, and the attacker's own with 1. */
let victimLink: { id: string; short_code: string; short_url: string };
let attackerLink: { id: string; short_code: string; short_url: string };

async function clicked(url: string, n: number, userAgent = BROWSER) {
  for (let i = 0; i < n; i++) {
    const res = await fetch(url, { redirect: "manual", headers: { "user-agent": userAgent } });
    expect(res.status).toBe(302);
  }
}

beforeAll(async () => {
  const made = await ctx.asVictim("POST", "/api/v1/links", {
    url: "https://victim.example/secret",
    title: "V",
  });
  const own = await ctx.asAttacker("POST", "/api/v1/links", { url: "https://attacker.example/", title: "A" });
  expect([made.status, own.status]).toEqual([201, 201]);
  victimLink = made.body.data;
  attackerLink = own.body.data;
  await clicked(victimLink.short_url, 2, VICTIMS_VISITOR);
  await clicked(attackerLink.short_url, 1);
  await waitFor(
    async () =>
      (await ctx.asVictim("GET", "/api/v1/analytics/summary")).body.data?.total_clicks === 2 &&
      (await ctx.asAttacker("GET", "/api/v1/analytics/summary")).body.data?.total_clicks === 1,
    { timeoutMs: 20_000, intervalMs: 100, description: "clicks in analytics" },
  );
});

const victimStats = async () => {
  const res = await ctx.asVictim("GET", `/api/v1/analytics/${victimLink.id}`);
  expect(res.status).toBe(200);
  return res.body.data;
};

describe("tenant isolation", () => {
  it("another account's link id answers exactly as a missing id, and reveals nothing", async () => {
    const before = await victimStats();
    const theirs = await ctx.asAttacker("GET", `/api/v1/analytics/${victimLink.id}`);
    const missing = await ctx.asAttacker("GET", `/api/v1/analytics/${randomUUID()}`);
    expectV1Error(theirs, 404, "NOT_FOUND");
    expect(theirs.body).toEqual(missing.body);
    expect(theirs.text).not.toContain(victimLink.short_code);
    // With a period too (another code path through the queries).
    const ranged = await ctx.asAttacker(
      "GET",
      `/api/v1/analytics/${victimLink.id}?start=2020-01-01&end=2030-01-01`,
    );
    expectV1Error(ranged, 404, "NOT_FOUND");
    expect(await victimStats()).toEqual(before);
  });

  it("the attacker's summary counts only the attacker's links, clicks and visitors", async () => {
    const res = await ctx.asAttacker("GET", "/api/v1/analytics/summary");
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      total_links: 1,
      active_links: 1,
      total_clicks: 1,
      unique_visitors: 1,
    });
    expect(res.body.data.top_links.map((l: { id: string }) => l.id)).toEqual([attackerLink.id]);
    expect(res.text).not.toContain(victimLink.id);
    expect(res.text).not.toContain("victim.example");
  });

  it("the victim's switched-off and expired links count in neither of the attacker's link totals", async () => {
    // active_links subtracts the links that do not answer (link-count.ts): only the account's own.
    const off = await ctx.asVictim("POST", "/api/v1/links", { url: "https://victim.example/off" });
    const old = await ctx.asVictim("POST", "/api/v1/links", {
      url: "https://victim.example/old",
      expires_at: "2020-01-01T00:00:00Z",
    });
    expect([off.status, old.status]).toEqual([201, 201]);
    try {
      const patched = await ctx.asVictim("PATCH", `/api/v1/links/${off.body.data.id}`, { is_active: false });
      expect(patched.status).toBe(200);
      const attacker = await ctx.asAttacker("GET", "/api/v1/analytics/summary");
      expect(attacker.body.data).toMatchObject({ total_links: 1, active_links: 1 });
      const victim = await ctx.asVictim("GET", "/api/v1/analytics/summary");
      expect(victim.body.data).toMatchObject({ total_links: 3, active_links: 1 });
    } finally {
      for (const made of [off, old])
        expect((await ctx.asVictim("DELETE", `/api/v1/links/${made.body.data.id}`)).status).toBe(200);
    }
  });

  it("forged identity headers through the public origin do not switch accounts", async () => {
    const res = await ctx.asAttacker("GET", `/api/v1/analytics/${victimLink.id}`, undefined, {
      [ACCOUNT_ID_HEADER]: ctx.victim.account_id,
      ...forwardedHeaders(bed.stack.env.INTERNAL_TOKEN!, { accountId: ctx.victim.account_id }),
    });
    expectV1Error(res, 404, "NOT_FOUND");
  });
});

describe("deletion", () => {
  it("a deleted link's analytics are 404 at once, and its clicks leave the summary at once", async () => {
    const made = await ctx.asVictim("POST", "/api/v1/links", { url: "https://victim.example/short-lived" });
    expect(made.status).toBe(201);
    const link = made.body.data;
    await clicked(link.short_url, 3);
    await waitFor(
      async () => (await ctx.asVictim("GET", `/api/v1/analytics/${link.id}`)).body.data?.total_clicks === 3,
      { timeoutMs: 20_000, intervalMs: 100, description: "3 clicks" },
    );
    expect((await ctx.asVictim("DELETE", `/api/v1/links/${link.id}`)).status).toBe(200);
    const after = await ctx.asVictim("GET", `/api/v1/analytics/${link.id}`);
    expectV1Error(after, 404, "NOT_FOUND");
    const summary = await ctx.asVictim("GET", "/api/v1/analytics/summary");
    expect(summary.body.data).toMatchObject({ total_links: 1, total_clicks: 2 });
    expect(summary.body.data.top_links.map((l: { id: string }) => l.id)).toEqual([victimLink.id]);
  });
});

describe("management's internal analytics endpoints", () => {
  const secret = () => bed.stack.env.INTERNAL_TOKEN!;
  const paths = () => [
    `/internal/analytics/links/${victimLink.id}?account_id=${ctx.victim.account_id}`,
    `/internal/analytics/accounts/${ctx.victim.account_id}/links-summary?deleted_within=60&candidates=${victimLink.id}`,
    `/internal/analytics/public/${victimLink.short_code}`,
  ];
  const call = (path: string, headers: Record<string, string>) =>
    raw(bed.stack.urls.management, "GET", path, { headers });

  it("answer analytics' credential (the control for the refusals below)", async () => {
    const link = await call(paths()[0]!, internalHeaders(secret(), "analytics"));
    expect(link.status).toBe(200);
    expect(link.body).toMatchObject({ link_id: victimLink.id, short_code: victimLink.short_code });
    const summary = await call(paths()[1]!, internalHeaders(secret(), "analytics"));
    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({ total_links: 1, links: [{ id: victimLink.id }] });
  });

  const refusals: [string, number, string, (s: string, victim: string) => Record<string, string>][] = [
    ["no credential", 401, "UNAUTHORIZED", () => ({})],
    ["the raw secret", 401, "UNAUTHORIZED", (s) => ({ [INTERNAL_TOKEN_HEADER]: s })],
    ["the gateway's caller credential", 401, "UNAUTHORIZED", (s) => internalHeaders(s, "gateway")],
    ["the redirect's caller credential", 401, "UNAUTHORIZED", (s) => internalHeaders(s, "redirect")],
    [
      "analytics' credential under another caller name",
      401,
      "UNAUTHORIZED",
      (s) => ({ [INTERNAL_TOKEN_HEADER]: callerToken(s, "management"), [CALLER_HEADER]: "analytics" }),
    ],
    [
      "the gateway's forwarding credential with a user identity",
      403,
      "FORBIDDEN",
      (s, victim) => forwardedHeaders(s, { accountId: victim, keyId: randomUUID() }),
    ],
    [
      "analytics' credential plus end-user identity",
      403,
      "FORBIDDEN",
      (s, victim) => ({ ...internalHeaders(s, "analytics"), [ACCOUNT_ID_HEADER]: victim }),
    ],
    [
      "analytics' credential plus a key id",
      403,
      "FORBIDDEN",
      (s) => ({ ...internalHeaders(s, "analytics"), [KEY_ID_HEADER]: randomUUID() }),
    ],
    [
      "analytics' credential plus the forwarding credential",
      403,
      "FORBIDDEN",
      (s) => ({ ...internalHeaders(s, "analytics"), ...forwardedHeaders(s) }),
    ],
  ];

  it.each(refusals)("refuse %s", async (what, status, code, headers) => {
    // The gateway may ask the public answer (a stats page's status): tested on its own below.
    const refused = what === "the gateway's caller credential" ? paths().slice(0, 2) : paths();
    for (const path of refused) {
      const res = await call(path, headers(secret(), ctx.victim.account_id));
      expectV1Error(res, status, code);
      expect(res.text, path).not.toContain(victimLink.short_code);
    }
  });

  it("give the gateway's credential the public answer only: a private link is not found", async () => {
    const res = await call(paths()[2]!, internalHeaders(secret(), "gateway"));
    expectV1Error(res, 404, "NOT_FOUND");
    expect(res.text).not.toContain(victimLink.short_code);
  });

  it("are not reachable through the public origin, even by traversal", async () => {
    const id = victimLink.id;
    const query = `?account_id=${ctx.victim.account_id}`;
    const auth = { authorization: `Bearer ${ctx.attacker.api_key}` };
    // Not an API path: the redirect takes it for a short code and serves its 404 page.
    const direct = await raw(bed.stack.origin, "GET", `/internal/analytics/links/${id}${query}`, {
      headers: auth,
    });
    expect(direct.status).toBe(404);
    expect(direct.headers["content-type"]).toMatch(/^text\/html/);
    expect(direct.text).not.toContain(victimLink.short_code);
    for (const path of [
      `/api/v1/analytics/..%2f..%2f..%2finternal/analytics/links/${id}${query}`,
      `/api/v1/analytics/%2e%2e/%2e%2e/%2e%2e/internal/analytics/links/${id}${query}`,
      `/api/v1/analytics/../../../internal/analytics/links/${id}${query}`,
      `/api/v1/analytics/..\\..\\..\\internal/analytics/links/${id}${query}`,
    ]) {
      const res = await raw(bed.stack.origin, "GET", path, { headers: auth });
      expectV1Error(res, 400, "BAD_REQUEST");
      expect(res.text, path).not.toContain(victimLink.short_code);
    }
  });
});

describe("hourly series (interval=hour)", () => {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  // Exactly 7 days, both ends from one clock reading (two readings can be 1 ms more than the limit).
  const week = () => {
    const now = Date.now();
    return (
      `start=${encodeURIComponent(new Date(now - 7 * 86_400_000).toISOString())}` +
      `&end=${encodeURIComponent(new Date(now).toISOString())}`
    );
  };

  it("refuses ranges longer than 7 days, or none, with a clear 400 that changes nothing", async () => {
    const before = await victimStats();
    for (const query of [
      `start=${day(-30)}&end=${day(0)}&interval=hour`,
      `start=${day(-7)}&end=${day(0)}&interval=hour`, // a bare end date includes its day: 8 days
      "interval=hour",
      `start=${day(-1)}&interval=hour`,
    ]) {
      for (const path of [`/api/v1/analytics/${victimLink.id}`, "/api/v1/analytics/summary"]) {
        const res = await ctx.asVictim("GET", `${path}?${query}`);
        expectV1Error(res, 400, "VALIDATION_ERROR");
        expect(res.text, query).toContain("interval=hour needs start and end at most 7 days apart");
      }
    }
    expect(await victimStats()).toEqual(before);
  });

  it("refuses unknown interval values with 400, never a server error", async () => {
    for (const value of ["minute", "HOUR", "", "hour,day", "hour%00", "day%20", "x".repeat(2_000), "1"]) {
      const res = await ctx.asVictim("GET", `/api/v1/analytics/${victimLink.id}?${week()}&interval=${value}`);
      expectV1Error(res, 400, "VALIDATION_ERROR");
    }
    const twice = await ctx.asVictim("GET", `/api/v1/analytics/summary?${week()}&interval=hour&interval=day`);
    expectV1Error(twice, 400, "VALIDATION_ERROR");
  });

  it("answers the owner's hourly series, and another account's link exactly as a missing one", async () => {
    const own = await ctx.asVictim("GET", `/api/v1/analytics/${victimLink.id}?${week()}&interval=hour`);
    expect(own.status).toBe(200);
    expect(own.body.data.total_clicks).toBe(2);
    expect(own.body.data.time_series.reduce((n: number, p: { count: number }) => n + p.count, 0)).toBe(2);
    expect(own.body.data.time_series[0].hour).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00Z$/);

    const theirs = await ctx.asAttacker("GET", `/api/v1/analytics/${victimLink.id}?${week()}&interval=hour`);
    const missing = await ctx.asAttacker("GET", `/api/v1/analytics/${randomUUID()}?${week()}&interval=hour`);
    expectV1Error(theirs, 404, "NOT_FOUND");
    expect(theirs.body).toEqual(missing.body);
    expect(theirs.text).not.toContain(victimLink.short_code);

    const summary = await ctx.asAttacker("GET", `/api/v1/analytics/summary?${week()}&interval=hour`);
    expect(summary.status).toBe(200);
    expect(
      summary.body.data.clicks_over_time.reduce((n: number, p: { count: number }) => n + p.count, 0),
    ).toBe(1);
    expect(summary.text).not.toContain(victimLink.id);
  });
});
