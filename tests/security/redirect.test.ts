// Attacks on the redirect (docs/security.md "The redirect: branded hosts, unknown codes, passwords,
// operational endpoints"), through the public origin:
// - another tenant's links and rotators on a verified branded domain (the domain is verified the way
//   its owner would: a TXT record on a real DNS server on loopback, then the verify action);
// - paths that cannot be codes, and floods of unknown codes;
// - the operational endpoints;
// - password guessing spread over many addresses, and over one IPv6 /64; over-long passwords;
// - a deleted link brought back by the redirect's miss path racing with its delete;
// - destinations a URI does not allow (quotes, angle brackets, spaces, braces, stray `%`, CR/LF),
//   stored now or by an older management: the Location is a valid URI and carries no header.
// Clients are told apart by X-Forwarded-For (the stack runs with TRUST_PROXY=true), each attack
// speaking as addresses of its own, so that budgets never leak from one attack into another.
import { INVALIDATION_CHANNEL } from "@kurz/contracts";
import { internalHeaders } from "@kurz/service-kit";
import { waitFor } from "@kurz/testing";
import { useTestDnsServer } from "@kurz/testing/use-stack";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectV1Error, type RawResponse, raw, useAttackerAndVictim, useAttackStack } from "./attack.ts";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const unique = `${process.pid}${Date.now().toString(36)}`;
const MISS_BUDGET = 5;
const PASSWORD_PER_CLIENT = 3;
const PASSWORD_PER_LINK = 6;
const PASSWORD_WINDOW_SECONDS = 4;

const dns = useTestDnsServer();
const bed = useAttackStack(
  () => ({
    DNS_SERVERS: dns().address,
    MISS_BUDGET_PER_MINUTE: String(MISS_BUDGET),
    PASSWORD_MAX_ATTEMPTS: String(PASSWORD_PER_CLIENT),
    PASSWORD_LINK_MAX_ATTEMPTS: String(PASSWORD_PER_LINK),
    PASSWORD_WINDOW_SECONDS: String(PASSWORD_WINDOW_SECONDS),
  }),
  { inProcess: true },
);
/** Redis without the stack's key prefix: keys are named in full, and the invalidation channel as is. */
let redis: Redis;
const ctx = useAttackerAndVictim(bed, "redirect");

beforeAll(async () => {
  redis = new Redis(bed.stack.env.REDIS_URL!);
});

afterAll(() => {
  redis?.disconnect();
});

/** A visitor's request: a browser (unless `userAgent` says otherwise), from `ip`, on `host` (the public host when omitted). */
function visit(
  path: string,
  opts: { ip: string; host?: string; method?: string; body?: string; accept?: string; userAgent?: string },
): Promise<RawResponse> {
  return raw(bed.stack.origin, opts.method ?? "GET", path, {
    headers: {
      "user-agent": opts.userAgent ?? BROWSER,
      "x-forwarded-for": opts.ip,
      ...(opts.host ? { host: opts.host } : {}),
      ...(opts.accept ? { accept: opts.accept } : {}),
      ...(opts.body !== undefined ? { "content-type": "application/x-www-form-urlencoded" } : {}),
    },
    ...(opts.body !== undefined ? { body: opts.body } : {}),
  });
}

/** The redirect's plain 404 page: no Location, nothing of any tenant's. */
function expect404Page(res: RawResponse, what: string): void {
  expect(res.status, what).toBe(404);
  expect(res.headers.location, what).toBeUndefined();
  expect(res.text, what).toContain("Link not found");
}

const missKeys = () => redis.keys(`${bed.stack.prefix}:miss:*`);

async function createLink(as: typeof ctx.asAttacker, body: Record<string, unknown>) {
  const res = await as("POST", "/api/v1/links", body);
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; short_code: string };
}

async function clickCounts(
  as: typeof ctx.asAttacker,
  linkId: string,
): Promise<{ clicks: number; bots: number }> {
  const res = await as("GET", `/api/v1/analytics/${linkId}`);
  expect(res.status, res.text).toBe(200);
  return { clicks: res.body.data.total_clicks as number, bots: res.body.data.bot_clicks as number };
}

async function totalClicks(as: typeof ctx.asAttacker, linkId: string): Promise<number> {
  const res = await as("GET", `/api/v1/analytics/${linkId}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.total_clicks as number;
}

describe("another tenant's links on a verified branded domain", () => {
  const host = `go.bank-${unique}.test`;
  const attackerAlias = `secure-login-${unique}`;
  const victimAlias = `bank-login-${unique}`;
  const attackerSlug = `promo-${unique}`;
  let attackerLink: { id: string; short_code: string };

  beforeAll(async () => {
    attackerLink = await createLink(ctx.asAttacker, {
      url: "https://attacker.example/phish",
      custom_alias: attackerAlias,
    });
    const campaign = await ctx.asAttacker("POST", "/api/campaign/add", { name: "promo", slug: attackerSlug });
    expect(campaign.status, campaign.text).toBe(200);
    const assigned = await ctx.asAttacker(
      "POST",
      `/api/campaign/${campaign.body.id}/assign/${attackerLink.id}`,
    );
    expect(assigned.status, assigned.text).toBe(200);

    // The victim adds its domain, publishes the TXT record and verifies it.
    const added = await ctx.asVictim("POST", "/api/domain/add", {
      domain: `https://${host}`,
      redirectroot: "https://bank.example/home",
      redirect404: "https://bank.example/missing",
    });
    expect(added.status, added.text).toBe(200);
    await dns().setTxt(added.body.verification.name, [added.body.verification.value]);
    const verified = await ctx.asVictim("POST", `/api/domain/${added.body.id}/verify`);
    expect(verified.body, verified.text).toMatchObject({ error: 0, status: "verified" });
    // The victim's link lives on its domain (a link is served only on its own host).
    await createLink(ctx.asVictim, {
      url: "https://bank.example/login",
      custom_alias: victimAlias,
      domain: host,
    });
    await waitFor(
      async () =>
        (await visit("/", { ip: "192.0.2.1", host })).headers.location === "https://bank.example/home",
      { timeoutMs: 10_000, description: "the verified domain to serve" },
    );
  });

  it("the attacker's alias on the victim's host is the victim's 404, and counts no click", async () => {
    const ip = "192.0.2.2";
    for (const spelling of [host, host.toUpperCase(), `${host}.`, `${host}:443`, `${host}:80`]) {
      const res = await visit(`/${attackerAlias}`, { ip, host: spelling });
      expect(res.status, spelling).toBe(302);
      expect(res.headers.location, spelling).toBe("https://bank.example/missing");
    }
    const post = await visit(`/${attackerAlias}`, { ip, host, method: "POST", body: "password=x" });
    expect(post.headers.location).toBe("https://bank.example/missing");
    // The victim's own alias works there; the attacker's works on the public host.
    const own = await visit(`/${victimAlias}`, { ip, host });
    expect([own.status, own.headers.location]).toEqual([302, "https://bank.example/login"]);
    const pub = await visit(`/${attackerAlias}`, { ip });
    expect([pub.status, pub.headers.location]).toEqual([302, "https://attacker.example/phish"]);
    // Nothing changed: the one click on the public host, published after the refused visits, is the
    // only one analytics counts. A bot's visit after it marks the end: analytics records a link's
    // clicks in the order they were made, so once the bot's shows (recorded, not counted), so have they.
    expect((await visit(`/${attackerAlias}`, { ip, userAgent: BOT })).status).toBe(302);
    await waitFor(async () => (await clickCounts(ctx.asAttacker, attackerLink.id)).bots >= 1, {
      timeoutMs: 20_000,
      description: "the bot's click to be recorded",
    });
    expect((await clickCounts(ctx.asAttacker, attackerLink.id)).clicks).toBe(1);
  });

  it("the attacker's rotator on the victim's host is refused", async () => {
    const ip = "192.0.2.3";
    const res = await visit(`/r/${attackerSlug}`, { ip, host });
    expect([res.status, res.headers.location]).toEqual([302, "https://bank.example/missing"]);
    const pub = await visit(`/r/${attackerSlug}`, { ip });
    expect([pub.status, pub.headers.location]).toEqual([302, "https://attacker.example/phish"]);
  });

  it("a host that is no verified branded domain serves no tenant's link", async () => {
    const ip = "192.0.2.4";
    for (const other of [`evil-${unique}.test`, `www.${host}`, `${host}.evil.test`]) {
      expect404Page(await visit(`/${attackerAlias}`, { ip, host: other }), other);
      expect404Page(await visit(`/${victimAlias}`, { ip, host: other }), other);
      expect404Page(await visit("/", { ip, host: other }), other);
    }
  });
});

describe("paths that cannot be codes", () => {
  it("get the 404 page with no lookup: no shared miss written, no miss budget spent", async () => {
    const ip = "198.51.100.10";
    const keysBefore = (await missKeys()).length;
    const paths = [
      "/%00",
      "/%ff",
      "/%c0%af",
      "/..%2f",
      "/..%2fapi%2fv1%2flinks",
      "/%2e%2e/%2e%2e/internal/links/resolve/x",
      "/..\\..\\internal",
      "/-",
      "/_-_",
      "/dot.ted",
      "/%61bc",
      `/${"a".repeat(101)}`,
      `/${"a".repeat(8000)}`,
      "/%E2%80%AEabc",
      "/r/%00",
      "/r/..%2f",
      "/r/ab",
    ];
    for (const path of paths) expect404Page(await visit(path, { ip }), path.slice(0, 40));
    expect((await missKeys()).length).toBe(keysBefore);
    // Had any of them reached management, this client's budget would be spent already.
    for (let i = 0; i < MISS_BUDGET; i++)
      expect404Page(await visit(`/unknown-${unique}-${i}`, { ip }), `miss ${i}`);
    expect((await missKeys()).length).toBe(keysBefore + MISS_BUDGET);
  });
});

describe("unknown-code floods", () => {
  it(`a client gets 429 after ${MISS_BUDGET} misses a minute; cached answers and other clients are unaffected`, async () => {
    const ip = "198.51.100.20";
    const known = await createLink(ctx.asAttacker, { url: "https://example.com/known" });
    for (let i = 0; i < MISS_BUDGET; i++)
      expect404Page(await visit(`/flood-${unique}-${i}`, { ip }), `flood ${i}`);
    const keys = (await missKeys()).length;
    const refused = await visit(`/flood-${unique}-next`, { ip, accept: "application/json" });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(60);
    expect(refused.body).toEqual({
      success: false,
      error: {
        code: "RATE_LIMIT_EXCEEDED",
        message: "Too many requests for links that do not exist. Try again later.",
      },
    });
    const html = await visit(`/flood-${unique}-html`, { ip });
    expect(html.status).toBe(429);
    expect(html.text).toContain("Too many requests");
    // Refused lookups never reached management, so no miss was written for them.
    expect((await missKeys()).length).toBe(keys);

    const hit = await visit(`/${known.short_code}`, { ip });
    expect([hit.status, hit.headers.location]).toEqual([302, "https://example.com/known"]);
    expect404Page(await visit(`/flood-${unique}-0`, { ip }), "a miss already known");
    expect404Page(await visit(`/flood-${unique}-other`, { ip: "198.51.100.21" }), "another client");
  });

  it("an IPv6 client is one client per /64", async () => {
    for (let i = 1; i <= MISS_BUDGET; i++)
      expect404Page(await visit(`/v6-${unique}-${i}`, { ip: `2001:db8:77:1::${i}` }), `v6 ${i}`);
    expect((await visit(`/v6-${unique}-x`, { ip: "2001:db8:77:1:dead:beef::1" })).status).toBe(429);
    expect404Page(await visit(`/v6-${unique}-y`, { ip: "2001:db8:77:2::1" }), "the next /64");
  });
});

describe("operational endpoints", () => {
  it("are not served through the public origin, by the redirect or by any service behind it", async () => {
    const ip = "198.51.100.30";
    for (const path of ["/metrics", "/ready", "/health", "/metrics?x=1", "/READY", "/%6detrics", "/ready/"]) {
      const res = await visit(path, { ip });
      expect404Page(res, path);
      expect(res.text).not.toContain("clicks_published_total");
    }
    for (const path of ["/api/metrics", "/api/ready", "/api/health", "/api/v1/metrics", "/api/v1/ready"]) {
      const res = await visit(path, { ip });
      expect(res.status, path).toBe(401);
      expect(res.text).not.toMatch(/clicks_published_total|"status":"ready"|"checks"/);
    }
    // With a valid key they are still no endpoints of the API.
    for (const path of ["/api/v1/ready", "/api/v1/metrics", "/api/ready"]) {
      const res = await ctx.asAttacker("GET", path);
      expect(res.status, `${path}: ${res.text}`).toBe(404);
      expect(res.text).not.toMatch(/clicks_published_total|"status":"ready"|"checks"/);
    }
  });

  it("are answered on the redirect's operational listener", async () => {
    const metrics = await fetch(`${bed.stack.urls.redirectOps}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain("clicks_published_total");
    const ready = await fetch(`${bed.stack.urls.redirectOps}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ready" });
  });
});

describe("password links", () => {
  const form = (password: string) => new URLSearchParams({ password }).toString();
  const attempt = (code: string, ip: string, password: string) =>
    visit(`/${code}`, { ip, method: "POST", body: form(password) });

  it("guesses spread over many addresses hit the link's budget, for every client, right password included", async () => {
    const link = await createLink(ctx.asVictim, {
      url: "https://bank.example/vault",
      password: "correct horse battery",
    });
    for (let i = 1; i <= PASSWORD_PER_LINK; i++) {
      const res = await attempt(link.short_code, `203.0.113.${i}`, `guess-${i}`);
      expect(res.status, `guess ${i}`).toBe(401);
    }
    for (const ip of ["203.0.113.100", "2001:db8:55::1"]) {
      const res = await attempt(link.short_code, ip, "correct horse battery");
      expect(res.status).toBe(429);
      expect(res.headers.location).toBeUndefined();
      expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
      expect(Number(res.headers["retry-after"])).toBeLessThanOrEqual(PASSWORD_WINDOW_SECONDS);
      expect(res.text).toContain("Too many attempts");
    }
    // Another link keeps its own budget.
    const other = await createLink(ctx.asVictim, {
      url: "https://bank.example/other",
      password: "another long one",
    });
    expect((await attempt(other.short_code, "203.0.113.100", "another long one")).status).toBe(303);

    // Once the window has passed, the right password works again, and counts one click. A sleep: the
    // window's length is what is under test.
    await new Promise((r) => setTimeout(r, PASSWORD_WINDOW_SECONDS * 1000 + 200));
    const ok = await attempt(link.short_code, "203.0.113.100", "correct horse battery");
    expect([ok.status, ok.headers.location]).toEqual([303, "https://bank.example/vault"]);
    await waitFor(async () => (await totalClicks(ctx.asVictim, link.id)) === 1, {
      timeoutMs: 20_000,
      description: "the unlocked click to be counted",
    });
  });

  it("addresses of one IPv6 /64 share one client's budget", async () => {
    const link = await createLink(ctx.asVictim, {
      url: "https://bank.example/v6",
      password: "correct horse battery",
    });
    for (let i = 1; i <= PASSWORD_PER_CLIENT; i++)
      expect((await attempt(link.short_code, `2001:db8:66:1::${i}`, `guess-${i}`)).status).toBe(401);
    const sameNet = await attempt(
      link.short_code,
      "2001:db8:66:1:ffff:ffff:ffff:ffff",
      "correct horse battery",
    );
    expect(sameNet.status).toBe(429);
    const nextNet = await attempt(link.short_code, "2001:db8:66:2::1", "correct horse battery");
    expect([nextNet.status, nextNet.headers.location]).toEqual([303, "https://bank.example/v6"]);
  });

  it("passwords over 128 characters, and empty ones, are refused on create, update and in bulk, and nothing is stored", async () => {
    const before = (await ctx.asVictim("GET", "/api/v1/links?per_page=100")).body.data;
    const tooLong = "p".repeat(129);
    const message = "A link password has at most 128 characters";
    for (const password of [tooLong, "", "p".repeat(900_000)]) {
      const res = await ctx.asVictim("POST", "/api/v1/links", { url: "https://bank.example/p", password });
      // A body over the JSON limit is refused before it is parsed, let alone hashed.
      expect([400, 413], `${password.length}: ${res.text}`).toContain(res.status);
    }
    const created = await ctx.asVictim("POST", "/api/v1/links", {
      url: "https://bank.example/p",
      password: tooLong,
    });
    expect(created.body.error.details.password._errors).toEqual([message]);
    const link = await createLink(ctx.asVictim, { url: "https://bank.example/q" });
    for (const password of [tooLong, ""]) {
      expectV1Error(
        await ctx.asVictim("PATCH", `/api/v1/links/${link.id}`, { password }),
        400,
        "VALIDATION_ERROR",
      );
    }
    const bulk = await ctx.asVictim("POST", "/api/v1/links/bulk", {
      links: [{ url: "https://bank.example/r", password: tooLong }],
    });
    expect(bulk.status, bulk.text).toBe(201);
    expect(bulk.body.data).toEqual({ success: [], failed: [{ index: 0, error: `password: ${message}` }] });
    const after = (await ctx.asVictim("GET", "/api/v1/links?per_page=100")).body.data;
    expect(after.map((l: { id: string }) => l.id).sort()).toEqual(
      [...before.map((l: { id: string }) => l.id), link.id].sort(),
    );
    const stored = after.find((l: { id: string }) => l.id === link.id);
    expect(stored.has_password).toBe(false);
  });
});

describe("a deleted link", () => {
  // The redirect's miss path (management's /internal/links/resolve) reads the link, then writes its
  // record to Redis: a read made just before the delete and written just after it put the deleted link
  // back for good (decision 0052). Here that path runs without pause while the owner deletes.
  it("never redirects again, however the miss path races with the delete, and costs no lookup", async () => {
    const headers = internalHeaders(bed.stack.env.INTERNAL_TOKEN!, "redirect");
    // One address for every visit: were a tombstone asked of management, the miss budget would answer 429.
    const ip = "198.51.100.77";
    for (let round = 0; round < 15; round++) {
      const link = await createLink(ctx.asVictim, { url: `https://bank.example/doomed/${round}` });
      let racing = true;
      let resolved = 0;
      const missPath = async () => {
        while (racing) {
          await raw(bed.stack.urls.management, "GET", `/internal/links/resolve/${link.short_code}`, {
            headers,
          });
          resolved++;
        }
      };
      const loops = Array.from({ length: 6 }, missPath);
      // The delete lands while the miss path is running: once every loop has resolved, and until every
      // loop has resolved again after it.
      await waitFor(() => resolved >= loops.length, { description: "the miss path running" });
      const deleted = await ctx.asVictim("DELETE", `/api/v1/links/${link.id}`);
      expect(deleted.status, deleted.text).toBe(200);
      const afterDelete = resolved;
      await waitFor(() => resolved >= afterDelete + loops.length, { description: "misses after the delete" });
      racing = false;
      await Promise.all(loops);
      const held = JSON.parse((await redis.get(`${bed.stack.prefix}:link:${link.short_code}`)) ?? "null");
      expect(held?.url, `round ${round}: the deleted link's record is back`).toBeUndefined();
      expect404Page(await visit(`/${link.short_code}`, { ip }), `round ${round}`);
      expect(held, `round ${round}`).toMatchObject({ id: link.id, deleted: true });
    }
  });
});

/** RFC 3986's characters only, every `%` an escape, at most one `#`. */
function isUriReference(s: string): boolean {
  return (
    !/[^A-Za-z0-9\-._~!$&'()*+,;=:@/?#[\]%]/.test(s) &&
    !/%(?![0-9A-Fa-f]{2})/.test(s) &&
    s.indexOf("#") === s.lastIndexOf("#")
  );
}

describe("a destination a URI does not allow", () => {
  const NASTY = 'https://bank.example/a b"<>{}|^`/100%?q={"a":1}&x=<y>&p=100%&s=\\#f#g';
  const INJECTION = "https://bank.example/x\r\nSet-Cookie: pwn=1\r\nX-Injected: 1\r\n\r\n<script>";

  function expectSafeLocation(res: RawResponse, what: string): string {
    expect(res.status, what).toBe(302);
    const location = res.headers.location as string;
    expect(isUriReference(location), `${what}: ${location}`).toBe(true);
    expect(new URL(location).host, what).toBe("bank.example");
    expect(res.headers["set-cookie"], what).toBeUndefined();
    expect(res.headers["x-injected"], what).toBeUndefined();
    return location;
  }

  it("goes out as a valid URI when created through the API: encoded, CR/LF dropped, no header injected", async () => {
    const plain = await createLink(ctx.asAttacker, { url: 'https://bank.example/?q={"a":1}&x=<y>&p=100%' });
    const res = await visit(`/${plain.short_code}`, { ip: "198.51.100.91" });
    expect(expectSafeLocation(res, "plain")).toBe(
      "https://bank.example/?q=%7B%22a%22:1%7D&x=%3Cy%3E&p=100%25",
    );
    for (const url of [NASTY, INJECTION]) {
      const link = await createLink(ctx.asAttacker, { url });
      expectSafeLocation(await visit(`/${link.short_code}`, { ip: "198.51.100.91" }), url);
    }
  });

  it("goes out as a valid URI from a record an older management wrote as given, CR/LF and all", async () => {
    for (const url of [NASTY, INJECTION, 'https://bank.example/?q={"a":1}&x=<y>']) {
      const link = await createLink(ctx.asAttacker, { url: "https://bank.example/placeholder" });
      const key = `${bed.stack.prefix}:link:${link.short_code}`;
      const record = JSON.parse(await waitFor(() => redis.get(key)));
      await redis.set(key, JSON.stringify({ ...record, url }));
      // Not visited yet, so in no redirect's cache; dropped anyway, as management would.
      await redis.publish(INVALIDATION_CHANNEL, link.short_code);
      const res = await visit(`/${link.short_code}`, { ip: "198.51.100.92" });
      const location = expectSafeLocation(res, JSON.stringify(url));
      expect(location).not.toMatch(/[\r\n"<>{} ]/);
    }
  });
});
