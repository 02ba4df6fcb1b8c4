// The dashboard's files as the gateway serves them (web-app.ts): which paths are the app's, on which
// host, with which headers, and that no spelling of a path reaches a file outside dist/assets.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { originHosts } from "@kurz/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebApp, WEB_CSP } from "../src/web-app.ts";

describe("the dashboard's static files", () => {
  let dir: string;
  let server: Server;
  let base: string;
  const script = `console.log(${JSON.stringify("x".repeat(4000))});`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kurz-web-"));
    mkdirSync(join(dir, "dist/assets"), { recursive: true });
    writeFileSync(join(dir, "dist/index.html"), "<!doctype html><title>Kurz</title>");
    writeFileSync(join(dir, "dist/assets/index-AbC123.js"), script);
    writeFileSync(join(dir, "dist/assets/.secret.js"), "hidden");
    writeFileSync(join(dir, "dist/assets/notes.txt"), "not a served type");
    writeFileSync(join(dir, "secret.js"), "outside dist");
    const app = createWebApp(originHosts("https://kurz.example"), join(dir, "dist"));
    server = createServer((req, res) => {
      if (!app(req, res, (req.url ?? "/").split("?")[0]!)) {
        res.statusCode = 599;
        res.end("not the app's");
      }
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  /** node:http, since fetch does not let a test choose the Host header. Bodies come back raw. */
  const get = (
    path: string,
    opts: { method?: string; host?: string; headers?: Record<string, string>; body?: string } = {},
  ) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
      (resolve, reject) => {
        const req = request(
          `${base}${path}`,
          { method: opts.method ?? "GET", headers: { host: opts.host ?? "kurz.example", ...opts.headers } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () =>
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
            );
          },
        );
        req.on("error", reject);
        req.end(opts.body);
      },
    );

  it("answers index.html for every page of the app, uncached, with a strict CSP and no framing", async () => {
    for (const path of [
      "/",
      "/login",
      "/signup",
      "/dashboard",
      "/dashboard/links",
      "/dashboard/links/5b1e",
      "/stats/abc-1",
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.body.toString()).toContain("<title>Kurz</title>");
      expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(res.headers["cache-control"]).toBe("no-cache");
      expect(res.headers["content-security-policy"]).toBe(WEB_CSP);
      expect(res.headers["x-frame-options"]).toBe("DENY");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
    }
    expect(WEB_CSP).toContain("script-src 'self'");
    expect(WEB_CSP).toContain("frame-ancestors 'none'");
    expect(WEB_CSP).not.toContain("unsafe");
  });

  it("serves hashed assets for a year, gzip-compressed when the client accepts it", async () => {
    const res = await get("/assets/index-AbC123.js", { headers: { "accept-encoding": "gzip" } });
    expect(res.status).toBe(200);
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(res.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(res.body).toString()).toBe(script);
    const plain = await get("/assets/index-AbC123.js");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(script);
  });

  it("finds no file outside dist/assets, hidden files or unknown types, however the path is spelled", async () => {
    for (const path of [
      "/assets/../secret.js",
      "/assets/%2e%2e/secret.js",
      "/assets/..%2fsecret.js",
      "/assets/.secret.js",
      "/assets/notes.txt",
      "/assets/sub/index-AbC123.js",
      "/assets/index-AbC123.js%00",
      "/assets/",
      "/assets/missing.js",
    ]) {
      const res = await get(path);
      if (res.status === 599) continue; // not claimed by the app (the gateway answers it otherwise)
      expect(res.status, path).toBe(404);
      const body = res.body.toString();
      expect(body, path).not.toContain("outside dist");
      expect(body, path).not.toContain("hidden");
    }
  });

  it("claims only its own paths, and only on the public host", async () => {
    for (const path of ["/abc123", "/api/v1/links", "/statsx", "/dashboardx", "/stats/", "/loginx"]) {
      expect((await get(path)).status, path).toBe(599);
    }
    // A branded domain's `/` is its redirect_root, and its other paths are its own.
    for (const path of ["/", "/dashboard", "/assets/index-AbC123.js"]) {
      expect((await get(path, { host: "go.brand.example" })).status, path).toBe(599);
    }
    expect((await get("/", { host: "KURZ.example." })).status).toBe(200);
  });

  it("answers 405 to a method other than GET and HEAD", async () => {
    const res = await get("/dashboard", { method: "POST", body: "x" });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("GET, HEAD");
    const head = await get("/", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });
});
