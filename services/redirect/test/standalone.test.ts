// The redirect service on its own, against the shared Redis (own key and bus prefix) and a stand-in
// for management's internal endpoints: configuration, edge cases of the request path, metrics.
import { request } from "node:http";
import { connect } from "node:net";
import { INTERNAL_HEADERS, redirectKey } from "@kurz/contracts";
import { describe, expect, it } from "vitest";
import { edgeClick } from "../src/edge-click.ts";
import { clicksWith } from "./support/click-observer.ts";
import { redirectRecord as record } from "./support/records.ts";
import { useRedirectFixture } from "./support/redirect-fixture.ts";
import { metrics } from "./support/redirect-process.ts";

const t = useRedirectFixture({
  name: "redirect-standalone",
  observe: true,
  env: { REDIRECT_STATUS: "308", TRUST_PROXY: "false" },
});

const get = (path: string, init: RequestInit = {}) =>
  fetch(`${t.redirect.url}${path}`, { redirect: "manual", ...init });

describe("redirect service on its own", () => {
  it("answers with the configured status (REDIRECT_STATUS=308)", async () => {
    await t.redis.set(redirectKey("perm"), JSON.stringify(record("https://example.com/p")));
    const res = await get("/perm");
    expect(res.status).toBe(308);
    expect(res.headers.get("location")).toBe("https://example.com/p");
    expect(res.headers.get("cache-control")).toBe("private, max-age=0");
  });

  it("percent-encodes a destination a header cannot carry raw", async () => {
    await t.redis.set(redirectKey("unicode"), JSON.stringify(record("https://example.com/ü?q=ä")));
    const res = await get("/unicode");
    expect(res.status).toBe(308);
    expect(res.headers.get("location")).toBe("https://example.com/%C3%BC?q=%C3%A4");
  });

  // Records written before management wrote urls in their Location form hold them as they were given.
  it("sends any stored destination as a valid URI: what a URI does not allow percent-encoded, the rest as stored", async () => {
    const cases: [stored: string, location: string][] = [
      ['https://example.com/?q={"a":1}&x=<y>', "https://example.com/?q=%7B%22a%22:1%7D&x=%3Cy%3E"],
      ["https://example.com/100%", "https://example.com/100%25"],
      ["https://example.com/a b|c^d`e#f#g", "https://example.com/a%20b%7Cc%5Ed%60e#f%23g"],
      ["https://münchen.de/straße?x=%41", "https://xn--mnchen-3ya.de/stra%C3%9Fe?x=%41"],
      ["https://Example.com/a/../%7e?q=%E2%82%AC", "https://Example.com/a/../%7e?q=%E2%82%AC"],
    ];
    for (const [i, [stored, location]] of cases.entries()) {
      await t.redis.set(redirectKey(`odd-${i}`), JSON.stringify(record(stored)));
      t.mgmt.links.set(`odd-m-${i}`, record(stored));
      for (const code of [`odd-${i}`, `odd-m-${i}`]) {
        const res = await get(`/${code}`);
        expect(res.status, code).toBe(308);
        expect(res.headers.get("location"), code).toBe(location);
      }
    }
  });

  it("falls back to management on a Redis miss and caches management's 404", async () => {
    t.mgmt.links.set("from-mgmt", record("https://example.com/m"));
    expect((await get("/from-mgmt")).headers.get("location")).toBe("https://example.com/m");
    const linkCalls = () => t.mgmt.calls.filter((c) => c.startsWith("/internal/links/")).length;
    const before = linkCalls();
    expect((await get("/never-existed")).status).toBe(404);
    expect((await get("/never-existed")).status).toBe(404);
    expect(linkCalls() - before).toBe(1);
  });

  it("answers 503, never 500, when neither Redis nor management knows and management is down", async () => {
    t.mgmt.down = true;
    try {
      const res = await get("/not-cached-anywhere", { headers: { accept: "application/json" } });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(await res.json()).toMatchObject({ success: false, error: { code: "SERVICE_UNAVAILABLE" } });
    } finally {
      t.mgmt.down = false;
    }
    // Not negatively cached: once management is back, the link resolves.
    t.mgmt.links.set("not-cached-anywhere", record("https://example.com/back"));
    expect((await get("/not-cached-anywhere")).status).toBe(308);
  });

  it("treats malformed paths and records as not found", async () => {
    expect((await get("/%E0%A4%A")).status).toBe(404);
    expect((await get(`/${"x".repeat(65)}`)).status).toBe(404);
    expect((await get("/a/b")).status).toBe(404);
    await t.redis.set(redirectKey("garbage"), "{not json");
    expect((await get("/garbage")).status).toBe(404);
  });

  it("serves no operational endpoint on the public port, and all of them on the operational one", async () => {
    for (const path of ["/metrics", "/ready", "/health", "/health?x=1"]) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain("Link not found");
    }
    expect((await fetch(`${t.redirect.opsUrl}/health`)).status).toBe(200);
    const ready = await fetch(`${t.redirect.opsUrl}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ready" });
    expect((await fetch(`${t.redirect.opsUrl}/perm`, { redirect: "manual" })).status).toBe(404);
  });

  it("refuses other methods with 405 and an Allow header", async () => {
    const res = await get("/perm", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD, POST");
    const post = await get("/perm", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "password=x",
    });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });

  it("uses the socket address, not X-Forwarded-For, when TRUST_PROXY is false", async () => {
    // Covered through the event: the click must carry 127.0.0.1, not the forged header.
    await get("/perm", { headers: { "x-forwarded-for": "203.0.113.9", "user-agent": "ua-test" } });
    const [click] = await clicksWith(t.clicks, "ua-test", 1);
    expect(click!.ip).toBe("127.0.0.1");
    expect(click!.short_code).toBe("perm");
  });

  it("ignores the edge's request header when TRUST_PROXY is false: a client cannot choose click ids", async () => {
    // Well-formed and within the clock skew a trusted edge is allowed: refused for want of trust alone.
    const at = Date.now() - 60_000;
    const forged = `${"ab".repeat(16)} ${Math.floor(at / 1000)}.${String(at % 1000).padStart(3, "0")}`;
    for (let i = 0; i < 2; i++)
      await get("/perm", {
        headers: { [INTERNAL_HEADERS.edgeRequest]: forged, "user-agent": "ua-forged-edge" },
      });
    const seen = await clicksWith(t.clicks, "ua-forged-edge", 2);
    expect(seen[0]!.click_id).not.toBe(seen[1]!.click_id);
    for (const e of seen) {
      expect(e.click_id).not.toBe(edgeClick(forged, at)!.clickId);
      expect(Date.parse(e.ts)).toBeGreaterThan(at + 30_000);
    }
  });

  it("refuses an oversized or non-form password POST", async () => {
    const hash =
      "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$2aNwFe0XkkQ2T5ZgBZPkEPbf/7c6rDXd2eA0Q5UJkUo";
    await t.redis.set(
      redirectKey("locked"),
      JSON.stringify(record("https://example.com/l", { password_hash: hash })),
    );
    const big = await get("/locked", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `password=${"a".repeat(10_000)}`,
    });
    expect(big.status).toBe(413);
    const json = await get("/locked", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: "x" }),
    });
    expect(json.status).toBe(415);
  });

  it("keeps serving after a client aborts a password POST mid-body", async () => {
    await new Promise<void>((resolve) => {
      const req = request(`${t.redirect.url}/locked`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "content-length": "100" },
      });
      req.on("error", () => resolve());
      // Gone once part of the body is on its way: the server has headers and a partial body, then EOF.
      req.write("password=abc", () => {
        req.destroy();
        resolve();
      });
    });
    expect((await get("/perm")).status).toBe(308);
  });

  // Redirects are written at the end of the event-loop turn (turn-writes.ts): responses to requests
  // handled in one turn must still go to the right client, in order, and survive clients that left.
  it("answers pipelined requests on one connection in order", async () => {
    for (const n of [1, 2, 3])
      await t.redis.set(redirectKey(`pipe${n}`), JSON.stringify(record(`https://example.com/pipe/${n}`)));
    const url = new URL(t.redirect.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname);
      let data = "";
      socket.on("data", (chunk) => {
        data += chunk.toString("latin1");
        // The last answer is a redirect (no body): its header block ends the exchange.
        if ((data.match(/HTTP\/1\.1 \d{3} /g) ?? []).length === 4 && data.endsWith("\r\n\r\n")) {
          socket.destroy();
          resolve(data);
        }
      });
      socket.on("error", reject);
      const requests = ["/pipe1", "/missing-pipe", "/pipe2", "/pipe3"]
        .map((path) => `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`)
        .join("");
      socket.write(requests);
      setTimeout(() => reject(new Error(`incomplete answers: ${JSON.stringify(data)}`)), 5_000);
    });
    const statuses = [...raw.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);
    const locations = [...raw.matchAll(/^location: (.*)\r$/gim)].map((m) => m[1]);
    expect(statuses).toEqual(["308", "404", "308", "308"]);
    expect(locations).toEqual([
      "https://example.com/pipe/1",
      "https://example.com/pipe/2",
      "https://example.com/pipe/3",
    ]);
  });

  it("gives each of many concurrent requests its own destination", async () => {
    for (let n = 0; n < 20; n++)
      await t.redis.set(redirectKey(`burst${n}`), JSON.stringify(record(`https://example.com/burst/${n}`)));
    const codes = Array.from({ length: 300 }, (_, i) => i % 20);
    const answers = await Promise.all(
      codes.map(async (n) => {
        const res = await get(`/burst${n}`);
        return [n, res.status, res.headers.get("location")] as const;
      }),
    );
    for (const [n, status, location] of answers) {
      expect(status).toBe(308);
      expect(location).toBe(`https://example.com/burst/${n}`);
    }
  });

  it("keeps serving when clients leave before their redirect is written", async () => {
    const url = new URL(t.redirect.url);
    await Promise.all(
      Array.from(
        { length: 50 },
        () =>
          new Promise<void>((resolve) => {
            const socket = connect(Number(url.port), url.hostname, () => {
              socket.write(`GET /perm HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
              socket.destroy();
              resolve();
            });
            socket.on("error", () => resolve());
          }),
      ),
    );
    expect((await get("/perm")).status).toBe(308);
    expect(t.redirect.proc.child.exitCode).toBeNull();
  });

  it("exposes click and process metrics in Prometheus text format", async () => {
    const res = await fetch(`${t.redirect.opsUrl}/metrics`);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text).toContain("# TYPE clicks_published_total counter");
    const m = await metrics(t.redirect);
    expect(Object.keys(m).sort()).toEqual([
      "click_journal_bytes",
      "click_spool_bytes",
      "click_spool_max_bytes",
      "clicks_buffered",
      "clicks_dropped_total",
      "clicks_published_total",
      "clicks_spooled",
      "nodejs_external_memory_bytes",
      "nodejs_heap_size_total_bytes",
      "nodejs_heap_size_used_bytes",
      "process_resident_memory_bytes",
    ]);
    expect(m.clicks_dropped_total).toBe(0);
    expect(m.process_resident_memory_bytes).toBeGreaterThan(m.nodejs_heap_size_used_bytes!);
  });
});
