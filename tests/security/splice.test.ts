// Attacks on the public origin's splice (decision 0038): an API connection is handed to the gateway at
// the TCP level with a PROXY header, and every later request on it is the gateway's to route. Run as
// `./kurz up` runs it: the redirect trusts no proxy hop, so clients are told apart by their socket
// address (127.0.0.2, .3, ... are all this machine's loopback), never by a header they send.
// - a forged PROXY header, at the public origin and at the gateway's own port;
// - budgets (failed authentications, passwords) per visitor on spliced connections, on the gateway's
//   side and on short links sent back to the redirect on the same connection;
// - auth, rate limits and the edge's refusals of ambiguous paths on a later request of a spliced
//   connection;
// - request smuggling across the splice: CL/TE disagreements in the first request.

import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { connect } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { expectV1Error, type RawResponse, useAttackerAndVictim, useAttackStack } from "./attack.ts";

const AUTH_FAILURES_PER_MINUTE = 3;
const PASSWORD_PER_CLIENT = 2;

const bed = useAttackStack(
  {
    AUTH_FAILURE_LIMIT_PER_MINUTE: String(AUTH_FAILURES_PER_MINUTE),
    PASSWORD_MAX_ATTEMPTS: String(PASSWORD_PER_CLIENT),
  },
  // As `./kurz up`: nothing in front of the public origin; the gateway trusts the one hop behind it.
  { inProcess: true, serviceEnv: { redirect: { TRUST_PROXY: "false" }, gateway: { TRUST_PROXY: "1" } } },
);
const ctx = useAttackerAndVictim(bed, "splice");
const victim = { id: "", code: "", destination: "", lockedCode: "" };

beforeAll(async () => {
  victim.destination = `https://victim-secret.example/${Date.now().toString(36)}`;
  const made = await ctx.asVictim("POST", "/api/v1/links", { url: victim.destination });
  expect(made.status, made.text).toBe(201);
  victim.id = made.body.data.id;
  victim.code = made.body.data.short_code;
  const locked = await ctx.asVictim("POST", "/api/v1/links", {
    url: `${victim.destination}/locked`,
    password: "correct horse battery",
  });
  expect(locked.status, locked.text).toBe(201);
  victim.lockedCode = locked.body.data.short_code;
});

/** One keep-alive connection from `localAddress`: every request goes on the same socket, in turn. */
function connection(localAddress: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress });
  const url = new URL(bed.stack.origin);
  const sockets = new Set<unknown>();
  const send = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
    new Promise<RawResponse>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          method,
          path,
          agent,
          headers: {
            ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}),
            ...headers,
          },
        },
        (res) => {
          sockets.add(res.socket);
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            text += c;
          });
          res.on("end", () => {
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {}
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
          });
        },
      );
      req.on("error", reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  return {
    send,
    /** How many sockets the requests so far went over (1: all on one kept-alive connection). */
    sockets: () => sockets.size,
    close: () => agent.destroy(),
  };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** How many whole answers (head, and the body its Content-Length names) `text` holds. */
function wholeAnswers(text: string): number {
  let count = 0;
  let at = 0;
  for (;;) {
    const headEnd = text.indexOf("\r\n\r\n", at);
    if (headEnd < 0) return count;
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(at, headEnd))?.[1] ?? 0);
    if (text.length < headEnd + 4 + length) return count;
    at = headEnd + 4 + length;
    count++;
  }
}

/**
 * Writes `bytes` on a fresh connection and returns everything read until the server closes it (or
 * `waitMs` passes); each of `then` is written once the answers to all that went before have arrived.
 */
function rawExchange(port: number, bytes: string, then: string[] = [], waitMs = 1_500): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    let text = "";
    let written = 1;
    const next = [...then];
    socket.on("data", (d) => {
      text += d.toString("latin1");
      if (next.length > 0 && wholeAnswers(text) >= written) {
        written++;
        socket.write(next.shift()!);
      }
    });
    socket.on("error", () => {});
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.write(bytes);
  });
}

/**
 * Established TCP connections to `port` on this machine (Linux, /proc/net/tcp), by their other end: a
 * set, because a connection of the setup may close between two reads and a count would then miss one.
 */
function establishedTo(port: number): Set<string> {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const peers = new Set<string>();
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[2]?.endsWith(`:${hex}`) && f[3] === "01" && f[1] !== undefined) peers.add(f[1]);
  }
  return peers;
}
const opened = (before: Set<string>, now: Set<string>) => [...now].filter((peer) => !before.has(peer));

// Not anchored: an answer may follow the previous body without a line break.
const statusLines = (text: string) => text.match(/HTTP\/1\.[01] \d{3}/g) ?? [];
const originPort = () => Number(new URL(bed.stack.origin).port);

describe("the splice itself", () => {
  it("takes a connection whose first request is an API one, and only that one", async () => {
    const splicePort = Number(new URL(bed.stack.urls.gatewaySplice).port);
    const before = establishedTo(splicePort);
    const api = connection("127.0.0.8");
    expect((await api.send("GET", "/api/v1/links", bearer(ctx.attacker.api_key))).status).toBe(200);
    const spliced = opened(before, establishedTo(splicePort));
    expect(spliced).toHaveLength(1);
    const link = connection("127.0.0.8");
    expect((await link.send("GET", `/${victim.code}`)).status).toBe(302);
    expect((await link.send("GET", "/api/v1/links", bearer(ctx.attacker.api_key))).status).toBe(200);
    expect(opened(before, establishedTo(splicePort))).toEqual(spliced);
    api.close();
    link.close();
  });

  it("listens on loopback only, and closes a connection that does not start with a PROXY header", async () => {
    expect(new URL(bed.stack.urls.gatewaySplice).hostname).toBe("127.0.0.1");
    const text = await rawExchange(
      Number(new URL(bed.stack.urls.gatewaySplice).port),
      `GET /api/v1/links HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ctx.attacker.api_key}\r\n\r\n`,
    );
    expect(text).toBe("");
  });
});

describe("a forged PROXY header", () => {
  it("at the public origin is a malformed request, answered 400 by the edge, and reaches nothing", async () => {
    const text = await rawExchange(
      originPort(),
      `PROXY TCP4 6.6.6.6 127.0.0.1 1234 80\r\nGET /api/v1/links HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(
        bearer(ctx.attacker.api_key),
      )[0]!.join(": ")}\r\n\r\n`,
    );
    expect(statusLines(text)).toEqual(["HTTP/1.1 400"]);
  });

  it("as a later request of a spliced connection is a malformed request for the gateway: 400, connection closed", async () => {
    const text = await rawExchange(originPort(), "GET /api/v1/links HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", [
      "PROXY TCP4 6.6.6.6 127.0.0.1 1 2\r\nGET /api/v1/links HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    ]);
    expect(statusLines(text), text).toEqual(["HTTP/1.1 401", "HTTP/1.1 400"]);
  });

  it("at the gateway's own port is not spoken there either", async () => {
    const text = await rawExchange(
      Number(new URL(bed.stack.urls.gatewayInternal).port),
      "PROXY TCP4 6.6.6.6 127.0.0.1 1 2\r\nGET /api/v1/links HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    );
    expect(statusLines(text)).toEqual(["HTTP/1.1 400"]);
  });
});

describe("visitors on spliced connections are told apart by their own address", () => {
  it("the gateway's failed-authentication budget is per visitor, across spliced and forwarded connections", async () => {
    const a = connection("127.0.0.2");
    const seen: number[] = [];
    for (let i = 0; i <= AUTH_FAILURES_PER_MINUTE; i++)
      seen.push((await a.send("GET", "/api/v1/links", bearer("kurz_not_a_key"))).status);
    expect(seen).toEqual([401, 401, 401, 429]);
    expect(a.sockets()).toBe(1);
    a.close();

    // Another visitor, claiming to be the first one: X-Forwarded-For is believed from no one here.
    const b = connection("127.0.0.3");
    const other = await b.send("GET", "/api/v1/links", {
      ...bearer("kurz_not_a_key"),
      "x-forwarded-for": "127.0.0.2",
    });
    expect(other.status).toBe(401);
    expect(other.headers["x-ratelimit-remaining"]).toBe(String(AUTH_FAILURES_PER_MINUTE - 1));
    b.close();

    // The first visitor again, on a connection the edge forwards request by request (its first request
    // is a short link's): the same budget, spent.
    const again = connection("127.0.0.2");
    expect((await again.send("GET", "/no-such-code-here")).status).toBe(404);
    expect((await again.send("GET", "/api/v1/links", bearer(ctx.attacker.api_key))).status).toBe(429);
    expect(again.sockets()).toBe(1);
    again.close();
  });

  it("a password link followed on a spliced connection counts the visitor's attempts, not the gateway's", async () => {
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const a = connection("127.0.0.4");
    expect((await a.send("GET", `/api/v1/links/${victim.id}`, bearer(ctx.victim.api_key))).status).toBe(200);
    const tries: number[] = [];
    for (let i = 0; i <= PASSWORD_PER_CLIENT; i++)
      tries.push((await a.send("POST", `/${victim.lockedCode}`, form, "password=wrong-guess")).status);
    expect(tries.slice(0, PASSWORD_PER_CLIENT)).not.toContain(429);
    expect(tries[PASSWORD_PER_CLIENT]).toBe(429);
    expect(a.sockets()).toBe(1);
    a.close();

    // Another visitor on its own spliced connection still has its attempts.
    const b = connection("127.0.0.5");
    expect((await b.send("GET", "/api/v1/links", bearer(ctx.attacker.api_key))).status).toBe(200);
    expect((await b.send("POST", `/${victim.lockedCode}`, form, "password=wrong-guess")).status).not.toBe(
      429,
    );
    b.close();

    // The first visitor on a connection the edge serves itself: the same, spent budget.
    const c = connection("127.0.0.4");
    expect((await c.send("POST", `/${victim.lockedCode}`, form, "password=wrong-guess")).status).toBe(429);
    c.close();
  });
});

describe("a later request of a spliced connection", () => {
  it("is authenticated and counted like the first", async () => {
    const a = connection("127.0.0.6");
    const first = await a.send("GET", `/api/v1/links/${victim.id}`, bearer(ctx.victim.api_key));
    const second = await a.send("GET", `/api/v1/links/${victim.id}`, bearer(ctx.victim.api_key));
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(Number(second.headers["x-ratelimit-remaining"])).toBe(
      Number(first.headers["x-ratelimit-remaining"]) - 1,
    );
    expectV1Error(await a.send("GET", `/api/v1/links/${victim.id}`), 401, "UNAUTHORIZED");
    // The attacker's key on the same connection acts as the attacker only.
    const foreign = await a.send("GET", `/api/v1/links/${victim.id}`, bearer(ctx.attacker.api_key));
    expect(foreign.status).toBe(404);
    expect(foreign.text).not.toContain(victim.destination);
    // A short link on it is a click as on any connection.
    const click = await a.send("GET", `/${victim.code}`);
    expect(click.status).toBe(302);
    expect(click.headers.location).toBe(victim.destination);
    expect(a.sockets()).toBe(1);
    a.close();
  });

  it("with an ambiguous API path is refused with the edge's 400 and budget; a non-API one as the edge answers it", async () => {
    const a = connection("127.0.0.7");
    expect((await a.send("GET", "/api/v1/links", bearer(ctx.attacker.api_key))).status).toBe(200);
    const traversal = `/api/v1/links/%2e%2e/%2e%2e/%2e%2e/internal/links/resolve/${victim.code}`;
    const refused = await a.send("GET", traversal, bearer(ctx.attacker.api_key));
    expectV1Error(refused, 400, "BAD_REQUEST");
    expect(refused.headers["x-ratelimit-limit"]).toBe(String(AUTH_FAILURES_PER_MINUTE));
    expect(refused.text).not.toContain(victim.destination);
    const backslash = await a.send(
      "GET",
      `/api/v1/links/..\\..\\..\\internal\\links\\resolve\\${victim.code}`,
    );
    expectV1Error(backslash, 400, "BAD_REQUEST");
    const nonApi = await a.send("GET", `/%2e%2e/${victim.code}`);
    expect(a.sockets()).toBe(1);
    a.close();
    // The same non-API path on a connection the edge serves itself: the same answer.
    const fresh = connection("127.0.0.7");
    const direct = await fresh.send("GET", `/%2e%2e/${victim.code}`);
    fresh.close();
    expect(nonApi.status).toBe(direct.status);
    expect(nonApi.text).toBe(direct.text);
    expect(nonApi.text).not.toContain(victim.destination);
  });
});

describe("a refused body on a spliced connection", () => {
  it("too large, on `Connection: close`, still gets its 413 while the client is sending it", async () => {
    // The gateway refuses on the declared length, before the body; answering and closing with the body
    // still arriving would reset the connection, and the redirect's next write of the body would lose
    // the answer with it (found by tests/security/import-export.test.ts once uploads were spliced).
    const size = 32 * 1024 * 1024;
    const text = await new Promise<string>((resolve) => {
      const socket = connect({ port: originPort(), host: "127.0.0.1" });
      let got = "";
      socket.on("data", (d) => {
        got += d.toString("latin1");
      });
      socket.on("error", () => {});
      const timer = setTimeout(() => socket.destroy(), 15_000);
      socket.on("close", () => {
        clearTimeout(timer);
        resolve(got);
      });
      socket.write(
        `POST /api/v1/links HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ctx.attacker.api_key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${size}\r\nConnection: close\r\n\r\n`,
      );
      // In one write, as an HTTP client sends a buffered body: the redirect pipes it as fast as it can.
      socket.write(Buffer.alloc(size, "a"));
    });
    expect(statusLines(text), text.slice(0, 200)).toEqual(["HTTP/1.1 413"]);
    expect(text).toContain("PAYLOAD_TOO_LARGE");
  });
});

describe("request smuggling across the splice", () => {
  // Each first request is an API one (so the connection is spliced) whose framing two readers could
  // disagree on; the bytes after it are a request for the victim's link. One parser reads them all (the
  // gateway's), and it refuses the first: one 400, then the connection is closed.
  const smuggled = () =>
    `GET /api/v1/links/${victim.id} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ctx.victim.api_key}\r\n\r\n` +
    `GET /${victim.code} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
  const attacks: [string, (inner: string) => string][] = [
    [
      "CL.TE",
      (inner) =>
        `POST /api/v1/links HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${5 + inner.length}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${inner}`,
    ],
    [
      "TE.CL",
      (inner) =>
        `POST /api/v1/links HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n${inner.length.toString(16)}\r\n${inner}\r\n0\r\n\r\n`,
    ],
    [
      "two Content-Lengths",
      (inner) =>
        `POST /api/v1/links HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nContent-Length: ${inner.length}\r\n\r\n${inner}`,
    ],
    [
      "an obfuscated Transfer-Encoding",
      (inner) =>
        `POST /api/v1/links HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${5 + inner.length}\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n${inner}`,
    ],
    [
      "a folded Transfer-Encoding",
      (inner) =>
        `POST /api/v1/links HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${5 + inner.length}\r\nTransfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n${inner}`,
    ],
    [
      "a bare LF inside the headers",
      (inner) =>
        `POST /api/v1/links HTTP/1.1\r\nHost: 127.0.0.1\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n${inner}`,
    ],
  ];

  for (const [name, build] of attacks) {
    it(`${name}: one 400, nothing smuggled`, async () => {
      const text = await rawExchange(originPort(), build(smuggled()));
      expect(statusLines(text), text.slice(0, 300)).toEqual(["HTTP/1.1 400"]);
      expect(text).not.toContain(victim.destination);
    });
  }

  it("a well-framed body that looks like requests stays a body (the control case)", async () => {
    const inner = smuggled();
    const text = await rawExchange(
      originPort(),
      `POST /api/v1/links HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ctx.attacker.api_key}\r\nContent-Type: text/plain\r\nContent-Length: ${inner.length}\r\nConnection: close\r\n\r\n${inner}`,
    );
    expect(statusLines(text)).toHaveLength(1);
    expect(text).not.toContain(victim.destination);
  });
});
