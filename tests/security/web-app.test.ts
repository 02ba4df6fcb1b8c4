// Attacks on the dashboard's files through the public origin (docs/decisions/0024-web-dashboard.md):
// reading a file outside services/web/dist by any spelling of a path, framing the app (clickjacking),
// loading script from elsewhere (CSP), and getting the app served on a host that is not the platform's
// (where `/` belongs to a branded domain's redirect_root).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { useStack } from "@kurz/testing/use-stack";
import { beforeAll, describe, expect, it } from "vitest";
import { buildWeb } from "../../infra/build/web.ts";
import { raw } from "./attack.ts";

const root = resolve(import.meta.dirname, "../..");
// The dashboard's files exist before the stack serves them.
beforeAll(async () => {
  await buildWeb();
});
const bed = useStack({ inProcess: true });

describe("the dashboard's files", () => {
  it("serves the app with a strict CSP that forbids framing and foreign scripts", async () => {
    const res = await raw(bed.stack.origin, "GET", "/dashboard/links");
    expect(res.status).toBe(200);
    expect(res.text).toContain('<div id="app">');
    const csp = String(res.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-(inline|eval)/);
    expect(res.headers["x-frame-options"]).toBe("DENY");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    // The built page has no inline script the CSP would have to allow.
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it("never answers a file outside dist/assets, whatever the spelling", async () => {
    const secrets = [
      readFileSync(resolve(root, "package.json"), "utf8").slice(0, 40),
      readFileSync(resolve(root, "services/web/vite.config.ts"), "utf8").slice(0, 40),
    ];
    const paths = [
      "/assets/../package.json",
      "/assets/../../package.json",
      "/assets/%2e%2e/%2e%2e/package.json",
      "/assets/..%2f..%2fpackage.json",
      "/assets/..%5c..%5cpackage.json",
      "/assets/..\\..\\package.json",
      "/assets/%2E%2E%2F%2E%2E%2Fpackage.json",
      "/assets//etc/passwd",
      "/assets/.%2e/vite.config.ts",
      "/dashboard/../../vite.config.ts",
      "/stats/../../../package.json",
      "/assets/index.html%00.js",
    ];
    for (const path of paths) {
      const res = await raw(bed.stack.origin, "GET", path);
      expect([400, 404], `${path} → ${res.status}`).toContain(res.status);
      for (const secret of secrets) expect(res.text, path).not.toContain(secret);
      expect(res.text, path).not.toContain("root:x:0:0");
    }
  });

  it("is not served on a host that is not the platform's, so a branded domain keeps its own `/`", async () => {
    for (const path of ["/", "/dashboard", "/login"]) {
      const res = await raw(bed.stack.origin, "GET", path, { headers: { host: "go.attacker.example" } });
      expect(res.text, path).not.toContain('<div id="app">');
    }
  });

  it("answers a stats page 404 unless the link's analytics are public, and charges the public budget", async () => {
    const { api_key } = await bed.stack.createAccount("stats-pages@example.com");
    const v1 = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${bed.stack.origin}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${api_key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await res.json()) as { data: { id: string; short_code: string } };
    };
    const shared = (await v1("POST", "/links", { url: "https://example.com/shared" })).data;
    const secret = (await v1("POST", "/links", { url: "https://example.com/secret" })).data;
    await v1("PATCH", `/links/${shared.id}`, { analytics_public: true });

    const page = (code: string) => raw(bed.stack.origin, "GET", `/stats/${code}`);
    const open = await page(shared.short_code);
    expect(open.status).toBe(200);
    expect(open.text).toContain('<div id="app">');
    expect(open.headers["x-ratelimit-limit"]).toBeDefined();
    // Private, unknown and deleted links look alike: the same page, 404.
    for (const code of [secret.short_code, "no-such-link"]) {
      const res = await page(code);
      expect(res.status, code).toBe(404);
      expect(res.text, code).toContain('<div id="app">');
    }
    await v1("DELETE", `/links/${shared.id}`);
    expect((await page(shared.short_code)).status).toBe(404);
  });

  it("refuses writes to its pages", async () => {
    const res = await raw(bed.stack.origin, "POST", "/login", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=a%40b.c&password=x",
    });
    expect(res.status).toBe(405);
    expect(res.text).not.toContain('<div id="app">');
  });
});
