// Attacks on the edges and internal credentials through the public origin (docs/security.md, "Edges,
// paths and internal credentials"): path traversal into management's internal
// API in every spelling, on every route prefix the origin serves; forged identity headers; internal
// endpoints called directly with the wrong credentials; a flood of bad keys; and a seeded fuzz loop.
import { createHash } from "node:crypto";
import { callerToken, forwardedHeaders, forwardToken, internalHeaders } from "@kurz/service-kit";
import { withMinuteLeft } from "@kurz/testing";
import { beforeAll, describe, expect, it } from "vitest";
import {
  api,
  expectLegacyError,
  expectV1Error,
  type RawResponse,
  raw,
  useAttackerAndVictim,
  useAttackStack,
} from "./attack.ts";

/** The gateway's failed-authentication budget in this stack (AUTH_FAILURE_LIMIT_PER_MINUTE). */
const AUTH_FAILURES_PER_MINUTE = 30;

const bed = useAttackStack(
  {
    AUTH_FAILURE_LIMIT_PER_MINUTE: String(AUTH_FAILURES_PER_MINUTE),
    // The fuzz loop's non-API paths are unknown codes; they must not trip the redirect's miss budget.
    MISS_BUDGET_PER_MINUTE: "100000",
  },
  { inProcess: true },
);
const ctx = useAttackerAndVictim(bed, "paths");
const victimLink = { id: "", code: "", destination: "" };
const victimPassword = "correct-horse-battery";
let secret = "";

beforeAll(async () => {
  secret = bed.stack.env.INTERNAL_TOKEN!;
  victimLink.destination = `https://victim-secret.example/${Date.now().toString(36)}/private-destination`;
  const made = await ctx.asVictim("POST", "/api/v1/links", {
    url: victimLink.destination,
    password: victimPassword,
  });
  expect(made.status, made.text).toBe(201);
  victimLink.id = made.body.data.id;
  victimLink.code = made.body.data.short_code;
});

/** Nothing of the victim's: destination, account id, or any argon2 hash. */
function expectNoLeak(res: RawResponse, label: string): void {
  expect(res.text, label).not.toContain(victimLink.destination);
  expect(res.text, label).not.toContain("victim-secret.example");
  expect(res.text, label).not.toContain(ctx.victim.account_id);
  expect(res.text, label).not.toMatch(/\$argon2/);
  expect(res.text, label).not.toMatch(/password_hash/);
}

type Envelope = "v1" | "legacy" | "plain";

/** The exact refusal of an ambiguous path: 400 in the envelope the path's prefix speaks. */
function expectPathRefusal(res: RawResponse, envelope: Envelope, label: string): void {
  if (envelope === "v1") expectV1Error(res, 400, "BAD_REQUEST");
  else if (envelope === "legacy") expectLegacyError(res, 400);
  if (envelope !== "plain") {
    // Rate-limit headers on every response: the client's failed-authentication budget, reported, never spent.
    expect(res.headers["x-ratelimit-limit"], label).toBe(String(AUTH_FAILURES_PER_MINUTE));
    const remaining = Number(res.headers["x-ratelimit-remaining"]);
    expect(remaining >= 0 && remaining <= AUTH_FAILURES_PER_MINUTE, label).toBe(true);
    expect(Number(res.headers["x-ratelimit-reset"]), label).toBeGreaterThan(Date.now() / 1000 - 1);
  } else {
    expect(res.status, `${label}: ${res.text}`).toBe(400);
    expect(String(res.headers["content-type"]), label).toMatch(/^text\/plain/);
  }
  expectNoLeak(res, label);
}

// Every route prefix the public origin forwards to the API side, with the envelope it answers in.
const PREFIXES: [string, Envelope][] = [
  ["/api/v1/links", "v1"],
  ["/api/v1/account", "v1"],
  ["/api/v1/analytics", "v1"],
  ["/api/v1/public/analytics", "v1"],
  ["/api/v1/qr", "v1"],
  ["/api/link", "legacy"],
  ["/api/account", "legacy"],
  ["/api/domain", "legacy"],
  ["/docs", "plain"],
  ["/c", "plain"],
];

/** The traversal of the issue and its spellings, aiming `depth` segments up at `target`. */
function traversals(prefix: string, target: string): string[] {
  const depth = prefix.split("/").length - 1;
  const up = (seg: string, sep = "/") => Array(depth).fill(seg).join(sep);
  return [
    `${prefix}/${up("%2e%2e")}/${target}`,
    `${prefix}/${up("%2E%2E")}/${target}`,
    `${prefix}/${up("%2e.")}/${target}`,
    `${prefix}/${up("..", "\\")}\\${target}`,
    `${prefix}\\${up("..", "\\")}\\${target}`,
    `${prefix}/${up("..")}/${target}`,
    `${prefix}/./${up("..")}/${target}`,
    `${prefix}/${up("..", "%2f")}%2f${target}`,
    `${prefix}/${up("..", "%2F")}%2F${target}`,
    `${prefix}/${up("..", "%5c")}%5c${target}`,
    `${prefix}/${up("..", "%5C")}/${target}`,
    `${prefix}/${up("..", "/\\")}/${target}`,
    `${prefix}//${up("..", "//")}//${target}`,
    `${prefix}/${up("%c0%ae%c0%ae")}/${target}`,
    `${prefix}/${up("%e0%80%ae%e0%80%ae")}/${target}`,
    `${prefix}/${up("%ef%bc%8e%ef%bc%8e")}/${target}`,
    `${prefix}/${up("%ef%bc%8e%ef%bc%8e", "%ef%bc%8f")}%ef%bc%8f${target}`,
    `${prefix}/${up("%252e%252e")}/${target}`,
    `${prefix}/%00/${up("..")}/${target}`,
    `${prefix}/x%00/${target}`,
    `${prefix}/${"a".repeat(2100)}/${target}`,
  ];
}

describe("path traversal into internal endpoints (item 1)", () => {
  it("refuses the exact request of the issue, and its `..\\` form, with 400 in the v1 envelope", async () => {
    for (const path of [
      `/api/v1/links/%2e%2e/%2e%2e/%2e%2e/internal/links/resolve/${victimLink.code}`,
      `/api/v1/links/..\\..\\..\\internal/links/resolve/${victimLink.code}`,
    ]) {
      const res = await ctx.asAttacker("GET", path);
      expectPathRefusal(res, "v1", path);
    }
  });

  it("reports the failed-authentication budget on a refused API path without spending it", async () => {
    const path = `/api/v1/links/%2e%2e/%2e%2e/%2e%2e/internal/links/resolve/${victimLink.code}`;
    const first = await ctx.asAttacker("GET", path);
    const second = await ctx.asAttacker("GET", path);
    expectPathRefusal(first, "v1", path);
    expectPathRefusal(second, "v1", path);
    // Equal within one clock minute; a new minute can only give more back.
    expect(Number(second.headers["x-ratelimit-remaining"])).toBeGreaterThanOrEqual(
      Number(first.headers["x-ratelimit-remaining"]),
    );
  });

  it("refuses every spelling on every route prefix the origin serves, and leaks nothing", async () => {
    const keyHash = createHash("sha256").update(ctx.victim.api_key).digest("hex");
    const targets = [
      `internal/links/resolve/${victimLink.code}`,
      `internal/keys/${keyHash}`,
      "internal/domains/resolve/go.bank.test",
    ];
    let attacks = 0;
    for (const [prefix, envelope] of PREFIXES) {
      for (const target of targets) {
        for (const path of traversals(prefix, target)) {
          const res = await ctx.asAttacker("GET", path);
          attacks++;
          if (envelope === "plain" && !path.startsWith(`${prefix}/`)) {
            // `/c\..`, `/docs\..`: not an API path at all, so the redirect answers it as an unknown
            // code (its 404 page) and never forwards it.
            expect(res.status, `${path}: ${res.text}`).toBe(404);
            expectNoLeak(res, path);
          } else expectPathRefusal(res, envelope, path);
        }
      }
    }
    expect(attacks).toBe(PREFIXES.length * 3 * 21);
  });

  it("answers 404 (never forwards) where the path is not an API path, so nothing is ambiguous", async () => {
    // The origin only forwards /api, /docs and /c/: anything else is a short code to the redirect,
    // which never forwards and resolves only well-formed codes.
    for (const path of [
      `/%2e%2e/internal/links/resolve/${victimLink.code}`,
      `/x/..%2f..%2finternal/links/resolve/${victimLink.code}`,
      `/.%2e/api/v1/links`,
      `/%61pi/v1/links`,
    ]) {
      const res = await ctx.asAttacker("GET", path);
      expect(res.status, `${path}: ${res.text}`).toBe(404);
      expectNoLeak(res, path);
    }
  });

  it("left the victim's link exactly as it was", async () => {
    const res = await ctx.asVictim("GET", `/api/v1/links/${victimLink.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.original_url).toBe(victimLink.destination);
    expect(res.body.data.has_password).toBe(true);
  });
});

describe("forged x-kurz-* headers from a client", () => {
  it("are ignored: the attacker's key still acts as the attacker only", async () => {
    const forged = {
      "x-kurz-account-id": ctx.victim.account_id,
      "x-kurz-key-id": "00000000-0000-4000-8000-000000000000",
      "x-kurz-internal-token": secret,
      "x-kurz-forward-token": forwardToken(secret),
    };
    const account = await ctx.asAttacker("GET", "/api/v1/account", undefined, forged);
    expect(account.status).toBe(200);
    expect(account.body.data.email).toBe(ctx.attacker.email);
    expectNoLeak(account, "account");
    const victimsLink = await ctx.asAttacker("GET", `/api/v1/links/${victimLink.id}`, undefined, forged);
    expectV1Error(victimsLink, 404, "NOT_FOUND");
    const list = await ctx.asAttacker("GET", "/api/v1/links", undefined, forged);
    expect(list.status).toBe(200);
    expectNoLeak(list, "list");
    const legacy = await ctx.asAttacker("GET", "/api/account", undefined, forged);
    expect(legacy.status).toBe(200);
    expectNoLeak(legacy, "legacy account");
  });

  it("give no identity without a key, whatever credential they carry", async () => {
    for (const forged of [
      { "x-kurz-account-id": ctx.victim.account_id, "x-kurz-internal-token": secret },
      forwardedHeaders(secret, { accountId: ctx.victim.account_id }),
      { ...internalHeaders(secret, "gateway"), "x-kurz-account-id": ctx.victim.account_id },
    ]) {
      const res = await raw(bed.stack.origin, "GET", "/api/v1/links", { headers: forged });
      expectV1Error(res, 401, "UNAUTHORIZED");
      expectNoLeak(res, JSON.stringify(Object.keys(forged)));
    }
  });
});

describe("internal endpoints called directly", () => {
  const resolvePath = () => `/internal/links/resolve/${victimLink.code}`;
  const keyPath = () => `/internal/keys/${createHash("sha256").update(ctx.victim.api_key).digest("hex")}`;

  it("refuse the raw secret, the forwarding credential and the wrong caller with 401", async () => {
    const attempts: [string, Record<string, string>][] = [
      [resolvePath(), {}],
      [resolvePath(), { "x-kurz-internal-token": secret }],
      [resolvePath(), { "x-kurz-internal-token": forwardToken(secret) }],
      [resolvePath(), internalHeaders(secret, "gateway")],
      [resolvePath(), internalHeaders(secret, "analytics")],
      [keyPath(), { "x-kurz-internal-token": secret }],
      [keyPath(), internalHeaders(secret, "redirect")],
      [keyPath(), { "x-kurz-internal-token": callerToken("some-other-secret", "gateway") }],
      ["/internal/domains/resolve/go.bank.test", internalHeaders(secret, "gateway")],
      ["/internal/rotators/resolve/spring", { "x-kurz-internal-token": secret }],
      ["/internal/overlays/resolve/1", internalHeaders(secret, "gateway")],
      ["/internal/overlays/resolve/1", {}],
    ];
    for (const [path, headers] of attempts) {
      const res = await raw(bed.stack.urls.management, "GET", path, { headers });
      expectV1Error(res, 401, "UNAUTHORIZED");
      expectNoLeak(res, `${path} ${JSON.stringify(headers)}`);
    }
  });

  it("refuse any request that carries end-user identity or the forwarding credential with 403, even from the right caller", async () => {
    for (const extra of [
      { "x-kurz-account-id": ctx.victim.account_id },
      { "x-kurz-key-id": "00000000-0000-4000-8000-000000000000" },
      forwardedHeaders(secret),
      forwardedHeaders(secret, { accountId: ctx.victim.account_id }),
    ]) {
      for (const [path, caller] of [
        [resolvePath(), "redirect"],
        [keyPath(), "gateway"],
      ] as const) {
        const res = await raw(bed.stack.urls.management, "GET", path, {
          headers: { ...internalHeaders(secret, caller), ...extra },
        });
        expectV1Error(res, 403, "FORBIDDEN");
        expectNoLeak(res, `${path} ${JSON.stringify(extra)}`);
      }
    }
  });

  it("answer the right caller with its own credential (the control case)", async () => {
    const resolved = await raw(bed.stack.urls.management, "GET", resolvePath(), {
      headers: internalHeaders(secret, "redirect"),
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body.url).toBe(victimLink.destination);
    const key = await raw(bed.stack.urls.management, "GET", keyPath(), {
      headers: internalHeaders(secret, "gateway"),
    });
    expect(key.status).toBe(200);
    expect(key.body.account_id).toBe(ctx.victim.account_id);
  });

  it("management's and analytics' user routes take only the forwarding credential, never the raw secret or a caller's", async () => {
    const identity = { "x-kurz-account-id": ctx.victim.account_id };
    for (const [base, path] of [
      [bed.stack.urls.management, `/api/v1/links/${victimLink.id}`],
      [bed.stack.urls.management, "/api/account"],
      [bed.stack.urls.analytics, `/api/v1/analytics/${victimLink.id}`],
    ] as const) {
      for (const credential of [
        { "x-kurz-internal-token": secret },
        { "x-kurz-forward-token": secret },
        internalHeaders(secret, "gateway"),
        internalHeaders(secret, "analytics"),
      ]) {
        const res = await raw(base, "GET", path, { headers: { ...identity, ...credential } });
        expect(res.status, `${path} ${JSON.stringify(credential)}: ${res.text}`).toBe(401);
        expectNoLeak(res, path);
      }
    }
  });
});

/** mulberry32: a small seeded generator, so a failing fuzz case can be replayed. */
function seeded(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("the OpenAPI document, built on its first request", () => {
  const DOC = "/api/v1/openapi.json";

  it("answers concurrent first requests alike, and names only public API routes and no secret", async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => raw(bed.stack.origin, "GET", DOC)));
    for (const res of answers) {
      expect(res.status, res.text).toBe(200);
      expect(String(res.headers["content-type"])).toMatch(/^application\/json/);
      expect(res.text).toBe(answers[0]!.text);
    }
    const paths = Object.keys(answers[0]!.body.paths);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => !p.startsWith("/api/"))).toEqual([]);
    expect(answers[0]!.text).not.toContain(secret);
    expect(answers[0]!.text.toLowerCase()).not.toContain("x-kurz-");
  });

  it("refuses other methods and path tricks in the v1 envelope, and the document stays as it was", async () => {
    const before = await raw(bed.stack.origin, "GET", DOC);
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const res = await raw(bed.stack.origin, method, DOC, {
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expectV1Error(res, 405, "METHOD_NOT_ALLOWED");
    }
    for (const path of [
      `${DOC}/%2e%2e/%2e%2e/%2e%2e/internal/links/resolve/${victimLink.code}`,
      "/api/v1/links/%2e%2e/openapi.json",
      `${DOC}/..\\..\\..\\internal`,
    ])
      expectPathRefusal(await raw(bed.stack.origin, "GET", path), "v1", path);
    expect((await raw(bed.stack.origin, "GET", DOC)).text).toBe(before.text);
  });
});

describe("fuzzed paths", () => {
  it("never answer 5xx and never leak the victim's link, over a few hundred seeded paths", async () => {
    const seed = Number(process.env.KURZ_FUZZ_SEED ?? 1123);
    const random = seeded(seed);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const pieces = [
      "..",
      ".",
      "%2e%2e",
      "%2E",
      ".%2e",
      "%2f",
      "%2F",
      "%5c",
      "\\",
      "",
      "%00",
      "%0a",
      "%c0%ae",
      "%ef%bc%8e",
      "%ef%bc%8f",
      "%252e",
      "..;",
      "%20",
      "%",
      "%zz",
      "caf%C3%A9",
      "~",
      "internal",
      "links",
      "resolve",
      "keys",
      victimLink.code,
      victimLink.id,
      "v1",
      "api",
    ];
    const separators = ["/", "/", "/", "\\", "//", "%2f", "/./"];
    const prefixes = [...PREFIXES.map(([p]) => p), "/api", "/api/v1", "/api/v1/links/bulk", "/c/x"];
    const methods = ["GET", "GET", "GET", "HEAD", "POST", "DELETE", "PATCH"];
    const deadline = Date.now() + 45_000;
    const statuses = new Map<number, number>();
    let sent = 0;
    for (let i = 0; i < 300 && Date.now() < deadline; i++) {
      let path = pick(prefixes);
      const n = 1 + Math.floor(random() * 6);
      for (let s = 0; s < n; s++) path += pick(separators) + pick(pieces);
      if (random() < 0.05) path += `/${"x".repeat(2100)}`;
      const method = pick(methods);
      const res = await ctx.asAttacker(
        method,
        path,
        method === "POST" || method === "PATCH" ? {} : undefined,
      );
      sent++;
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect(res.status, `seed ${seed} #${i}: ${method} ${path}: ${res.text}`).toBeLessThan(500);
      expectNoLeak(res, `seed ${seed} #${i}: ${method} ${path}`);
    }
    expect(sent).toBeGreaterThanOrEqual(100);
    // Most generated paths are ambiguous: the refusal is what the loop mostly exercises.
    expect(statuses.get(400) ?? 0).toBeGreaterThan(sent / 3);
    const after = await ctx.asVictim("GET", `/api/v1/links/${victimLink.id}`);
    expect(after.status).toBe(200);
    expect(after.body.data.original_url).toBe(victimLink.destination);
  });
});

// The gateway's per-client budgets count an IPv6 client by its /64, as the redirect's do: one line or
// host is routinely given a whole /64, and rotating through it must not buy a fresh budget per address.
// Clients are told apart by X-Forwarded-For (the stack trusts it); these addresses are this test's own.
describe("per-client budgets of IPv6 clients", () => {
  const from = (ip: string, key?: string) => (path: string) =>
    raw(bed.stack.origin, "GET", path, {
      headers: { "x-forwarded-for": ip, ...(key ? { authorization: `Bearer ${key}` } : {}) },
    });

  it("failed authentications from every address of one /64 spend one budget; the next /64 has its own", async () => {
    await withMinuteLeft(8);
    let refusedAt = -1;
    for (let i = 1; i <= AUTH_FAILURES_PER_MINUTE + 1; i++) {
      const res = await from(
        `2001:db8:4a:1::${i.toString(16)}`,
        `kurz_live_${String(i).padStart(32, "V")}`,
      )("/api/v1/links");
      if (res.status === 429) {
        refusedAt = i;
        break;
      }
      expectV1Error(res, 401, "UNAUTHORIZED");
    }
    expect(refusedAt).toBe(AUTH_FAILURES_PER_MINUTE + 1);
    const sameNetwork = await from(
      "2001:db8:4a:1:ffff:ffff:ffff:fffe",
      ctx.attacker.api_key,
    )("/api/v1/links");
    expectV1Error(sameNetwork, 429, "RATE_LIMIT_EXCEEDED");
    const nextNetwork = await from("2001:db8:4a:2::1", `kurz_live_${"W".repeat(32)}`)("/api/v1/links");
    expectV1Error(nextNetwork, 401, "UNAUTHORIZED");
  });

  it("public analytics from two addresses of one /64 draw on one budget", async () => {
    await withMinuteLeft(8);
    const path = `/api/v1/public/analytics/${victimLink.code}`;
    const first = await from("2001:db8:4b:1::1")(path);
    const second = await from("2001:db8:4b:1::2")(path);
    const other = await from("2001:db8:4b:2::1")(path);
    const left = (res: RawResponse) => Number(res.headers["x-ratelimit-remaining"]);
    expect(left(second), second.text).toBe(left(first) - 1);
    expect(left(other), other.text).toBe(left(first));
  });
});

// Last: once the budget is spent, every keyed request from this client is refused for the minute.
describe("a flood of bad keys (item 4)", () => {
  it("counts failures per client with X-RateLimit-* headers, then answers 429 without checking keys", async () => {
    // Start with enough of the clock minute left that the window cannot reset mid-flood: 35 requests
    // take about a second, so 8 s is room enough (15 s makes a quarter of the runs wait).
    await withMinuteLeft(8);
    let remaining = Number.POSITIVE_INFINITY;
    let refusedAt = -1;
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE + 5; i++) {
      const res = await api(bed.stack, `kurz_live_${String(i).padStart(32, "Z")}`)("GET", "/api/v1/links");
      expect(res.headers["x-ratelimit-limit"], res.text).toBe(String(AUTH_FAILURES_PER_MINUTE));
      expect(Number(res.headers["x-ratelimit-reset"])).toBeGreaterThan(Date.now() / 1000 - 1);
      if (res.status === 429) {
        refusedAt = i;
        break;
      }
      expectV1Error(res, 401, "UNAUTHORIZED");
      const left = Number(res.headers["x-ratelimit-remaining"]);
      expect(left).toBeLessThan(remaining);
      remaining = left;
    }
    // Earlier tests spent a few failures of this client's budget; the flood spends the rest.
    expect(refusedAt).toBeGreaterThan(0);
    expect(refusedAt).toBeLessThanOrEqual(AUTH_FAILURES_PER_MINUTE);
    expect(remaining).toBe(0);

    const flooded = await api(bed.stack, `kurz_live_${"Q".repeat(32)}`)("GET", "/api/v1/links");
    expectV1Error(flooded, 429, "RATE_LIMIT_EXCEEDED");
    expect(flooded.headers["x-ratelimit-remaining"]).toBe("0");
    expect(Number(flooded.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(flooded.body.error.details).toMatchObject({ limit: AUTH_FAILURES_PER_MINUTE, window: "1m" });
    const legacy = await api(bed.stack, "nope")("GET", "/api/account");
    expectLegacyError(legacy, 429);
    // The budget is the client's: a valid key from the same client waits out the minute too.
    expectV1Error(await ctx.asAttacker("GET", "/api/v1/links"), 429, "RATE_LIMIT_EXCEEDED");
  });
});
