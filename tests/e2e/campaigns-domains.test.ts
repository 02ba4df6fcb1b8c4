// Campaign rotators with weights, links on branded domains and the channel filter, end to end through
// the public origin: a weighted rotator's split over 1,000 follows is within ±5 points of
// its weights; a link on a verified branded domain redirects only on that domain, while the owner's
// links of the main host keep redirecting on it too (so branded URLs already handed out keep working);
// deleting the domain deletes its links.
import { startTestDnsServer, type TestDnsServer, waitFor } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, RELAXED_LIMITS, raw, uniqueEmail } from "../security/attack.ts";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const unique = `${process.pid}${Date.now().toString(36)}`;

let stack: Stack;
let dns: TestDnsServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  dns = await startTestDnsServer();
  stack = await startStack({ inProcess: true, extraEnv: { ...RELAXED_LIMITS, DNS_SERVERS: dns.address } });
  call = api(stack, (await stack.createAccount(uniqueEmail("campaigns"))).api_key);
});
afterAll(async () => {
  await stack?.stop();
  await dns?.stop();
});

async function newLink(url: string, extra: Record<string, unknown> = {}) {
  const res = await call("POST", "/api/v1/links", { url, title: "t", ...extra });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; short_code: string; short_url: string; domain: string | null };
}

const onHost = (host: string, path: string) =>
  raw(stack.origin, "GET", path, { headers: { host, "user-agent": BROWSER } });

describe("weighted rotators", () => {
  it("splits 1,000 follows 80/20 within ±5 points, lists weights, and drops a removed link", async () => {
    const a = await newLink("https://a.example/landing");
    const b = await newLink("https://b.example/landing");
    const slug = `ab-${unique}`;
    const made = await call("POST", "/api/campaign/add", { name: "A/B", slug });
    expect(made.status, made.text).toBe(200);
    const id = made.body.id as number;
    for (const l of [a, b])
      expect((await call("POST", `/api/campaign/${id}/assign/${l.id}`)).status).toBe(200);
    const weighted = await call("PUT", `/api/campaign/${id}/weight/${a.id}`, { weight: 4 });
    expect(weighted.status, weighted.text).toBe(200);

    const links = await call("GET", `/api/campaign/${id}/links`);
    expect(links.status, links.text).toBe(200);
    expect(
      links.body.data.links.map((l: { link_id: string; weight: number }) => [l.link_id, l.weight]),
    ).toEqual([
      [a.id, 4],
      [b.id, 1],
    ]);

    const counts = new Map<string, number>();
    const FOLLOWS = 1000;
    // The days the follows span (a run across midnight UTC spans two).
    const firstDay = new Date().toISOString().slice(0, 10);
    for (let i = 0; i < FOLLOWS; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, () =>
          fetch(`${stack.origin}/r/${slug}`, { redirect: "manual", headers: { "user-agent": BROWSER } }),
        ),
      );
      for (const res of batch) {
        expect(res.status).toBe(302);
        const location = res.headers.get("location") ?? "";
        counts.set(location, (counts.get(location) ?? 0) + 1);
      }
    }
    const shareA = (counts.get("https://a.example/landing") ?? 0) / FOLLOWS;
    const shareB = (counts.get("https://b.example/landing") ?? 0) / FOLLOWS;
    expect(shareA + shareB).toBe(1);
    expect(Math.abs(shareA - 0.8)).toBeLessThanOrEqual(0.05);
    expect(Math.abs(shareB - 0.2)).toBeLessThanOrEqual(0.05);

    // Campaign analytics (served by analytics from clicks and management's membership events): the
    // rotator's clicks are counted on each destination link, over the same periods as link analytics.
    const analytics = async (range = "") => {
      const res = await call("GET", `/api/v1/analytics/campaigns/${id}${range}`);
      return res.status === 200 ? res.body.data : null;
    };
    const stats = await waitFor(
      async () => {
        const data = await analytics();
        return data?.total_clicks === FOLLOWS ? data : null;
      },
      { timeoutMs: 30_000, description: "campaign analytics to count every follow" },
    );
    expect(stats.links).toEqual([
      { link_id: a.id, short_code: a.short_code, total_clicks: counts.get("https://a.example/landing") },
      { link_id: b.id, short_code: b.short_code, total_clicks: counts.get("https://b.example/landing") },
    ]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await analytics(`?start=${firstDay}&end=${today}`))?.total_clicks).toBe(FOLLOWS);
    expect((await analytics("?start=2020-01-01&end=2020-01-31"))?.total_clicks).toBe(0);

    const removed = await call("DELETE", `/api/campaign/${id}/remove/${a.id}`);
    expect(removed.status, removed.text).toBe(200);
    const after = await Promise.all(
      Array.from({ length: 5 }, () => fetch(`${stack.origin}/r/${slug}`, { redirect: "manual" })),
    );
    expect(after.map((r) => r.headers.get("location"))).toEqual(Array(5).fill("https://b.example/landing"));
    expect((await call("GET", `/api/campaign/${id}/links`)).body.data.links).toHaveLength(1);
  });
});

describe("links on branded domains", () => {
  it("a verified domain's link redirects only there; the owner's main-host links redirect on it too; deleting the domain deletes its link", async () => {
    const host = `go.brand-${unique}.test`;
    const added = await call("POST", "/api/domain/add", { domain: `https://${host}` });
    expect(added.status, added.text).toBe(200);
    // Before verification the domain cannot carry links.
    const early = await call("POST", "/api/v1/links", { url: "https://brand.example/x", domain: host });
    expect(early.status, early.text).toBe(403);
    await dns.setTxt(added.body.verification.name, [added.body.verification.value]);
    expect((await call("POST", `/api/domain/${added.body.id}/verify`)).body.status).toBe("verified");

    const branded = await newLink("https://brand.example/offer", { domain: `https://${host}` });
    expect(branded.domain).toBe(host);
    expect(branded.short_url).toBe(`https://${host}/${branded.short_code}`);
    const plain = await newLink("https://plain.example/page");
    expect(plain.domain).toBeNull();

    const publicHost = new URL(stack.origin).host;
    const onBrand = await onHost(host, `/${branded.short_code}`);
    expect(onBrand.status).toBe(302);
    expect(onBrand.headers.location).toBe("https://brand.example/offer");
    expect((await onHost(publicHost, `/${branded.short_code}`)).status).toBe(404);
    expect((await onHost(host, `/${plain.short_code}`)).headers.location).toBe("https://plain.example/page");
    expect((await onHost(publicHost, `/${plain.short_code}`)).status).toBe(302);

    const filtered = await call("GET", `/api/v1/links?domain=${host}`);
    expect(filtered.status, filtered.text).toBe(200);
    expect(filtered.body.data.map((l: { id: string }) => l.id)).toEqual([branded.id]);
    expect(filtered.body.meta.total).toBe(1);
    const none = await call("GET", "/api/v1/links?domain=unknown.example");
    expect(none.body.data).toEqual([]);

    // Deleting the domain deletes its link (docs/dashboard-manage.md "Deleting a domain"): the older
    // API says how many, the link stops redirecting everywhere at once, the main-host link stays.
    const before = (await call("GET", "/api/v1/account")).body.data.total_links as number;
    const removed = await call("DELETE", `/api/domain/${added.body.id}/delete`);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body).toEqual({
      error: 0,
      message: "Domain and its link have been deleted successfully.",
      links_deleted: 1,
    });
    await waitFor(async () => (await onHost(host, `/${branded.short_code}`)).status === 404, {
      timeoutMs: 10_000,
      description: "the deleted domain's link to stop redirecting",
    });
    expect((await onHost(publicHost, `/${branded.short_code}`)).status).toBe(404);
    expect((await call("GET", `/api/v1/links/${branded.id}`)).status).toBe(404);
    expect((await onHost(publicHost, `/${plain.short_code}`)).headers.location).toBe(
      "https://plain.example/page",
    );
    expect((await call("GET", "/api/v1/account")).body.data.total_links).toBe(before - 1);
  });
});

describe("channels", () => {
  it("the links list filters by channel; a removed link leaves the filter", async () => {
    const l1 = await newLink("https://c1.example/");
    await newLink("https://c2.example/");
    const ch = await call("POST", "/api/channel/add", { name: "Social" });
    expect(ch.status, ch.text).toBe(200);
    expect((await call("POST", `/api/channel/${ch.body.id}/assign/${l1.id}`)).status).toBe(200);
    const listed = await call("GET", `/api/v1/links?channel=${ch.body.id}`);
    expect(listed.body.data.map((l: { id: string }) => l.id)).toEqual([l1.id]);
    expect((await call("DELETE", `/api/channel/${ch.body.id}/remove/${l1.id}`)).status).toBe(200);
    expect((await call("GET", `/api/v1/links?channel=${ch.body.id}`)).body.data).toEqual([]);
    expect((await call("GET", "/api/v1/links?channel=abc")).status).toBe(400);
  });
});
