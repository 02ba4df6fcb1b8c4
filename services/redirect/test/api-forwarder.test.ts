// The single-machine API forwarder (decision 0038): API paths are piped to the gateway, and an early
// answer from upstream never leaves the visitor's keep-alive connection stuck.
import { Agent, createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiForwarder, isApiPath, isWebAppPath } from "../src/api-forwarder.ts";

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );
}

/** One request over `agent`, returning status, headers and body. */
function send(port: number, agent: Agent, method: string, path: string, body?: Buffer) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request({ port, host: "127.0.0.1", method, path, agent }, (res) => {
        let data = "";
        res.on("data", (c: Buffer) => (data += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
      });
      req.on("error", reject);
      if (body) req.setHeader("content-length", body.length);
      req.end(body);
    },
  );
}

describe("api forwarder", () => {
  let upstream: Server;
  let front: Server;
  let frontPort: number;
  const seen: { path?: string; xff?: string }[] = [];

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      seen.push({ path: req.url, xff: req.headers["x-forwarded-for"] as string | undefined });
      if (Number(req.headers["content-length"] ?? 0) > 1000) {
        // Answers at once without reading the body, as the gateway does for an oversized one.
        res.writeHead(413, { "content-type": "application/json" });
        res.end('{"success":false}');
        return;
      }
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json", connection: "keep-alive" });
        res.end(JSON.stringify({ path: req.url }));
      });
    });
    const upstreamPort = await listen(upstream);
    const forward = createApiForwarder(
      `http://127.0.0.1:${upstreamPort}`,
      (req) => req.socket.remoteAddress ?? null,
    );
    front = createServer((req, res) => {
      if (isApiPath(req.url ?? "/")) forward(req, res);
      else {
        res.writeHead(302, { location: "https://example.com/" });
        res.end();
      }
    });
    frontPort = await listen(front);
  });
  afterAll(() => {
    front?.close();
    upstream?.close();
  });

  it("routes only API paths to the upstream", () => {
    for (const p of ["/api", "/api/v1/links", "/api/account?x=1", "/docs", "/docs/assets/x.js", "/c/12"]) {
      expect(isApiPath(p), p).toBe(true);
    }
    for (const p of ["/", "/abc123", "/apix", "/api-promo", "/r/spring", "/docsy"])
      expect(isApiPath(p), p).toBe(false);
  });

  it("knows the dashboard's paths (forwarded on the public host only), none of which a short code can take", () => {
    for (const p of [
      "/",
      "/?next=x",
      "/login",
      "/signup",
      "/dashboard",
      "/dashboard/links/1",
      "/stats/abc",
      "/assets/index-x.js",
    ]) {
      expect(isWebAppPath(p), p).toBe(true);
    }
    for (const p of [
      "/abc123",
      "/loginx",
      "/dashboards",
      "/stats",
      "/statsx/1",
      "/assetsx",
      "/r/spring",
      "/api/v1/links",
    ]) {
      expect(isWebAppPath(p), p).toBe(false);
    }
  });

  it("pipes method, path and body through and appends the client address to X-Forwarded-For", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const res = await send(
      frontPort,
      agent,
      "POST",
      "/api/v1/links?x=1",
      Buffer.from('{"url":"https://a.test/"}'),
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ path: "/api/v1/links?x=1" });
    expect(seen.at(-1)?.xff).toBe("127.0.0.1");
    agent.destroy();
  });

  it("refuses ambiguous paths with 400 in the path's envelope and never forwards them", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const before = seen.length;
    const cases: [string, "v1" | "legacy" | "plain"][] = [
      ["/api/v1/links/%2e%2e/%2e%2e/%2e%2e/internal/links/resolve/abc", "v1"],
      ["/api/v1/links/..\\..\\internal/links/resolve/abc", "v1"],
      ["/api/v1/links/../../internal/keys/x", "v1"],
      ["/api/v1/links/%2F..%2Finternal", "v1"],
      ["/api/v1//internal/links/resolve/abc", "v1"],
      ["/api/account/%00", "legacy"],
      ["/api/./account", "legacy"],
      ["/c/%c0%ae%c0%ae/x", "plain"],
      ["/docs/%EF%BC%8E%EF%BC%8E/x", "plain"],
    ];
    for (const [path, envelope] of cases) {
      const res = await send(frontPort, agent, "GET", path);
      expect(res.status, path).toBe(400);
      if (envelope === "v1") {
        expect(JSON.parse(res.body), path).toMatchObject({ success: false, error: { code: "BAD_REQUEST" } });
      } else if (envelope === "legacy") {
        expect(JSON.parse(res.body), path).toEqual({ error: 1, message: expect.any(String) });
      } else {
        expect(res.headers["content-type"], path).toMatch(/^text\/plain/);
      }
    }
    expect(seen.length).toBe(before);
    // The connection survives a refused request that carried a body.
    const refused = await send(
      frontPort,
      agent,
      "POST",
      "/api/v1/links/%2e%2e",
      Buffer.alloc(64 * 1024, 0x61),
    );
    expect(refused.status).toBe(400);
    const ok = await send(frontPort, agent, "GET", "/api/v1/links/caf%C3%A9?q=a/../b");
    expect(JSON.parse(ok.body)).toEqual({ path: "/api/v1/links/caf%C3%A9?q=a/../b" });
    agent.destroy();
  });

  it("keeps the visitor's connection usable after the upstream answers before reading the body", async () => {
    // One socket only: the second request must reuse the connection the oversized upload used.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const big = Buffer.alloc(4 * 1024 * 1024, 0x61);
    const first = await send(frontPort, agent, "POST", "/api/v1/links", big);
    expect(first.status).toBe(413);
    const second = await Promise.race([
      send(frontPort, agent, "GET", "/api/v1/openapi.json"),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the connection hung")), 5_000)),
    ]);
    expect(second.status).toBe(200);
    agent.destroy();
  });

  it("answers 503 in the API's envelope when the upstream is down", async () => {
    const dead = createApiForwarder("http://127.0.0.1:1", () => null);
    const server = createServer((req, res) => dead(req, res));
    const port = await listen(server);
    const agent = new Agent();
    const v1 = await send(port, agent, "GET", "/api/v1/links");
    expect(v1.status).toBe(503);
    expect(JSON.parse(v1.body)).toMatchObject({ success: false, error: { code: "SERVICE_UNAVAILABLE" } });
    const legacy = await send(port, agent, "GET", "/api/account");
    expect(JSON.parse(legacy.body)).toEqual({ error: 1, message: "Service temporarily unavailable" });
    server.close();
  });
});
