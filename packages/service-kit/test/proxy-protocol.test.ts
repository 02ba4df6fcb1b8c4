import { createServer, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  acceptProxyProtocol,
  isProxiedSocket,
  PROXY_V1_MAX_BYTES,
  parseProxyHeaderV1,
  proxyHeaderV1,
} from "../src/proxy-protocol.ts";

const b = (s: string) => Buffer.from(s, "latin1");

describe("parseProxyHeaderV1", () => {
  it("reads the stated peer of TCP4 and TCP6 headers and the header's length", () => {
    const v4 = "PROXY TCP4 203.0.113.7 127.0.0.1 51234 8080\r\n";
    expect(parseProxyHeaderV1(b(`${v4}GET / HTTP/1.1\r\n`))).toEqual({
      kind: "ok",
      address: "203.0.113.7",
      port: 51234,
      family: "IPv4",
      length: v4.length,
    });
    const v6 = "PROXY TCP6 2001:db8::1 ::1 65535 0\r\n";
    expect(parseProxyHeaderV1(b(v6))).toEqual({
      kind: "ok",
      address: "2001:db8::1",
      port: 65535,
      family: "IPv6",
      length: v6.length,
    });
  });

  it("takes UNKNOWN (the sender did not know the peer) without an address", () => {
    expect(parseProxyHeaderV1(b("PROXY UNKNOWN\r\n"))).toMatchObject({
      kind: "ok",
      address: null,
      length: 15,
    });
    expect(parseProxyHeaderV1(b("PROXY UNKNOWN ff:: ::1 1 2\r\n"))).toMatchObject({
      kind: "ok",
      address: null,
    });
  });

  it("waits for more bytes while a valid prefix has no line end yet", () => {
    for (const part of [
      "",
      "P",
      "PROX",
      "PROXY ",
      "PROXY TCP4 203.0.113.7 127.0.0.1 5123",
      "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r",
    ])
      expect(parseProxyHeaderV1(b(part)), part).toEqual({ kind: "incomplete" });
  });

  it("refuses anything else: other protocols, bad addresses and ports, bare LF, too long", () => {
    const bad = [
      "GET / HTTP/1.1\r\n",
      "proxy TCP4 1.2.3.4 5.6.7.8 1 2\r\n",
      "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n",
      "PROXY TCP5 1.2.3.4 5.6.7.8 1 2\r\n",
      "PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n",
      "PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n",
      "PROXY TCP4  1.2.3.4 5.6.7.8 1 2\r\n",
      "PROXY TCP4 2001:db8::1 5.6.7.8 1 2\r\n",
      "PROXY TCP6 1.2.3.4 ::1 1 2\r\n",
      "PROXY TCP4 1.2.3.256 5.6.7.8 1 2\r\n",
      "PROXY TCP4 evil\r\nX 5.6.7.8 1 2\r\n",
      "PROXY TCP4 1.2.3.4 5.6.7.8 65536 2\r\n",
      "PROXY TCP4 1.2.3.4 5.6.7.8 01 2\r\n",
      "PROXY TCP4 1.2.3.4 5.6.7.8 -1 2\r\n",
      `PROXY TCP4 1.2.3.4 5.6.7.8 1 2${" ".repeat(PROXY_V1_MAX_BYTES)}\r\n`,
      `PROXY ${"x".repeat(PROXY_V1_MAX_BYTES)}`,
    ];
    for (const s of bad) expect(parseProxyHeaderV1(b(s)).kind, JSON.stringify(s)).toBe("invalid");
  });
});

describe("proxyHeaderV1", () => {
  it("states a socket's peer and local end, and parses back to the same peer", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    const accepted = new Promise<Socket>((r) => server.once("connection", r));
    const client = connect(port, "127.0.0.1");
    const socket = await accepted;
    const header = proxyHeaderV1(socket);
    expect(header).toBe(`PROXY TCP4 127.0.0.1 127.0.0.1 ${socket.remotePort} ${port}\r\n`);
    expect(parseProxyHeaderV1(b(header))).toMatchObject({ address: "127.0.0.1", port: socket.remotePort });
    client.destroy();
    socket.destroy();
    server.close();
  });

  it("says UNKNOWN for a socket without addresses", () => {
    expect(proxyHeaderV1({} as Socket)).toBe("PROXY UNKNOWN\r\n");
  });
});

describe("acceptProxyProtocol", () => {
  let server: Server | null = null;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
    server = null;
  });

  /** An HTTP server behind a PROXY header that answers with the peer it sees and the request. */
  async function start(timeoutMs?: number) {
    server = createServer((req, res) => {
      res.end(
        `${req.socket.remoteAddress} ${req.socket.remotePort} ${isProxiedSocket(req.socket)} ${req.method} ${req.url}`,
      );
    });
    acceptProxyProtocol(server, timeoutMs);
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    return (server.address() as AddressInfo).port;
  }

  /** Writes the parts with a pause between them and returns everything read until the server closes. */
  function exchange(port: number, parts: string[]): Promise<{ text: string; closed: boolean }> {
    return new Promise((resolve) => {
      const socket = connect(port, "127.0.0.1");
      let text = "";
      socket.on("data", (d) => {
        text += d.toString("latin1");
      });
      socket.on("error", () => {});
      socket.on("close", () => resolve({ text, closed: true }));
      void (async () => {
        for (const p of parts) {
          socket.write(p);
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
    });
  }

  it("serves HTTP as from the stated peer, pipelined bytes and a header split across reads included", async () => {
    const port = await start();
    const { text } = await exchange(port, [
      "PROX",
      "Y TCP4 203.0.113.7 127.0.0.1 40000 80\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ]);
    expect(text).toContain("203.0.113.7 40000 true GET /a");
    expect(text).toContain("203.0.113.7 40000 true GET /b");
  });

  it("keeps the socket's own peer on UNKNOWN", async () => {
    const port = await start();
    const { text } = await exchange(port, [
      "PROXY UNKNOWN\r\nGET /u HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ]);
    expect(text).toMatch(/127\.0\.0\.1 \d+ true GET \/u/);
  });

  it("closes a connection that starts with anything but a valid header, without an HTTP answer", async () => {
    const port = await start();
    for (const first of [
      "GET /x HTTP/1.1\r\nHost: x\r\n\r\n",
      "PROXY TCP4 not-an-ip 127.0.0.1 1 2\r\nGET /x HTTP/1.1\r\nHost: x\r\n\r\n",
      `PROXY TCP4 203.0.113.7 127.0.0.1 1 2${" ".repeat(200)}`,
    ]) {
      const { text, closed } = await exchange(port, [first]);
      expect(closed, first).toBe(true);
      expect(text, first).toBe("");
    }
  });

  it("closes a connection that sends no header in time", async () => {
    const port = await start(100);
    const { text, closed } = await exchange(port, ["PROXY TCP4"]);
    expect(closed).toBe(true);
    expect(text).toBe("");
  });
});
