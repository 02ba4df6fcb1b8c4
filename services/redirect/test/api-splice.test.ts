// The public origin's splice (decision 0038) against a stand-in gateway speaking the PROXY protocol:
// which connections are spliced, what the gateway receives, and what falls back to the HTTP server.
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { acceptProxyProtocol, isProxiedSocket } from "@kurz/service-kit";
import { getFreePort } from "@kurz/testing";
import { afterEach, describe, expect, it } from "vitest";
import { spliceApiConnections, spliceTarget } from "../src/api-splice.ts";

describe("spliceTarget", () => {
  const line = (s: string) => Buffer.from(s, "latin1");
  it("splices a canonical API, docs or campaign path in a whole first request line", () => {
    for (const target of ["/api/v1/links/abc", "/api", "/api?x=1", "/docs", "/docs/x.css", "/c/summer"])
      expect(spliceTarget(line(`GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`)), target).toBe(target);
    expect(spliceTarget(line("POST /api/v1/links HTTP/1.0\r\n"))).toBe("/api/v1/links");
  });

  it("leaves everything else to the HTTP server", () => {
    const kept = [
      "GET /abc HTTP/1.1\r\n", // a short link
      "GET / HTTP/1.1\r\n", // the dashboard
      "GET /dashboard HTTP/1.1\r\n",
      "GET /API/v1/links HTTP/1.1\r\n", // not an API path at this edge either
      "GET /api/v1/links/%2e%2e/internal HTTP/1.1\r\n", // refused here, with the budget (decision 0013)
      "GET /api/v1/links/..\\internal HTTP/1.1\r\n",
      "GET /api/v1/links", // no whole line yet
      "GET /api/v1/links HTTP/1.1\n", // bare LF
      "GET  /api/v1/links HTTP/1.1\r\n", // two spaces
      "GET http://x/api/v1/links HTTP/1.1\r\n", // absolute form
      "GET /api/v1/links HTTP/2.0\r\n",
      "GET /api/v1/links\r\n", // HTTP/0.9
      "PROXY TCP4 6.6.6.6 127.0.0.1 1 2\r\nGET /api/v1/links HTTP/1.1\r\n", // a forged header
      "G\u00c9T /api/v1/links HTTP/1.1\r\n",
      "GET /api/v1/links\u0000 HTTP/1.1\r\n",
      `GET /api/${"a".repeat(9000)} HTTP/1.1\r\n`,
    ];
    for (const first of kept)
      expect(spliceTarget(line(first)), JSON.stringify(first.slice(0, 60))).toBeNull();
  });
});

describe("spliceApiConnections", () => {
  const servers: Server[] = [];
  afterEach(() => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      s.close();
    }
  });

  const listen = async (server: Server) => {
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return (server.address() as AddressInfo).port;
  };

  /** A public origin that answers "origin …" itself, splicing to a gateway that answers "gateway …". */
  async function origin(gatewayUp = true) {
    const gateway = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () =>
        res.end(
          `gateway ${req.socket.remoteAddress} ${isProxiedSocket(req.socket)} ${req.method} ${req.url} ${body}|`,
        ),
      );
    });
    acceptProxyProtocol(gateway);
    // A gateway that is down: a port nothing listens on. Not one a listener just let go of, which the
    // kernel may hand to another test's server in the meantime (a whole run saw a 400 from one); a
    // claimed port below the ephemeral range stays free of other tests' listeners.
    const gatewayPort = gatewayUp ? await listen(gateway) : await getFreePort();
    const publicServer = createServer((req, res) => {
      req.resume();
      res.end(`origin ${req.method} ${req.url}|`);
    });
    spliceApiConnections(publicServer, { host: "127.0.0.1", port: gatewayPort, firstReadTimeoutMs: 200 });
    return listen(publicServer);
  }

  /** Sends the bytes on one connection (from `localAddress`) and reads until the server closes. */
  function exchange(port: number, bytes: string, localAddress = "127.0.0.1", endAfterWrite = false) {
    return new Promise<string>((resolve) => {
      const socket = connect({ port, host: "127.0.0.1", localAddress });
      let text = "";
      socket.on("data", (d) => {
        text += d.toString("latin1");
      });
      socket.on("error", () => {});
      socket.on("close", () => resolve(text));
      if (bytes) socket.write(bytes);
      if (endAfterWrite) socket.end();
    });
  }

  it("splices an API connection: the gateway reads every request on it, from the visitor's address", async () => {
    const port = await origin();
    const text = await exchange(
      port,
      "GET /api/v1/links/1 HTTP/1.1\r\nHost: x\r\n\r\n" +
        "GET /abc HTTP/1.1\r\nHost: x\r\n\r\n" +
        "POST /api/v1/links HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
      "127.0.0.2",
    );
    expect(text).toContain("gateway 127.0.0.2 true GET /api/v1/links/1 |");
    // Later requests of a spliced connection are the gateway's to route (it sends non-API ones back).
    expect(text).toContain("gateway 127.0.0.2 true GET /abc |");
    expect(text).toContain("gateway 127.0.0.2 true POST /api/v1/links hello|");
    expect(text).not.toContain("origin");
  });

  it("passes a client's half-close on and still delivers the answer", async () => {
    const port = await origin();
    const text = await exchange(port, "GET /docs HTTP/1.1\r\nHost: x\r\n\r\n", "127.0.0.1", true);
    expect(text).toContain("gateway 127.0.0.1 true GET /docs |");
  });

  it("keeps every other connection, later API requests on it included, on the HTTP server", async () => {
    const port = await origin();
    const text = await exchange(
      port,
      "GET /abc HTTP/1.1\r\nHost: x\r\n\r\nGET /api/v1/links HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    expect(text).toContain("origin GET /abc|");
    expect(text).toContain("origin GET /api/v1/links|");
    expect(text).not.toContain("gateway");
    const refused = await exchange(
      port,
      "GET /api/%2e%2e/internal HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    expect(refused).toContain("origin GET /api/%2e%2e/internal|");
  });

  it("gives a forged PROXY header to the HTTP server, which refuses it as a request", async () => {
    const port = await origin();
    const text = await exchange(
      port,
      "PROXY TCP4 6.6.6.6 127.0.0.1 1 2\r\nGET /api/v1/links HTTP/1.1\r\nHost: x\r\n\r\n",
    );
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).not.toContain("gateway");
  });

  it("falls back to the HTTP server while the gateway's splice listener is down", async () => {
    const port = await origin(false);
    const text = await exchange(port, "GET /api/v1/links HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(text).toContain("origin GET /api/v1/links|");
  });

  it("closes a connection that sends nothing", async () => {
    const port = await origin();
    expect(await exchange(port, "")).toBe("");
  });
});
