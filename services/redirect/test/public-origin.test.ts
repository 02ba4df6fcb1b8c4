// Every visitor-facing behaviour of the redirect, through the public origin of a whole stack
// (gateway → redirect, management behind the miss path, Redis Streams bus). Clicks are read from the
// bus by a consumer group of the test's own, as analytics would read them.
import { request } from "node:http";
import {
  type DomainRecord,
  domainKey,
  INVALIDATION_CHANNEL,
  invalidationMessage,
  type RedirectRecord,
  type RotatorRecord,
  redirectKey,
  redirectMissKey,
  rotatorKey,
} from "@kurz/contracts";
import { printProcessOutputOnFailure, waitFor } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClickObserver, observeClicks } from "./support/click-observer.ts";

printProcessOutputOnFailure();

let stack: Stack;
let redis: Redis;
let observer: ClickObserver;
let auth: Record<string, string>;
let accountId: string;

beforeAll(async () => {
  stack = await startStack({ inProcess: true, extraEnv: { PASSWORD_MAX_ATTEMPTS: "3" } });
  redis = new Redis(stack.env.REDIS_URL!, { keyPrefix: stack.env.REDIS_KEY_PREFIX });
  observer = await observeClicks({ prefix: stack.prefix, redisUrl: stack.env.REDIS_URL });
  const account = await stack.createAccount(`redirect-${Date.now()}@example.com`, 100);
  accountId = account.account_id;
  auth = { authorization: `Bearer ${account.api_key}`, "content-type": "application/json" };
});

afterAll(async () => {
  await observer?.stop();
  redis?.disconnect();
  await stack?.stop();
});

interface Link {
  id: string;
  short_code: string;
}

async function createLink(body: Record<string, unknown>): Promise<Link> {
  const res = await fetch(`${stack.origin}/api/v1/links`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: Link }).data;
}

/** What management's write-through does on an update: the record, then the invalidation. */
async function writeRecord(code: string, record: RedirectRecord): Promise<void> {
  await redis.set(redirectKey(code), JSON.stringify(record));
  await redis.publish(INVALIDATION_CHANNEL, invalidationMessage("link", code));
}

const visit = (path: string, init: RequestInit = {}) =>
  fetch(`${stack.origin}${path}`, { redirect: "manual", ...init });

const clicksOf = (linkId: string) => observer.events.filter((e) => e.link_id === linkId);
/** The referrer of a test's last click: once that click is on the bus, every earlier one is too. */
const MARKER = "https://marker.example/";

/** A request with a Host header of our choosing (fetch will not send one). */
function visitHost(host: string, path: string): Promise<{ status: number; location?: string }> {
  const origin = new URL(stack.origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: origin.hostname, port: origin.port, path, headers: { host } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode!, location: res.headers.location });
    });
    req.on("error", reject);
    req.end();
  });
}

const form = (password: string, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
  body: new URLSearchParams({ password }).toString(),
});

describe("redirects through the public origin", () => {
  it("redirects with 302, the exact Location and no caching, and counts one click per GET", async () => {
    const link = await createLink({ url: "https://example.com/landing?utm_source=kurz&x=%2F" });
    const res = await visit(`/${link.short_code}`, {
      headers: { "user-agent": "Mozilla/5.0 test", referer: "https://news.example/item" },
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://example.com/landing?utm_source=kurz&x=%2F");
    expect(res.headers.get("cache-control")).toBe("private, max-age=0");

    const [click] = await waitFor(() => (clicksOf(link.id).length === 1 ? clicksOf(link.id) : null), {
      timeoutMs: 10_000,
    });
    expect(click).toMatchObject({
      v: 1,
      link_id: link.id,
      account_id: accountId,
      short_code: link.short_code,
      ip: "127.0.0.1",
      user_agent: "Mozilla/5.0 test",
      referrer: "https://news.example/item",
      host: new URL(stack.origin).host,
    });
    expect(click!.click_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(Math.abs(Date.parse(click!.ts) - Date.now())).toBeLessThan(60_000);
  });

  it("answers HEAD like GET without counting a click", async () => {
    const link = await createLink({ url: "https://example.com/head" });
    const head = await visit(`/${link.short_code}`, { method: "HEAD" });
    expect(head.status).toBe(302);
    expect(head.headers.get("location")).toBe("https://example.com/head");
    // One real click after it, as a marker: clicks reach the bus in the order they were made.
    await visit(`/${link.short_code}`, { headers: { referer: MARKER } });
    await waitFor(() => clicksOf(link.id).some((e) => e.referrer === MARKER), { timeoutMs: 10_000 });
    expect(clicksOf(link.id)).toHaveLength(1);
  });

  it("serves a 404 page for unknown and inactive codes, and JSON when asked", async () => {
    const unknown = await visit("/no-such-code-here");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toContain("text/html");
    expect(await unknown.text()).toContain("Link not found");

    const link = await createLink({ url: "https://example.com/soon-inactive" });
    expect((await visit(`/${link.short_code}`)).status).toBe(302);
    await writeRecord(link.short_code, {
      id: link.id,
      account_id: accountId,
      url: "https://example.com/soon-inactive",
      active: false,
      expires_at: null,
      password_hash: null,
    });
    // An edit reaches the redirect within a second (pub/sub invalidation, not the cache TTL).
    const res = await waitFor(
      async () => {
        const r = await visit(`/${link.short_code}`, { headers: { accept: "application/json" } });
        return r.status === 404 ? r : null;
      },
      { timeoutMs: 1_000, intervalMs: 20, description: "the deactivation to take effect" },
    );
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toEqual({
      success: false,
      error: { code: "NOT_FOUND", message: "This short link does not exist or is no longer active." },
    });
  });

  it("follows an edited destination within a second", async () => {
    const link = await createLink({ url: "https://example.com/before" });
    expect((await visit(`/${link.short_code}`)).headers.get("location")).toBe("https://example.com/before");
    await writeRecord(link.short_code, {
      id: link.id,
      account_id: accountId,
      url: "https://example.com/after",
      active: true,
      expires_at: null,
      password_hash: null,
    });
    await waitFor(
      async () =>
        (await visit(`/${link.short_code}`)).headers.get("location") === "https://example.com/after",
      { timeoutMs: 1_000, intervalMs: 20, description: "the edit to take effect" },
    );
  });

  it("serves 410 for an expired link", async () => {
    const link = await createLink({
      url: "https://example.com/expiring",
      expires_at: new Date(Date.now() + 1_500).toISOString(),
    });
    expect((await visit(`/${link.short_code}`)).status).toBe(302);
    // Expiry is a time, and the thing under test: wait past it.
    await new Promise((r) => setTimeout(r, 1_600));
    const html = await visit(`/${link.short_code}`);
    expect(html.status).toBe(410);
    expect(await html.text()).toContain("Link expired");
    const json = await visit(`/${link.short_code}`, { headers: { accept: "application/json" } });
    expect(await json.json()).toMatchObject({ success: false, error: { code: "LINK_EXPIRED" } });
  });

  it("redirects a code created right after a visitor's miss at once (the shared miss is dropped)", async () => {
    const alias = `late-${Date.now().toString(36)}`;
    expect((await visit(`/${alias}`)).status).toBe(404);
    await waitFor(async () => (await redis.get(redirectMissKey(alias))) !== null, {
      description: "the miss to be shared through Redis",
    });
    await createLink({ url: "https://example.com/late", custom_alias: alias });
    expect(await redis.get(redirectMissKey(alias))).toBeNull();
    // Within the pub/sub delivery of the invalidation: no TTL to wait out.
    await waitFor(async () => (await visit(`/${alias}`)).status === 302, {
      timeoutMs: 1_000,
      intervalMs: 20,
      description: "the new code to redirect",
    });
  });

  it("answers /metrics, /ready and /health only on the operational listener", async () => {
    for (const path of ["/metrics", "/ready", "/health"]) {
      expect((await visit(path)).status).toBe(404);
      expect((await fetch(`${stack.urls.redirectOps}${path}`)).status).toBe(200);
    }
  });

  it("heals a Redis miss through management instead of answering 404", async () => {
    const link = await createLink({ url: "https://example.com/healed" });
    await redis.del(redirectKey(link.short_code));
    const res = await visit(`/${link.short_code}`);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://example.com/healed");
    await waitFor(async () => (await redis.get(redirectKey(link.short_code))) !== null, {
      description: "management to rewrite the record",
    });
  });
});

describe("password links", () => {
  it("serves a form, refuses a wrong password with 401, redirects and counts on the right one", async () => {
    const link = await createLink({ url: "https://example.com/secret", password: "open sesame" });
    const page = await visit(`/${link.short_code}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<form method="post">');
    expect(html).toContain('name="password"');
    expect(html).not.toContain("example.com/secret");

    const json = await visit(`/${link.short_code}`, { headers: { accept: "application/json" } });
    expect(json.status).toBe(401);
    expect(await json.json()).toMatchObject({ error: { code: "PASSWORD_REQUIRED" } });

    const head = await visit(`/${link.short_code}`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("location")).toBeNull();

    const wrong = await visit(`/${link.short_code}`, form("<script>alert(1)</script>"));
    expect(wrong.status).toBe(401);
    const wrongHtml = await wrong.text();
    expect(wrongHtml).toContain("not correct");
    expect(wrongHtml).not.toContain("<script>alert");

    const right = await visit(`/${link.short_code}`, form("open sesame", { referer: MARKER }));
    expect(right.status).toBe(303);
    expect(right.headers.get("location")).toBe("https://example.com/secret");
    expect(right.headers.get("cache-control")).toBe("private, max-age=0");
    // The right password's click came after the wrong ones': once it is on the bus, theirs would be.
    await waitFor(() => clicksOf(link.id).some((e) => e.referrer === MARKER), { timeoutMs: 10_000 });
    expect(clicksOf(link.id)).toHaveLength(1);
  });

  it("limits attempts per link and client: past the limit even the right password gets 429", async () => {
    const link = await createLink({ url: "https://example.com/guarded", password: "correct horse" });
    for (let i = 0; i < 3; i++)
      expect((await visit(`/${link.short_code}`, form(`guess-${i}`))).status).toBe(401);
    const blocked = await visit(`/${link.short_code}`, form("correct horse"));
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await blocked.text()).toContain("Too many attempts");
    // Another link is not affected.
    const other = await createLink({ url: "https://example.com/other", password: "other-pw" });
    expect((await visit(`/${other.short_code}`, form("other-pw"))).status).toBe(303);
  });
});

describe("branded domains and rotators", () => {
  it("sends a branded domain's root and unknown codes where the domain says", async () => {
    const domain: DomainRecord = {
      id: 1,
      account_id: accountId,
      redirect_root: "https://brand.example/home",
      redirect_404: "https://brand.example/missing",
    };
    await redis.set(domainKey("go.brand.test"), JSON.stringify(domain));
    await redis.set(
      domainKey("bare.brand.test"),
      JSON.stringify({ ...domain, id: 2, redirect_root: null, redirect_404: null }),
    );
    const link = await createLink({ url: "https://example.com/branded" });

    expect(await visitHost("go.brand.test", "/")).toEqual({
      status: 302,
      location: "https://brand.example/home",
    });
    expect(await visitHost("GO.Brand.test", "/nope-nope")).toEqual({
      status: 302,
      location: "https://brand.example/missing",
    });
    // A link of the public host is also served on its owner's branded domains (links created on a
    // domain, served only there, are in tests/e2e/campaigns-domains.test.ts).
    expect(await visitHost("go.brand.test", `/${link.short_code}`)).toEqual({
      status: 302,
      location: "https://example.com/branded",
    });
    expect((await visitHost("bare.brand.test", "/")).status).toBe(404);
    expect((await visitHost("bare.brand.test", "/nope-nope")).status).toBe(404);
    expect((await visitHost("unregistered.test", "/")).status).toBe(404);

    await redis.set(
      domainKey("go.brand.test"),
      JSON.stringify({ ...domain, redirect_root: "https://brand.example/v2" }),
    );
    await redis.publish(INVALIDATION_CHANNEL, invalidationMessage("domain", "go.brand.test"));
    await waitFor(
      async () => (await visitHost("go.brand.test", "/")).location === "https://brand.example/v2",
      {
        timeoutMs: 1_000,
        intervalMs: 20,
      },
    );
  });

  it("rotates a campaign's visitors over its followable links and counts each click on the chosen link", async () => {
    const a = await createLink({ url: "https://example.com/rot-a" });
    const b = await createLink({ url: "https://example.com/rot-b" });
    const locked = await createLink({ url: "https://example.com/rot-locked", password: "locked-pw" });
    const c = await createLink({ url: "https://example.com/rot-c" });
    const rotator: RotatorRecord = {
      campaign_id: 7,
      account_id: accountId,
      links: [a, b, locked, c].map((l) => ({ id: l.id, short_code: l.short_code })),
    };
    await redis.set(rotatorKey("spring"), JSON.stringify(rotator));

    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await visit("/r/spring");
      expect(res.status).toBe(302);
      seen.push(res.headers.get("location")!);
    }
    // Turns go a, b, (locked: skipped, so c), c, a, b.
    expect(seen.map((u) => u.slice(-5))).toEqual(["rot-a", "rot-b", "rot-c", "rot-c", "rot-a", "rot-b"]);
    expect(seen).not.toContain("https://example.com/rot-locked");
    await waitFor(() => clicksOf(a.id).length === 2 && clicksOf(c.id).length === 2, { timeoutMs: 10_000 });
    expect(clicksOf(c.id).every((e) => e.short_code === c.short_code)).toBe(true);
    expect((await visit("/r/no-such-rotator")).status).toBe(404);
  });
});
