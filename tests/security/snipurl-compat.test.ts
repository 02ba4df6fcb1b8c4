// Attacks on what being a drop-in for SnipURL's clients brings: links created with a past expires_at, the
// X-API-Version and X-RateLimit-* headers on refusals, the messages that follow SnipURL's wording (they must
// tell a stranger nothing about others' links), and the account's click total after deletes (docs/api.md,
// "Versions", "Validation errors", "Links", "Account").
import { waitFor } from "@kurz/testing";
import { describe, expect, it } from "vitest";
import {
  api,
  expectV1Error,
  type RawResponse,
  RELAXED_LIMITS,
  raw,
  useAttackerAndVictim,
  useAttackStack,
} from "./attack.ts";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const PAST = "2025-12-31T23:59:59Z";
/** The failed-authentication budget of this stack (AUTH_FAILURE_LIMIT_PER_MINUTE). */
const AUTH_FAILURES_PER_MINUTE = 5;

const bed = useAttackStack(
  {
    AUTH_FAILURE_LIMIT_PER_MINUTE: String(AUTH_FAILURES_PER_MINUTE),
    TITLE_FETCH_ENABLED: "false",
    CLICK_TOTALS_INTERVAL_MS: "200",
  },
  { inProcess: true },
);
const ctx = useAttackerAndVictim(bed, "compat");

const expectVersion = (res: RawResponse, what: string) =>
  expect(res.headers["x-api-version"], `${what}: ${res.status} ${res.text}`).toBe("1.0.0");

describe("a link created already expired", () => {
  it("never sends a visitor to its destination, password or not, and shows no password form", async () => {
    for (const body of [
      { url: "https://expired.example/secret", expires_at: PAST },
      { url: "https://expired.example/locked", expires_at: PAST, password: "correct-horse-battery" },
    ]) {
      const made = await ctx.asAttacker("POST", "/api/v1/links", body);
      expect(made.status, made.text).toBe(201);
      const code = made.body.data.short_code as string;
      for (const method of ["GET", "HEAD"]) {
        const res = await raw(bed.stack.origin, method, `/${code}`, { headers: { "user-agent": BROWSER } });
        expect(res.status, `${method} /${code}`).toBe(410);
        expect(res.headers.location).toBeUndefined();
        expect(res.text).not.toContain("expired.example");
      }
      const post = await raw(bed.stack.origin, "POST", `/${code}`, {
        headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": BROWSER },
        body: "password=correct-horse-battery",
      });
      expect(post.status).toBe(410);
      expect(post.headers.location).toBeUndefined();
    }
  });

  it("still counts against the link limit (single and bulk), so expired links cannot pass it", async () => {
    const small = await bed.stack.createAccount(`compat-limit-${Date.now()}@example.test`, 2);
    const call = api(bed.stack, small.api_key);
    expect(
      (await call("POST", "/api/v1/links", { url: "https://a.example/", expires_at: PAST })).status,
    ).toBe(201);
    const bulk = await call("POST", "/api/v1/links/bulk", {
      links: [
        { url: "https://b.example/", expires_at: PAST },
        { url: "https://c.example/", expires_at: PAST },
      ],
    });
    expectV1Error(bulk, 403, "FORBIDDEN");
    expect(
      (await call("POST", "/api/v1/links", { url: "https://b.example/", expires_at: PAST })).status,
    ).toBe(201);
    expectV1Error(
      await call("POST", "/api/v1/links", { url: "https://c.example/", expires_at: PAST }),
      403,
      "FORBIDDEN",
    );
  });

  it("holds its alias like any link: nobody else can take it", async () => {
    const alias = `expired-alias-${Date.now().toString(36)}`;
    const made = await ctx.asVictim("POST", "/api/v1/links", {
      url: "https://victim.example/",
      custom_alias: alias,
      expires_at: PAST,
    });
    expect(made.status, made.text).toBe(201);
    const taken = await ctx.asAttacker("POST", "/api/v1/links", {
      url: "https://attacker.example/",
      custom_alias: alias,
    });
    expectV1Error(taken, 409, "CONFLICT");
    expect(taken.text).not.toContain("victim.example");
    const bulk = await ctx.asAttacker("POST", "/api/v1/links/bulk", {
      links: [{ url: "https://attacker.example/", custom_alias: alias, expires_at: PAST }],
    });
    expect(bulk.body.data).toEqual({ success: [], failed: [{ index: 0, error: "Alias already taken" }] });
  });

  it("is another account's like any link: 404 'Link not found.' on every id route, same as a missing one", async () => {
    const made = await ctx.asVictim("POST", "/api/v1/links", {
      url: "https://victim.example/x",
      expires_at: PAST,
    });
    const { id, short_code } = made.body.data;
    for (const [method, path] of [
      ["GET", `/api/v1/links/${id}`],
      ["DELETE", `/api/v1/links/${id}`],
      ["GET", `/api/v1/analytics/${id}`],
      ["GET", `/api/v1/qr/${short_code}`],
    ]) {
      const res = await ctx.asAttacker(method!, path!);
      expectV1Error(res, 404, "NOT_FOUND");
      expect(res.body.error.message).toBe("Link not found.");
      expect(res.body.error.details).toBeUndefined();
      expectVersion(res, path!);
    }
  });
});

describe("messages and details tell a stranger nothing new", () => {
  it("a taken alias names only the alias the caller sent", async () => {
    const alias = `victim-owned-${Date.now().toString(36)}`;
    expect(
      (await ctx.asVictim("POST", "/api/v1/links", { url: "https://victim.example/p", custom_alias: alias }))
        .status,
    ).toBe(201);
    const res = await ctx.asAttacker("POST", "/api/v1/links", {
      url: "https://a.example/",
      custom_alias: alias,
    });
    expectV1Error(res, 409, "CONFLICT");
    expect(res.body.error).toEqual({
      code: "CONFLICT",
      message: "This custom alias is already taken.",
      details: { custom_alias: alias },
    });
  });

  it("a validation tree names the caller's own fields only, and never echoes a password", async () => {
    // A link password is any non-empty string up to 128 characters: one past the cap is refused.
    const password = `pw-${"z".repeat(126)}`;
    const res = await ctx.asAttacker("POST", "/api/v1/links", {
      url: "javascript:alert(1)",
      password,
      expires_at: "soon",
    });
    expectV1Error(res, 400, "VALIDATION_ERROR");
    expect(Object.keys(res.body.error.details).sort()).toEqual(["_errors", "expires_at", "password", "url"]);
    expect(JSON.stringify(res.body.error.details)).not.toContain("alert(1)");
    expect(JSON.stringify(res.body)).not.toContain(password.slice(0, 20));
  });
});

describe("refusals carry X-API-Version and the budget they were counted against", () => {
  it("refused paths under /api/v1 say which version refused them; the older API's do not", async () => {
    for (const path of ["/api/v1/links/%2e%2e/account", "/api/v1/links/..%2fx", "/api/v1//links"]) {
      const res = await raw(bed.stack.origin, "GET", path, {
        headers: { authorization: `Bearer ${ctx.attacker.api_key}` },
      });
      expectV1Error(res, 400, "BAD_REQUEST");
      expectVersion(res, path);
    }
    const legacy = await raw(bed.stack.origin, "GET", "/api/links/%2e%2e/account");
    expect(legacy.status).toBe(400);
    expect(legacy.headers["x-api-version"]).toBeUndefined();
  });

  it("an identity header forged by the client cannot change the version or the budget reported", async () => {
    const res = await ctx.asAttacker("GET", "/api/v1/account", undefined, {
      "x-api-version": "2.0.0",
      "x-ratelimit-limit": "999999",
    });
    expect(res.status).toBe(200);
    expectVersion(res, "forged request headers");
    expect(res.headers["x-ratelimit-limit"]).toBe(RELAXED_LIMITS.RATE_LIMIT_PER_MINUTE);
  });
});

describe("the account's click total after deletes", () => {
  it("drops with the deleted link at once and agrees with the summary; the other account is untouched", async () => {
    const mine = await ctx.asVictim("POST", "/api/v1/links", { url: "https://victim.example/clicked" });
    const theirs = await ctx.asAttacker("POST", "/api/v1/links", { url: "https://attacker.example/clicked" });
    for (const link of [mine.body.data, theirs.body.data]) {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(link.short_url, { redirect: "manual", headers: { "user-agent": BROWSER } });
        expect(res.status).toBe(302);
      }
    }
    const totals = async (call: typeof ctx.asVictim) => [
      (await call("GET", "/api/v1/account")).body.data.total_clicks as number,
      (await call("GET", "/api/v1/analytics/summary")).body.data.total_clicks as number,
    ];
    await waitFor(
      async () =>
        (await totals(ctx.asVictim)).join() === "2,2" && (await totals(ctx.asAttacker)).join() === "2,2",
      { timeoutMs: 20_000, intervalMs: 200, description: "2 clicks each, in account and summary" },
    );
    // The attacker deleting the victim's link does nothing; the victim deleting it drops only the victim's.
    expectV1Error(await ctx.asAttacker("DELETE", `/api/v1/links/${mine.body.data.id}`), 404, "NOT_FOUND");
    expect(await totals(ctx.asVictim)).toEqual([2, 2]);
    expect((await ctx.asVictim("DELETE", `/api/v1/links/${mine.body.data.id}`)).status).toBe(200);
    expect(await totals(ctx.asVictim)).toEqual([0, 0]);
    expect(await totals(ctx.asAttacker)).toEqual([2, 2]);
    // A repeated delete (single, then bulk) cannot take the total below what is left.
    expectV1Error(await ctx.asVictim("DELETE", `/api/v1/links/${mine.body.data.id}`), 404, "NOT_FOUND");
    const bulk = await ctx.asVictim("DELETE", "/api/v1/links/bulk", {
      ids: [mine.body.data.id, theirs.body.data.id],
    });
    expect(bulk.body.data).toEqual({ deleted: 0 });
    expect(await totals(ctx.asVictim)).toEqual([0, 0]);
    expect(await totals(ctx.asAttacker)).toEqual([2, 2]);
  });
});

// Last: it spends this client's failed-authentication budget, after which every request from this
// address is 429 until the minute ends.
describe("the failed-authentication budget", () => {
  it("401s and the 429 after the failed-authentication budget, from one client", async () => {
    const seen: RawResponse[] = [];
    // Two windows at most: a minute boundary during the loop starts the count again.
    for (let i = 0; i < 2 * (AUTH_FAILURES_PER_MINUTE + 1); i++) {
      const res = await raw(bed.stack.origin, "GET", "/api/v1/links", {
        headers: { authorization: `Bearer kurz_live_${"A".repeat(31)}${i % 10}` },
      });
      seen.push(res);
      if (res.status === 429) break;
    }
    const refused = seen.at(-1)!;
    expectV1Error(refused, 429, "RATE_LIMIT_EXCEEDED");
    expect(refused.body.error.message).toMatch(/^Rate limit exceeded\. Retry after \d+ seconds\.$/);
    for (const res of seen) {
      expectVersion(res, "bad key");
      expect(res.headers["x-ratelimit-limit"]).toBe(String(AUTH_FAILURES_PER_MINUTE));
      expect(res.headers["x-ratelimit-remaining"]).toMatch(/^\d+$/);
    }
    for (const res of seen.slice(0, -1)) expectV1Error(res, 401, "UNAUTHORIZED");
  });
});
