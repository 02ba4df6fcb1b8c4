import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { canonicalPath, MAX_PATH_LENGTH, sendPathRefusal } from "../src/index.ts";

describe("canonicalPath", () => {
  it("accepts ordinary paths and keeps path and query verbatim", () => {
    for (const url of [
      "/",
      "/abc123",
      "/api/v1/links",
      "/api/v1/links/",
      "/api/v1/links?page=2&q=a/../b%2e",
      "/api/v1/links/caf%C3%A9",
      "/api/v1/links/a%20b",
      "/docs/swagger-ui.css",
      "/c/spring-2026",
      "/.well-known",
      "/a/...",
      "/a/.b/c.",
      "/API/V1/LINKS",
    ]) {
      const result = canonicalPath(url);
      expect(result, url).toMatchObject({ ok: true, url });
      if (result.ok) expect(result.path).toBe(url.split("?", 1)[0]);
    }
  });

  it("refuses every ambiguous form", () => {
    for (const url of [
      "",
      "*",
      "http://evil.test/api/v1/links",
      "api/v1/links",
      "/api/v1/links/../internal",
      "/api/v1/links/..",
      "/api/v1/./links",
      "/.",
      "/api/v1/links/%2e%2e/%2e%2e/%2e%2e/internal/links/resolve/x",
      "/api/v1/links/%2E%2E/internal",
      "/api/v1/links/.%2e/internal",
      "/api/v1/links%2finternal",
      "/api/v1/links%2F..%2Finternal",
      "/api/v1/links/..\\..\\internal",
      "/api/v1/links\\internal",
      "/api/v1/links/%5c..",
      "/api/v1/links/%5C",
      "/api/v1//links",
      "//api/v1/links",
      "/api/v1/links/%00",
      "/api/v1/links/\u0000",
      "/api/v1/links/%0a",
      "/api/v1/links/%7F",
      "/api/v1/links/\t",
      "/api/v1/links/a b",
      "/api/v1/links/#frag",
      "/api/v1/links/%",
      "/api/v1/links/%zz",
      "/api/v1/links/%c0%ae%c0%ae/internal",
      "/api/v1/links/%e0%80%ae",
      "/api/v1/links/%EF%BC%8E%EF%BC%8E/internal",
      "/api/v1/links/%EF%BC%8F",
      "/api/v1/links/%EF%BC%BC",
      "/api/v1/links/%252e%252e/internal",
      "/api/v1/links/%C2%85",
      "/api/v1/links/é",
      "/api/v1/links/\uff0e\uff0e",
      `/${"a".repeat(MAX_PATH_LENGTH)}`,
    ]) {
      const result = canonicalPath(url);
      expect(result.ok, JSON.stringify(url)).toBe(false);
      if (!result.ok) expect(result.reason).toMatch(/\S/);
    }
    expect(canonicalPath(undefined).ok).toBe(false);
  });

  it("bounds the path, not the query", () => {
    const longest = `/${"a".repeat(MAX_PATH_LENGTH - 1)}`;
    expect(canonicalPath(longest).ok).toBe(true);
    expect(canonicalPath(`${longest}?q=${"b".repeat(4000)}`).ok).toBe(true);
    expect(canonicalPath(`${longest}a`).ok).toBe(false);
  });
});

describe("sendPathRefusal", () => {
  async function refusal(path: string, method = "GET", body?: string) {
    const server = createServer((req, res) => {
      const c = canonicalPath(req.url);
      if (!c.ok) sendPathRefusal(req, res, c.reason);
      else res.end("forwarded");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    try {
      return await new Promise<{ status: number; type: string; text: string }>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, method, path, agent: false }, (res) => {
          let text = "";
          res.on("data", (c: Buffer) => (text += c));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), text }),
          );
        });
        req.on("error", reject);
        req.end(body);
      });
    } finally {
      server.close();
    }
  }

  it("answers 400 in the v1 envelope under /api/v1, the legacy one under /api, plain text elsewhere", async () => {
    const v1 = await refusal("/api/v1/links/%2e%2e/x");
    expect(v1.status).toBe(400);
    expect(JSON.parse(v1.text)).toEqual({
      success: false,
      error: { code: "BAD_REQUEST", message: "Path contains an encoded dot, slash or control character" },
    });
    const legacy = await refusal("/api/account/../x", "POST", "{}");
    expect(legacy.status).toBe(400);
    expect(JSON.parse(legacy.text)).toEqual({ error: 1, message: "Path contains a dot segment" });
    const plain = await refusal("/docs/..%5c");
    expect(plain.status).toBe(400);
    expect(plain.type).toMatch(/^text\/plain/);
    expect(plain.text).toMatch(/^Bad Request: /);
  });
});
