// The redirect on its own (a stand-in for management's internal endpoints, so every lookup that
// reaches management is counted): paths that cannot be codes, misses shared through Redis, the
// per-client miss budget, and tenancy on branded domains.
import { request } from "node:http";
import {
  type DomainRecord,
  INVALIDATION_CHANNEL,
  type RotatorRecord,
  redirectKey,
  redirectMissKey,
  rotatorKey,
} from "@kurz/contracts";
import { testRedisUrl, waitFor } from "@kurz/testing";
import { Redis } from "ioredis";
import { beforeAll, describe, expect, it } from "vitest";
import { redirectRecord } from "./support/records.ts";
import { useRedirectFixture } from "./support/redirect-fixture.ts";

const BUDGET = 3;
const OWNER = "0190a1b2-0000-7000-8000-0000000000b1";
const OTHER = "0190a1b2-0000-7000-8000-0000000000b2";

const t = useRedirectFixture({
  name: "redirect-hosts",
  observe: true,
  env: {
    PUBLIC_BASE_URL: "http://127.0.0.1:8080",
    // Each test speaks as its own clients through X-Forwarded-For.
    TRUST_PROXY: "true",
    MISS_BUDGET_PER_MINUTE: String(BUDGET),
  },
});

interface Answer {
  status: number;
  location?: string;
  retryAfter?: string;
  body: string;
}

/** A request sent byte for byte (no dot-segment or escape normalisation), as `ip`, to `host`. */
function visit(
  path: string,
  opts: { ip: string; host?: string; accept?: string; method?: string },
): Promise<Answer> {
  const { port } = new URL(t.redirect.url);
  const headers: Record<string, string> = {
    "x-forwarded-for": opts.ip,
    "user-agent": "Mozilla/5.0 hosts-test",
  };
  if (opts.host) headers.host = opts.host;
  if (opts.accept) headers.accept = opts.accept;
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: opts.method ?? "GET", headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode!,
          location: res.headers.location,
          retryAfter: res.headers["retry-after"] as string | undefined,
          body,
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

const managementCalls = () => t.mgmt.calls.length;
const direct = () => new Redis(testRedisUrl());
async function missKeys(): Promise<string[]> {
  const r = direct();
  try {
    return await r.keys(`${t.prefix}:miss:*`);
  } finally {
    r.disconnect();
  }
}

describe("paths that cannot name a code", () => {
  it("get the 404 page without any lookup: no management call, no shared miss, no budget spent", async () => {
    const ip = "192.0.2.10";
    const paths = [
      "/%00",
      "/%ff",
      "/%FF%FE",
      "/..%2f",
      "/..%2fapi%2fv1",
      "/%2e%2e/internal",
      "/..",
      "/.",
      "/-",
      "/_",
      "/--",
      "/abc.def",
      "/%41bc",
      "/abc%20",
      `/${"a".repeat(101)}`,
      `/${"a".repeat(5000)}`,
      "/abc/",
      "/a/b/c",
      `/${encodeURIComponent("\u00e9t\u00e9")}`,
      "/r/%00",
      "/r/ab",
      "/r/..%2f",
      "/r/",
      "/r/a/b",
    ];
    const calls = managementCalls();
    for (const path of paths) {
      const res = await visit(path, { ip });
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.body).toContain("Link not found");
    }
    expect(managementCalls()).toBe(calls);
    expect(await missKeys()).toEqual([]);
    // The budget is untouched: the same client still has all its misses.
    for (let i = 0; i < BUDGET; i++) expect((await visit(`/valid-unknown-${i}`, { ip })).status).toBe(404);
    expect(managementCalls()).toBe(calls + BUDGET);
  });
});

describe("misses shared through Redis", () => {
  it("writes a short-lived miss when management has no such code, and trusts one written elsewhere", async () => {
    const ip = "192.0.2.20";
    const calls = managementCalls();
    expect((await visit("/shared-miss-1", { ip })).status).toBe(404);
    expect(managementCalls()).toBe(calls + 1);
    const ttl = await t.redis.ttl(redirectMissKey("shared-miss-1"));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);

    // Another instance's miss: this instance does not ask management either.
    t.mgmt.links.set("elsewhere-1", redirectRecord("https://example.com/elsewhere"));
    await t.redis.set(redirectMissKey("elsewhere-1"), "1", "EX", 60);
    expect((await visit("/elsewhere-1", { ip })).status).toBe(404);
    expect(managementCalls()).toBe(calls + 1);
  });

  it("lets a record win over a miss, so a miss written in a race with a create cannot hide it", async () => {
    const ip = "192.0.2.21";
    await t.redis.set(redirectMissKey("raced-1"), "1", "EX", 60);
    await t.redis.set(redirectKey("raced-1"), JSON.stringify(redirectRecord("https://example.com/raced")));
    const calls = managementCalls();
    const res = await visit("/raced-1", { ip });
    expect(res).toMatchObject({ status: 302, location: "https://example.com/raced" });
    expect(managementCalls()).toBe(calls);
  });
});

describe("the per-client miss budget", () => {
  it(`refuses a client's lookups that would reach management after ${BUDGET} misses a minute`, async () => {
    const ip = "203.0.113.5";
    await t.redis.set(redirectKey("budget-hit"), JSON.stringify(redirectRecord("https://example.com/hit")));
    const calls = managementCalls();
    for (let i = 0; i < BUDGET; i++) expect((await visit(`/flood-${i}`, { ip })).status).toBe(404);
    const refused = await visit("/flood-next", { ip, accept: "application/json" });
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    expect(JSON.parse(refused.body)).toEqual({
      success: false,
      error: {
        code: "RATE_LIMIT_EXCEEDED",
        message: "Too many requests for links that do not exist. Try again later.",
      },
    });
    expect((await visit("/flood-later", { ip })).status).toBe(429);
    expect(managementCalls()).toBe(calls + BUDGET);

    // What is cached still answers: a link in Redis, and a miss already known.
    expect(await visit("/budget-hit", { ip })).toMatchObject({
      status: 302,
      location: "https://example.com/hit",
    });
    expect((await visit("/flood-0", { ip })).status).toBe(404);
    // Other clients have budgets of their own.
    expect((await visit("/flood-other", { ip: "203.0.113.6" })).status).toBe(404);
    expect(managementCalls()).toBe(calls + BUDGET + 1);
  });

  it("does not spend the budget on codes management finds", async () => {
    const ip = "203.0.113.7";
    for (let i = 0; i < BUDGET + 2; i++) {
      t.mgmt.links.set(`found-${i}`, redirectRecord(`https://example.com/found/${i}`));
      expect((await visit(`/found-${i}`, { ip })).status).toBe(302);
    }
    expect((await visit("/not-found-after", { ip })).status).toBe(404);
  });

  it("counts an IPv6 client by its /64", async () => {
    for (let i = 1; i <= BUDGET; i++)
      expect((await visit(`/v6-flood-${i}`, { ip: `2001:db8:9:9::${i}` })).status).toBe(404);
    expect((await visit("/v6-flood-x", { ip: "2001:db8:9:9:abcd::1" })).status).toBe(429);
    expect((await visit("/v6-flood-y", { ip: "2001:db8:9:a::1" })).status).toBe(404);
  });

  it("counts unknown hosts too", async () => {
    const ip = "203.0.113.8";
    for (let i = 0; i < BUDGET; i++)
      expect((await visit("/anything", { ip, host: `random-${i}.unknown.test` })).status).toBe(404);
    expect((await visit("/anything", { ip, host: "random-x.unknown.test" })).status).toBe(429);
  });
});

describe("branded domains", () => {
  const domain: DomainRecord = {
    id: 1,
    account_id: OWNER,
    redirect_root: "https://brand.example/",
    redirect_404: "https://brand.example/404",
  };

  beforeAll(async () => {
    t.mgmt.domains.set("go.brand.test", domain);
    t.mgmt.domains.set("bare.brand.test", { ...domain, id: 2, redirect_root: null, redirect_404: null });
    // A link is served only on its own domain: owned-N lives on the domain with id N.
    const link = (code: string, account: string, domainId: number | null) =>
      t.redis.set(
        redirectKey(code),
        JSON.stringify(
          redirectRecord(`https://example.com/${code}`, { account_id: account, domain_id: domainId }),
        ),
      );
    await link("owned-1", OWNER, 1);
    await link("owned-2", OWNER, 2);
    await link("owned-3", OWNER, 3);
    await link("owned-main", OWNER, null);
    await link("foreign-1", OTHER, null);
    const rotator = (slug: string, account: string, code: string): Promise<unknown> =>
      t.redis.set(
        rotatorKey(slug),
        JSON.stringify({
          campaign_id: slug.length,
          account_id: account,
          links: [{ id: redirectRecord("").id, short_code: code }],
        } satisfies RotatorRecord),
      );
    await rotator("own-rot", OWNER, "owned-1");
    await rotator("foreign-rot", OTHER, "foreign-1");
  });

  it("serves only its owner's links and rotators; anything else is its 404, and no click", async () => {
    const ip = "198.51.100.30";
    const on = (host: string, path: string) => visit(path, { ip, host });
    for (const host of ["go.brand.test", "GO.Brand.TEST.", "go.brand.test:443", "go.brand.test:80"]) {
      expect(await on(host, "/owned-1")).toMatchObject({
        status: 302,
        location: "https://example.com/owned-1",
      });
      expect(await on(host, "/foreign-1")).toMatchObject({
        status: 302,
        location: "https://brand.example/404",
      });
    }
    expect(await on("go.brand.test", "/r/own-rot")).toMatchObject({
      location: "https://example.com/owned-1",
    });
    expect(await on("go.brand.test", "/r/foreign-rot")).toMatchObject({
      status: 302,
      location: "https://brand.example/404",
    });
    expect(await on("go.brand.test", "/")).toMatchObject({ status: 302, location: "https://brand.example/" });
    // A path that can name no code is an unknown path too, sent to the domain's 404.
    for (const path of ["/some/deep/path", "/a", "/%00"])
      expect(await on("go.brand.test", path)).toMatchObject({
        status: 302,
        location: "https://brand.example/404",
      });
    const bare = await on("bare.brand.test", "/foreign-1");
    expect(bare.status).toBe(404);
    expect(bare.body).toContain("Link not found");
    expect((await on("bare.brand.test", "/r/foreign-rot")).status).toBe(404);
    expect((await on("bare.brand.test", "/owned-2")).status).toBe(302);
    // A link created on a domain lives there only; the owner's main-host links are served on its domains.
    expect((await on("bare.brand.test", "/owned-1")).status).toBe(404);
    expect(await on("go.brand.test", "/owned-main")).toMatchObject({
      status: 302,
      location: "https://example.com/owned-main",
    });
    expect((await visit("/owned-1", { ip })).status).toBe(404);
    expect((await visit("/owned-main", { ip })).status).toBe(302);

    // The public host serves every tenant's main-host links.
    expect(await visit("/foreign-1", { ip })).toMatchObject({ status: 302 });
    // Clicks: one per owned follow (4 spellings, the rotator, bare), one on the public host; none
    // for the foreign link on a branded host.
    await waitFor(
      () =>
        t.clicks.events.filter((e) => e.short_code === "owned-1" || e.short_code === "owned-2").length === 6,
      { timeoutMs: 10_000 },
    );
    // The public host's click came last: once it is on the bus, one on a branded host would be too.
    const publicHost = `127.0.0.1:${new URL(t.redirect.url).port}`;
    await waitFor(() => t.clicks.events.some((e) => e.short_code === "foreign-1" && e.host === publicHost), {
      timeoutMs: 10_000,
    });
    expect(t.clicks.events.filter((e) => e.short_code === "foreign-1")).toHaveLength(1);
  });

  it("serves nothing on a host that is not a branded domain, and looks up no Host that is not a host", async () => {
    const ip = "198.51.100.31";
    for (const path of ["/owned-1", "/foreign-1", "/r/own-rot", "/"]) {
      const res = await visit(path, { ip, host: "not-registered.test" });
      expect(res.status).toBe(404);
      expect(res.body).toContain("Link not found");
    }
    const calls = managementCalls();
    for (const host of ["user@go.brand.test", "go.brand.test/x", "-bad-.test", "a b"]) {
      const res = await visit("/owned-1", { ip, host });
      expect(res.status).toBe(404);
    }
    expect(managementCalls()).toBe(calls);
  });

  it("follows an invalidation of the domain at once", async () => {
    const ip = "198.51.100.32";
    t.mgmt.domains.set("moving.brand.test", { ...domain, id: 3 });
    expect((await visit("/owned-3", { ip, host: "moving.brand.test" })).status).toBe(302);
    t.mgmt.domains.delete("moving.brand.test");
    await t.redis.publish(INVALIDATION_CHANNEL, "domain:moving.brand.test");
    await waitFor(async () => (await visit("/owned-3", { ip, host: "moving.brand.test" })).status === 404, {
      timeoutMs: 1_000,
      intervalMs: 20,
    });
  });
});
