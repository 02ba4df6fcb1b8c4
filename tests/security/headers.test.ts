// Framing and sniffing (docs/security.md, "Framing and sniffing"), through the public origin: every
// HTML page Kurz serves (the redirect's 404, 410, password, 429 and 405 pages, the CTA overlay page,
// the docs, the dashboard, a public campaign page and its 404) carries a Content-Security-Policy that
// forbids framing (`frame-ancestors 'none'`) and `<base>`, `X-Frame-Options: DENY`, `nosniff` and a
// `Referrer-Policy`, and allows its own inline style by hash or nonce only; every answer of every API
// route in contracts' ROUTE_DEFS (so a new route is swept without touching this file), and every JSON
// answer of the redirect, says `nosniff`.
import { createHash } from "node:crypto";
import { ROUTE_DEFS } from "@kurz/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import { buildWeb } from "../../infra/build/web.ts";
import { api, type RawResponse, raw, uniqueEmail, useAttackStack } from "./attack.ts";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const PAST = "2025-12-31T23:59:59Z";
const MISS_BUDGET = 3;

let call: ReturnType<typeof api>;
const codes = { plain: "", expired: "", locked: "", overlay: "" };
let campaignPath = "";
let clientSeq = 0;

// The dashboard's files exist before the stack serves them.
beforeAll(async () => {
  await buildWeb();
});
const bed = useAttackStack(
  { PASSWORD_MAX_ATTEMPTS: "1", MISS_BUDGET_PER_MINUTE: String(MISS_BUDGET) },
  { inProcess: true },
);

beforeAll(async () => {
  const owner = await bed.stack.createAccount(uniqueEmail("headers"));
  call = api(bed.stack, owner.api_key);
  const link = async (body: Record<string, unknown>) => {
    const res = await call("POST", "/api/v1/links", body);
    expect(res.status, res.text).toBe(201);
    return res.body.data;
  };
  const plain = await link({ url: "https://headers.example/plain" });
  codes.plain = plain.short_code;
  codes.expired = (await link({ url: "https://headers.example/expired", expires_at: PAST })).short_code;
  codes.locked = (
    await link({ url: "https://headers.example/locked", password: "correct-horse-battery" })
  ).short_code;
  const overlay = await call("POST", "/api/overlay/add", { type: "message", name: "o", text: "Hello" });
  expect(overlay.status, overlay.text).toBe(200);
  codes.overlay = (
    await link({ url: "https://headers.example/overlay", overlay_id: overlay.body.id })
  ).short_code;
  const campaign = await call("POST", "/api/campaign/add", { name: "Spring", public: true });
  expect(campaign.status, campaign.text).toBe(200);
  expect((await call("POST", `/api/campaign/${campaign.body.id}/assign/${plain.id}`)).status).toBe(200);
  campaignPath = new URL(campaign.body.list).pathname;
});

/** A browser's request from an address of its own, so no budget of one check spills into another. */
function visit(
  method: string,
  path: string,
  opts: { ip?: string; body?: string; accept?: string } = {},
): Promise<RawResponse> {
  return raw(bed.stack.origin, method, path, {
    headers: {
      "user-agent": BROWSER,
      "x-forwarded-for": opts.ip ?? `198.51.100.${++clientSeq}`,
      accept: opts.accept ?? "text/html,application/xhtml+xml",
      ...(opts.body !== undefined ? { "content-type": "application/x-www-form-urlencoded" } : {}),
    },
    ...(opts.body !== undefined ? { body: opts.body } : {}),
  });
}

/** The headers every HTML page must carry, and a policy that allows its inline style and nothing wider. */
function expectFramingAndSniffingDefences(res: RawResponse, label: string): void {
  expect(String(res.headers["content-type"]), label).toMatch(/^text\/html/);
  const csp = String(res.headers["content-security-policy"] ?? "");
  const directives = new Map(
    csp
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name!.toLowerCase(), values]),
  );
  expect(directives.get("frame-ancestors"), `${label}: ${csp}`).toEqual(["'none'"]);
  expect(directives.get("base-uri"), `${label}: ${csp}`).toEqual(["'none'"]);
  expect(directives.has("default-src"), `${label}: ${csp}`).toBe(true);
  // No script but the page's own files (the docs' Swagger UI keeps inline styles, never scripts).
  for (const name of ["script-src", "default-src"]) {
    expect(directives.get(name)?.join(" ") ?? "", `${label}: ${name}`).not.toMatch(/unsafe-(inline|eval)/);
  }
  expect(res.headers["x-frame-options"], label).toBe("DENY");
  expect(res.headers["x-content-type-options"], label).toBe("nosniff");
  expect(String(res.headers["referrer-policy"] ?? ""), label).toMatch(
    /^(no-referrer|same-origin|strict-origin|strict-origin-when-cross-origin)$/,
  );
  // Each inline style the page has is allowed by its hash (or the response's nonce), so the defences
  // above do not break the page they protect.
  for (const [, attrs, content] of res.text.matchAll(/<style([^>]*)>([^<]*)<\/style>/g)) {
    const nonce = /nonce="([^"]+)"/.exec(attrs!)?.[1];
    const allowed = nonce
      ? `'nonce-${nonce}'`
      : `'sha256-${createHash("sha256").update(content!).digest("base64")}'`;
    const styles = directives.get("style-src") ?? directives.get("default-src") ?? [];
    // 'unsafe-inline' counts only without a hash or nonce beside it (CSP then ignores it).
    const inlineAllowed =
      styles.includes("'unsafe-inline'") && !styles.some((v) => /^'(sha256|nonce)-/.test(v));
    expect(inlineAllowed || styles.includes(allowed), `${label}: its <style> (${styles.join(" ")})`).toBe(
      true,
    );
  }
}

describe("HTML pages", () => {
  it("the redirect's pages: 404, 410, password form, wrong password, too many attempts, 405, overlay", async () => {
    const pages: [string, RawResponse, number][] = [
      ["unknown code", await visit("GET", "/no-such-code-here"), 404],
      ["expired", await visit("GET", `/${codes.expired}`), 410],
      ["password form", await visit("GET", `/${codes.locked}`), 200],
      [
        "wrong password",
        await visit("POST", `/${codes.locked}`, { body: "password=nope", ip: "198.51.100.250" }),
        401,
      ],
      [
        "too many attempts",
        await visit("POST", `/${codes.locked}`, { body: "password=nope2", ip: "198.51.100.250" }),
        429,
      ],
      ["method", await visit("PUT", `/${codes.plain}`), 405],
      ["overlay page", await visit("GET", `/${codes.overlay}`), 200],
    ];
    for (const [label, res, status] of pages) {
      expect(res.status, `${label}: ${res.text.slice(0, 200)}`).toBe(status);
      expectFramingAndSniffingDefences(res, label);
    }
  });

  it("the redirect's page for too many lookups of unknown codes", async () => {
    const ip = "198.51.100.251";
    let last: RawResponse | undefined;
    for (let i = 0; i <= MISS_BUDGET; i++) last = await visit("GET", `/miss-${i}-${Date.now()}`, { ip });
    expect(last!.status, last!.text).toBe(429);
    expectFramingAndSniffingDefences(last!, "too many lookups");
  });

  it("the docs, the dashboard, and a public campaign page with its 404", async () => {
    const pages: [string, RawResponse, number][] = [
      ["docs", await visit("GET", "/docs"), 200],
      ["dashboard", await visit("GET", "/dashboard/links"), 200],
      ["sign-in", await visit("GET", "/login"), 200],
      ["campaign", await visit("GET", campaignPath), 200],
      ["campaign 404", await visit("GET", "/c/999999999"), 404],
    ];
    for (const [label, res, status] of pages) {
      expect(res.status, `${label}: ${res.text.slice(0, 200)}`).toBe(status);
      expectFramingAndSniffingDefences(res, label);
    }
    expect(pages[3]![1].text).toContain("Spring");
  });

  it("the plain redirect stays a bare 302", async () => {
    const res = await visit("GET", `/${codes.plain}`, { accept: "*/*" });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("https://headers.example/plain");
    expect(res.text).toBe("");
  });
});

describe("JSON and other answers", () => {
  it("the redirect's pages asked for JSON, and a refused API path", async () => {
    for (const [label, res] of [
      ["unknown code", await visit("GET", "/no-such-code-json", { accept: "application/json" })],
      ["expired", await visit("GET", `/${codes.expired}`, { accept: "application/json" })],
      ["password", await visit("GET", `/${codes.locked}`, { accept: "application/json" })],
      ["traversal", await raw(bed.stack.origin, "GET", "/api/v1/links/%2e%2e/x")],
      ["legacy traversal", await raw(bed.stack.origin, "GET", "/api/%2e%2e/x")],
    ] as const) {
      expect(String(res.headers["content-type"]), label).toMatch(/^application\/json/);
      expect(res.headers["x-content-type-options"], label).toBe("nosniff");
    }
  });

  it("every API route of contracts' ROUTE_DEFS, with and without a key, and unknown routes", async () => {
    // A throwaway account of its own: the sweep sends empty bodies to every write.
    const sweeper = await bed.stack.createAccount(uniqueEmail("headers-sweep"));
    const asSweeper = api(bed.stack, sweeper.api_key);
    const own = await asSweeper("POST", "/api/v1/links", { url: "https://headers.example/sweep" });
    expect(own.status, own.text).toBe(201);
    const values: Record<string, string> = { id: own.body.data.id, short_code: own.body.data.short_code };
    const swept: string[] = [];
    for (const def of ROUTE_DEFS) {
      const path = def.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) =>
        def.path.startsWith("/api/v1/links")
          ? (values[name] ?? "1")
          : name === "short_code"
            ? values[name]!
            : "1",
      );
      const body = def.method === "GET" || def.method === "DELETE" ? undefined : "{}";
      for (const [who, res] of [
        ["key", await asSweeper(def.method, path, body)],
        [
          "no key",
          // Each from an address of its own: the failed-authentication budget must not turn the rest of
          // the sweep into the gateway's 429s.
          await raw(bed.stack.origin, def.method, path, {
            headers: {
              "x-forwarded-for": `10.9.${Math.floor(swept.length / 200)}.${swept.length % 200}`,
              ...(body === undefined ? {} : { "content-type": "application/json" }),
            },
            ...(body === undefined ? {} : { body }),
          }),
        ],
      ] as const) {
        const label = `${def.method} ${path} (${who}): ${res.status}`;
        expect(res.status, label).toBeLessThan(500);
        expect(res.headers["x-content-type-options"], `${label} ${res.text.slice(0, 200)}`).toBe("nosniff");
        if (String(res.headers["content-type"]).startsWith("text/html"))
          expectFramingAndSniffingDefences(res, label);
      }
      swept.push(`${def.method} ${def.path}`);
    }
    expect(swept).toContain("GET /api/v1/links/:id");
    expect(swept).toContain("POST /api/v1/links");
    expect(swept).toContain("GET /api/account");
    for (const path of ["/api/v1/no-such-route", "/api/no-such-route", "/api/v1/openapi.json"]) {
      const res = await asSweeper("GET", path);
      expect(res.headers["x-content-type-options"], path).toBe("nosniff");
    }
  }, 300_000);
});
