// The destination check against real local HTTP servers: every outcome, redirect chains, the HEAD → GET
// fallback, bounds on time and bytes, the SSRF guard, and the per-site limiter.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classify, DestinationChecker, SiteLimiter } from "../src/health/check-destination.ts";

let server: Server;
let port: number;
let hugeBytesSent = 0;

function handle(req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  const n = /^\/chain\/(\d+)$/.exec(path);
  if (n) {
    const left = Number(n[1]);
    if (left === 0) return void res.end("end");
    res.writeHead(302, { location: `/chain/${left - 1}` }).end();
    return;
  }
  switch (path) {
    case "/ok":
      return void res.end("hello");
    case "/gone":
      return void res.writeHead(404).end();
    case "/broken":
      return void res.writeHead(503).end();
    case "/loop-a":
      return void res.writeHead(301, { location: "/loop-b" }).end();
    case "/loop-b":
      return void res.writeHead(301, { location: "/loop-a" }).end();
    case "/to-other":
      return void res.writeHead(302, { location: `http://other.test:${port}/ok` }).end();
    case "/to-private":
      return void res.writeHead(302, { location: "http://private.example/admin" }).end();
    case "/no-head":
      if (req.method === "HEAD") return void res.writeHead(405).end();
      return void res.end("got");
    case "/head-resets":
      if (req.method === "HEAD") return void req.socket.destroy();
      return void res.end("got");
    case "/hang":
      return; // never answers
    case "/huge": {
      if (req.method === "HEAD") return void res.writeHead(405).end();
      res.writeHead(200, { "content-type": "application/octet-stream" });
      const chunk = Buffer.alloc(64 * 1024, 1);
      const pump = () => {
        // Stops when the client goes away; backpressure bounds what is buffered meanwhile.
        while (!res.destroyed && hugeBytesSent < 1024 ** 3) {
          hugeBytesSent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
      };
      res.on("close", () => res.destroy());
      pump();
      return;
    }
    default:
      res.writeHead(404).end();
  }
}

// Names the checker resolves to the local server; everything else does not exist.
const resolve = async (hostname: string) => {
  if (hostname.endsWith(".test") && hostname !== "missing.test") {
    return [{ address: "127.0.0.1", family: 4 }];
  }
  if (hostname === "private.example") return [{ address: "10.0.0.7", family: 4 }];
  throw Object.assign(new Error(`${hostname} does not resolve`), { code: "ENOTFOUND" });
};

let ticks = 0;
const now = () => 1_800_000_000_000 + 7 * ticks++;
let checker: DestinationChecker;
const url = (path: string, host = "site.test") => `http://${host}:${port}${path}`;

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  checker = new DestinationChecker({
    allowHosts: ["127.0.0.1", "site.test", "other.test", "missing.test"],
    resolve,
    timeoutMs: 1_500,
    now,
  });
});

afterAll(async () => {
  await checker.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe("DestinationChecker", () => {
  it("ok: status, final URL, one HEAD hop, timing from the injected clock", async () => {
    ticks = 0;
    const r = await checker.check(url("/ok"));
    expect(r).toMatchObject({ outcome: "ok", statusCode: 200, finalUrl: url("/ok"), detail: null });
    expect(r.hops).toEqual([{ url: url("/ok"), status: 200, method: "HEAD" }]);
    expect(r.durationMs).toBe(7);
    expect(r.checkedAt).toEqual(new Date(1_800_000_000_007));
  });

  it("client_error and server_error", async () => {
    expect(await checker.check(url("/gone"))).toMatchObject({ outcome: "client_error", statusCode: 404 });
    expect(await checker.check(url("/broken"))).toMatchObject({ outcome: "server_error", statusCode: 503 });
  });

  it("follows a redirect chain, recording every hop, across sites", async () => {
    const r = await checker.check(url("/chain/3"));
    expect(r.outcome).toBe("ok");
    expect(r.finalUrl).toBe(url("/chain/0"));
    expect(r.hops.map((h) => [h.url, h.status])).toEqual([
      [url("/chain/3"), 302],
      [url("/chain/2"), 302],
      [url("/chain/1"), 302],
      [url("/chain/0"), 200],
    ]);
    const across = await checker.check(url("/to-other"));
    expect(across).toMatchObject({ outcome: "ok", finalUrl: url("/ok", "other.test") });
  });

  it("a loop and a chain longer than the bound are redirect_loop", async () => {
    const loop = await checker.check(url("/loop-a"));
    expect(loop.outcome).toBe("redirect_loop");
    expect(loop.hops).toHaveLength(2);
    const long = await checker.check(url("/chain/11"));
    expect(long.outcome).toBe("redirect_loop");
    expect(long.hops).toHaveLength(11);
    expect((await checker.check(url("/chain/10"))).outcome).toBe("ok");
  });

  it("HEAD refused (405) or reset → GET decides", async () => {
    const r = await checker.check(url("/no-head"));
    expect(r).toMatchObject({ outcome: "ok", statusCode: 200 });
    expect(r.hops).toEqual([{ url: url("/no-head"), status: 200, method: "GET" }]);
    expect(await checker.check(url("/head-resets"))).toMatchObject({ outcome: "ok", statusCode: 200 });
  });

  it("a huge body is never read whole", async () => {
    hugeBytesSent = 0;
    const started = Date.now();
    const r = await checker.check(url("/huge"));
    expect(r).toMatchObject({ outcome: "ok", statusCode: 200 });
    expect(Date.now() - started).toBeLessThan(1_500);
    await new Promise((r) => setTimeout(r, 100));
    expect(hugeBytesSent).toBeLessThan(64 * 1024 * 1024);
  });

  it("a server that never answers is a timeout within the total budget", async () => {
    const started = Date.now();
    const r = await checker.check(url("/hang"));
    expect(r).toMatchObject({ outcome: "timeout", statusCode: null });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("dns_error, connection_error, tls_error", async () => {
    expect((await checker.check(url("/ok", "missing.test"))).outcome).toBe("dns_error");
    // Nothing listens on port 1 of loopback.
    expect((await checker.check("http://127.0.0.1:1/")).outcome).toBe("connection_error");
    // TLS spoken to a plain HTTP server fails the handshake.
    expect((await checker.check(`https://site.test:${port}/ok`)).outcome).toBe("tls_error");
  });

  it("refuses private addresses, literal or resolved, and non-http schemes, without a request", async () => {
    const strict = new DestinationChecker({ resolve, timeoutMs: 1_000 });
    try {
      const literal = await strict.check(`http://127.0.0.1:${port}/ok`);
      expect(literal.outcome).toBe("refused");
      expect(literal.statusCode).toBeNull();
      expect((await strict.check("http://private.example/")).outcome).toBe("refused");
      expect((await strict.check("file:///etc/passwd")).outcome).toBe("refused");
      // A public-looking start that redirects to a private address is refused at that hop.
      const hop = await checker.check(url("/to-private"));
      expect(hop.outcome).toBe("refused");
      expect(hop.finalUrl).toBe("http://private.example/admin");
      expect(hop.hops.map((h) => h.status)).toEqual([302, null]);
    } finally {
      await strict.close();
    }
  });
});

describe("classify", () => {
  it("redirected only when the final URL changed since the previous check", () => {
    const ok = { outcome: "ok" as const, finalUrl: "https://b.example/" };
    expect(classify(ok, null)).toBe("ok");
    expect(classify(ok, { finalUrl: "https://b.example/" })).toBe("ok");
    expect(classify(ok, { finalUrl: "https://a.example/" })).toBe("redirected");
    expect(classify({ outcome: "client_error", finalUrl: "x" }, { finalUrl: "y" })).toBe("client_error");
  });
});

describe("SiteLimiter", () => {
  it("one in flight and one start per second per registrable domain", async () => {
    let clock = 0;
    const slept: number[] = [];
    const limiter = new SiteLimiter(
      1_000,
      () => clock,
      async (ms) => {
        slept.push(ms);
        clock += ms;
      },
    );
    let inFlight = 0;
    let maxInFlight = 0;
    const starts: number[] = [];
    const task = async () => {
      starts.push(clock);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      clock += 100;
      inFlight--;
    };
    await Promise.all([
      limiter.run("a.example.co.uk", task),
      limiter.run("b.example.co.uk", task),
      limiter.run("example.co.uk", task),
    ]);
    expect(maxInFlight).toBe(1);
    expect(starts).toEqual([0, 1_000, 2_000]);
    // Another site is not held back by this one.
    const t0 = clock;
    await limiter.run("other.example", task);
    expect(starts.at(-1)).toBe(t0);
  });
});
