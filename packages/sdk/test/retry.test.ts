// When the client sends a refused request again, against a scripted HTTP server (the stack cannot
// answer 503 on demand): Retry-After in seconds or as a date, the methods that may be repeated, the
// bound on tries and on waiting.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createKurzClient, KurzApiError, KurzNetworkError } from "../src/index.ts";

type Answer = { status: number; headers?: Record<string, string>; body?: unknown };
let script: Answer[] = [];
let seen: string[] = [];
let server: Server;
let origin = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const answer = script.shift() ?? {
      status: 500,
      body: { success: false, error: { code: "INTERNAL_ERROR", message: "script ran out" } },
    };
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    res.end(answer.body === undefined ? "" : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  script = [];
  seen = [];
});

const refusal = (status: number, code: string, headers: Record<string, string> = {}): Answer => ({
  status,
  headers,
  body: { success: false, error: { code, message: code } },
});
const account = { success: true, data: { id: "a" } };
const NOW = Date.parse("2030-01-01T00:00:00Z");

function client(attempts = 3, maxDelayMs = 60_000) {
  const waits: number[] = [];
  const kurz = createKurzClient({
    baseUrl: origin,
    apiKey: "kurz_live_x",
    retry: { attempts, maxDelayMs, sleep: async (ms) => void waits.push(ms), now: () => NOW },
  });
  return { kurz, waits };
}

describe("retries", () => {
  it("waits Retry-After's seconds, or until its date, then answers the success", async () => {
    const { kurz, waits } = client();
    script = [
      refusal(429, "RATE_LIMIT_EXCEEDED", { "retry-after": "7" }),
      refusal(503, "SERVICE_UNAVAILABLE", { "retry-after": new Date(NOW + 3000).toUTCString() }),
      { status: 200, body: account },
    ];
    await expect(kurz.call("getAccount")).resolves.toEqual({ id: "a" });
    expect(waits).toEqual([7000, 3000]);
    expect(seen).toEqual(["GET /api/v1/account", "GET /api/v1/account", "GET /api/v1/account"]);
  });

  it("backs off 0.5 s, doubling, without Retry-After, and stops after the tries it was given", async () => {
    const { kurz, waits } = client(3);
    script = [
      refusal(503, "SERVICE_UNAVAILABLE"),
      refusal(503, "SERVICE_UNAVAILABLE"),
      refusal(503, "SERVICE_UNAVAILABLE"),
    ];
    await expect(kurz.v1.getAccount()).rejects.toMatchObject({ status: 503, code: "SERVICE_UNAVAILABLE" });
    expect(waits).toEqual([500, 1000]);
    expect(seen).toHaveLength(3);
  });

  it("never sends a POST or PATCH again on 503, but does on 429 (refused before anything was done)", async () => {
    const { kurz, waits } = client();
    script = [refusal(503, "SERVICE_UNAVAILABLE", { "retry-after": "1" })];
    await expect(kurz.v1.createLink({ body: { url: "https://example.com" } })).rejects.toMatchObject({
      status: 503,
    });
    script = [refusal(503, "SERVICE_UNAVAILABLE", { "retry-after": "1" })];
    await expect(kurz.v1.updateLink({ params: { id: "x" }, body: { title: "t" } })).rejects.toMatchObject({
      status: 503,
    });
    expect(seen).toEqual(["POST /api/v1/links", "PATCH /api/v1/links/x"]);
    expect(waits).toEqual([]);
    script = [
      refusal(429, "RATE_LIMIT_EXCEEDED", { "retry-after": "2" }),
      { status: 201, body: { success: true, data: { id: "l" } } },
    ];
    await expect(kurz.v1.createLink({ body: { url: "https://example.com" } })).resolves.toEqual({ id: "l" });
    expect(waits).toEqual([2000]);
  });

  it("gives up at once when Retry-After is longer than it may wait, and never retries other refusals", async () => {
    const { kurz, waits } = client(3, 10_000);
    script = [refusal(429, "RATE_LIMIT_EXCEEDED", { "retry-after": "3600" })];
    const error = await kurz.v1.getAccount().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KurzApiError);
    expect(error).toMatchObject({ status: 429, code: "RATE_LIMIT_EXCEEDED" });
    script = [refusal(500, "INTERNAL_ERROR"), refusal(404, "NOT_FOUND")];
    await expect(kurz.v1.getAccount()).rejects.toMatchObject({ status: 500, code: "INTERNAL_ERROR" });
    expect(waits).toEqual([]);
    expect(seen).toHaveLength(2);
  });

  it("maps a legacy refusal without a code to the code of its status", async () => {
    const { kurz } = client(1);
    script = [{ status: 409, body: { error: 1, message: "Domain already in use" } }];
    await expect(kurz.legacy.addDomain({ body: { domain: "https://go.example.com" } })).rejects.toMatchObject(
      {
        status: 409,
        code: "CONFLICT",
        message: "Domain already in use",
        details: undefined,
      },
    );
  });
});

describe("no answer", () => {
  it("is a KurzNetworkError carrying the fetch's error, sent once", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const kurz = createKurzClient({ baseUrl: `http://127.0.0.1:${port}` });
    const error = await kurz.v1.getAccount().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KurzNetworkError);
    expect(error).toMatchObject({ request: "GET /api/v1/account", cause: expect.any(Error) });
  });
});
