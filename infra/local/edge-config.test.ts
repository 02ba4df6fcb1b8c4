// The local edge of `./kurz up --scale`, run with Debian's nginx in front of stand-in upstreams: it
// routes as the compose edge does (API, docs and campaign pages to a gateway, everything else to a
// redirect), spreads requests over the instances, keeps routing when one instance is gone, and sends a
// retried request with the request id and time of its first attempt.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { INTERNAL_HEADERS } from "@kurz/contracts";
import { getFreePort, waitFor } from "@kurz/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EDGE_TEMPLATE, localEdgeConfig } from "./edge-config.ts";

const NGINX = "/usr/sbin/nginx";
const FOREIGN_HOST = "phish.example";
const hasNginx = existsSync(NGINX);

describe("localEdgeConfig", () => {
  it("keeps every location of the compose edge and rewrites only addresses", () => {
    const template = readFileSync(EDGE_TEMPLATE, "utf8");
    const conf = localEdgeConfig({
      publicHost: "127.0.0.1",
      publicPort: 18080,
      healthPort: 18090,
      gateway: [1, 2],
      redirect: [3],
      internal: [{ name: "management", port: 18081, instances: [4, 5] }],
      prefix: "/tmp/x",
    });
    const locations = (text: string) => text.match(/location [^{]+\{[^}]*\}/g) ?? [];
    for (const location of locations(template)) expect(conf).toContain(location);
    expect(conf).toContain("server 127.0.0.1:1;\n        server 127.0.0.1:2;");
    expect(conf).not.toMatch(/resolve;|resolver /);
    expect(conf).toContain("listen 127.0.0.1:18080;");
  });

  it("refuses a template it no longer recognises rather than drift from it", () => {
    const changed = readFileSync(EDGE_TEMPLATE, "utf8").replace(
      "server redirect:8082 resolve;",
      "server redirect:8082;",
    );
    expect(() =>
      localEdgeConfig(
        {
          publicHost: "127.0.0.1",
          publicPort: 1,
          healthPort: 2,
          gateway: [1],
          redirect: [2],
          internal: [],
          prefix: "/x",
        },
        changed,
      ),
    ).toThrow(/redirect upstream server/);
  });
});

describe.skipIf(!hasNginx)("the local edge under Debian's nginx (skipped without /usr/sbin/nginx)", () => {
  const servers: Server[] = [];
  let prefix = "";
  let edge: ReturnType<typeof spawn> | undefined;
  let base = "";
  let internal = "";
  const ports: Record<string, number> = {};
  const dropping = new Set<string>();
  const dropped: { name: string; edge: string | string[] | null }[] = [];

  async function upstream(name: string): Promise<number> {
    const port = await getFreePort();
    const server = createServer((req, res) => {
      const edge = req.headers[INTERNAL_HEADERS.edgeRequest] ?? null;
      if (dropping.has(name)) {
        // An instance killed with the request in flight: it read the request, and never answers.
        dropped.push({ name, edge });
        req.socket.destroy();
        return;
      }
      res.setHeader("x-upstream", name);
      // As the gateway answers a Host that is not the origin's own (docs/security.md "Hosts").
      if (name.startsWith("gateway-") && req.headers.host === FOREIGN_HOST) {
        res.statusCode = 421;
        res.end("misdirected");
        return;
      }
      res.end(JSON.stringify({ url: req.url, xff: req.headers["x-forwarded-for"] ?? null, edge }));
    });
    await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
    servers.push(server);
    ports[name] = port;
    return port;
  }

  beforeAll(async () => {
    const gateway = [await upstream("gateway-1"), await upstream("gateway-2")];
    const redirect = [
      await upstream("redirect-1"),
      await upstream("redirect-2"),
      await upstream("redirect-3"),
    ];
    const management = [await upstream("management-1"), await upstream("management-2")];
    const [publicPort, healthPort, managementPort] = [
      await getFreePort(),
      await getFreePort(),
      await getFreePort(),
    ];
    prefix = mkdtempSync(join(tmpdir(), "kurz-edge-"));
    chmodSync(prefix, 0o755);
    const conf = join(prefix, "nginx.conf");
    writeFileSync(
      conf,
      localEdgeConfig({
        publicHost: "127.0.0.1",
        publicPort,
        healthPort,
        gateway,
        redirect,
        internal: [{ name: "management", port: managementPort, instances: management }],
        prefix,
      }),
    );
    edge = spawn(NGINX, ["-p", prefix, "-c", conf, "-e", "stderr", "-g", "daemon off;"], { stdio: "ignore" });
    base = `http://127.0.0.1:${publicPort}`;
    internal = `http://127.0.0.1:${managementPort}`;
    await waitFor(() => fetch(`http://127.0.0.1:${healthPort}/health`).then((r) => r.ok), {
      description: "nginx to answer its health check",
    });
  });

  afterAll(async () => {
    // nginx's files are removed once it has exited.
    const exited = edge && edge.exitCode === null ? once(edge, "exit") : undefined;
    edge?.kill("SIGTERM");
    for (const s of servers) s.close();
    await exited;
    if (prefix) rmSync(prefix, { recursive: true, force: true });
  });

  const via = async (url: string, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { headers, redirect: "manual" });
    return {
      upstream: res.headers.get("x-upstream") ?? "",
      // An upstream answers JSON; anything else is nginx's own answer, named with its URL and status.
      body: (await res.json().catch(() => {
        throw new Error(`${url}: ${res.status} from nginx itself`);
      })) as { url: string; xff: string | null; edge: string | null },
    };
  };

  it("routes the API, the docs page and campaign pages to a gateway, other paths to a redirect", async () => {
    expect((await via(`${base}/api/v1/links`)).upstream).toMatch(/^gateway-/);
    expect((await via(`${base}/api`)).upstream).toMatch(/^gateway-/);
    expect((await via(`${base}/docs`)).upstream).toMatch(/^gateway-/);
    expect((await via(`${base}/c/spring`)).upstream).toMatch(/^gateway-/);
    expect((await via(`${base}/abc123`)).upstream).toMatch(/^redirect-/);
    expect((await via(`${base}/apix`)).upstream).toMatch(/^redirect-/);
    // Codes an import keeps (1 character, `_`, edge hyphens) that begin like a dashboard page.
    for (const code of ["/login_old", "/dashboard-2", "/signupx", "/stats", "/c", "/r", "/-beta", "/a"])
      expect((await via(`${base}${code}`)).upstream, code).toMatch(/^redirect-/);
    for (const page of ["/login", "/login/", "/dashboard/links", "/stats/a_b", "/assets/x.js"])
      expect((await via(`${base}${page}`)).upstream, page).toMatch(/^gateway-/);
    const forwarded = await via(`${base}/abc123?x=1`, { "x-forwarded-for": "203.0.113.9" });
    expect(forwarded.body).toMatchObject({ url: "/abc123?x=1", xff: "127.0.0.1" });
  });

  it("hands a gateway's 421 (a Host not the origin's) to a redirect; campaign pages stay the gateway's", async () => {
    const onForeignHost = (path: string) =>
      new Promise<{ status: number; upstream: string }>((resolve, reject) => {
        const url = new URL(base);
        const req = request(
          { host: url.hostname, port: url.port, path, headers: { host: FOREIGN_HOST }, agent: false },
          (res) => {
            res.resume();
            res.on("end", () =>
              resolve({ status: res.statusCode ?? 0, upstream: String(res.headers["x-upstream"] ?? "") }),
            );
          },
        );
        req.on("error", reject);
        req.end();
      });
    for (const path of ["/api/v1/links", "/api", "/docs", "/", "/dashboard", "/login"]) {
      const answer = await onForeignHost(path);
      expect(answer, path).toEqual({ status: 200, upstream: expect.stringMatching(/^redirect-/) });
    }
    expect((await onForeignHost("/c/spring")).upstream).toMatch(/^gateway-/);
  });

  it("sends its own request id and time to the redirect, whatever the client sent (decision 0049)", async () => {
    const forged = `${"0".repeat(32)} 1700000000.000`;
    const first = await via(`${base}/abc123`, { [INTERNAL_HEADERS.edgeRequest]: forged });
    const second = await via(`${base}/abc123`, { [INTERNAL_HEADERS.edgeRequest]: forged });
    for (const { body } of [first, second]) {
      expect(body.edge).toMatch(/^[0-9a-f]{32} \d{10}\.\d{3}$/);
      expect(body.edge).not.toBe(forged);
      expect(Math.abs(Number(body.edge!.slice(33)) * 1000 - Date.now())).toBeLessThan(60_000);
    }
    expect(first.body.edge!.slice(0, 32)).not.toBe(second.body.edge!.slice(0, 32));
  });

  it("spreads requests over every instance, and the internal address passes headers as sent", async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 30; i++) seen.add((await via(`${base}/code${i}`)).upstream);
    for (let i = 0; i < 10; i++) seen.add((await via(`${base}/api/v1/x`)).upstream);
    for (let i = 0; i < 10; i++)
      seen.add((await via(`${internal}/internal/x`, { "x-forwarded-for": "203.0.113.9" })).upstream);
    expect([...seen].sort()).toEqual([
      "gateway-1",
      "gateway-2",
      "management-1",
      "management-2",
      "redirect-1",
      "redirect-2",
      "redirect-3",
    ]);
    expect((await via(`${internal}/x`, { "x-forwarded-for": "203.0.113.9" })).body.xff).toBe("203.0.113.9");
  });

  it("answers 503 with Retry-After and nosniff in the API's envelope when no gateway can answer", async () => {
    for (const name of ["gateway-1", "gateway-2"]) {
      const server = servers.find((s) => (s.address() as { port: number } | null)?.port === ports[name])!;
      await new Promise<void>((r) => server.close(() => r()));
    }
    const v1 = await fetch(`${base}/api/v1/links`, { method: "POST" });
    expect(v1.status).toBe(503);
    expect(v1.headers.get("retry-after")).toBe("1");
    expect(v1.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await v1.json()).toEqual({
      success: false,
      error: { code: "SERVICE_UNAVAILABLE", message: "Service temporarily unavailable" },
    });
    const legacy = await fetch(`${base}/api/shorten`, { method: "POST" });
    expect(legacy.status).toBe(503);
    expect(legacy.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await legacy.json()).toEqual({ error: 1, message: "Service temporarily unavailable" });
  });

  it("keeps answering when an instance is gone (the next one takes the request)", async () => {
    const gone = servers.find((s) => (s.address() as { port: number } | null)?.port === ports["redirect-2"])!;
    await new Promise<void>((r) => gone.close(() => r()));
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => via(`${base}/k${i}`)));
    expect(answers.every((a) => a.upstream === "redirect-1" || a.upstream === "redirect-3")).toBe(true);
  });

  it("retries a request whose instance died before answering with the same request id and time", async () => {
    // redirect-2 is gone (above); redirect-1 now reads requests and drops them.
    dropping.add("redirect-1");
    const answers: { upstream: string; edge: string | null }[] = [];
    for (let i = 0; i < 10 && dropped.length === 0; i++) {
      const a = await via(`${base}/retried${i}`);
      answers.push({ upstream: a.upstream, edge: a.body.edge });
    }
    expect(dropped.length, "a request reached the dropping instance").toBe(1);
    const retried = answers.at(-1)!;
    expect(retried.upstream).toBe("redirect-3");
    expect(retried.edge).toMatch(/^[0-9a-f]{32} \d{10}\.\d{3}$/);
    expect(dropped[0]!.edge).toBe(retried.edge);
  });
});
