// POST /api/v1/account/keys and DELETE /api/v1/account/keys/:id through the gateway: the key shown
// once, validation, the limit of 10 active keys, revocation taking effect at once, tenant isolation.
import { waitFor } from "@kurz/testing";
import type { Stack } from "@kurz/testing/stack";
import { useStack } from "@kurz/testing/use-stack";
import { beforeAll, describe, expect, it } from "vitest";
import { expectV1Fields, KEY_FIELDS } from "./links-helpers.ts";

interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: assertions check the shape member by member
  body: any;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("API keys", () => {
  // Distinct from the defaults, to show that management stores its configured limits on new keys.
  const bed = useStack({
    inProcess: true,
    extraEnv: { RATE_LIMIT_PER_MINUTE: "600", RATE_LIMIT_PER_HOUR: "6000" },
  });
  type Account = Awaited<ReturnType<Stack["createAccount"]>>;
  // Accounts are made once (each costs a CLI run): one for most tests, one each for tests that count
  // or revoke every key of an account, and one as the "other tenant".
  let main: Account;
  let limited: Account;
  let selfRevoking: Account;
  let other: Account;

  beforeAll(async () => {
    const email = (label: string) => `keys-${label}-${process.pid}-${Date.now()}@example.com`;
    [main, limited, selfRevoking, other] = await Promise.all([
      bed.stack.createAccount(email("main")),
      bed.stack.createAccount(email("limited")),
      bed.stack.createAccount(email("self")),
      bed.stack.createAccount(email("other")),
    ]);
  });

  async function call(key: string, method: string, path: string, body?: unknown, contentType?: string) {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers["content-type"] = contentType ?? "application/json";
    const res = await fetch(`${bed.stack.origin}/api/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null } as Reply;
  }
  const createKey = (key: string, body: unknown) => call(key, "POST", "/account/keys", body);

  function expectError(res: Reply, status: number, code: string) {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe(code);
    expect(typeof res.body.error.message).toBe("string");
  }

  it("creates a key, shows it once, and the key works at once", async () => {
    const { api_key } = main;
    const res = await createKey(api_key, { name: "  CI deploys  " });
    const k = expectV1Fields(res, 201, [...KEY_FIELDS, "key"]);
    expect(k.id).toMatch(UUID);
    expect(k.key).toMatch(/^kurz_live_[0-9A-Za-z]{32}$/);
    expect(k.key_prefix).toBe(k.key.slice(0, 14));
    expect(k.name).toBe("CI deploys");
    expect(k.expires_at).toBeNull();
    expect(k.last_used_at).toBeNull();
    expect(k.rate_limit_per_minute).toBe(600);
    expect(k.rate_limit_per_hour).toBe(6000);
    expect(k.created_at).toMatch(TIMESTAMP);

    const usage = await call(k.key, "GET", "/account/usage");
    expect(usage.status).toBe(200);
    expect(usage.body.data.current_key).toEqual({
      id: k.id,
      name: "CI deploys",
      rate_limit_per_minute: 600,
      rate_limit_per_hour: 6000,
    });
    // Only the hash is stored: no later response carries the key again.
    expect(JSON.stringify(usage.body)).not.toContain(k.key);
    const stored = await bed.prisma.apiKey.findUniqueOrThrow({ where: { id: k.id } });
    expect(JSON.stringify(stored)).not.toContain(k.key);
  });

  it("accepts an expiry in the future and stores it", async () => {
    const { api_key } = main;
    const expires = new Date(Date.now() + 86_400_000);
    const res = await createKey(api_key, { name: "temp", expires_at: expires.toISOString() });
    expect(res.status).toBe(201);
    expect(res.body.data.expires_at).toBe(expires.toISOString());
    // A moment a year ahead (whole seconds), written at an offset of +01:00: stored as that moment.
    const ahead = new Date(Math.floor((Date.now() + 365 * 86_400_000) / 1000) * 1000);
    const atOffset = `${new Date(ahead.getTime() + 3_600_000).toISOString().slice(0, 19)}+01:00`;
    const withOffset = await createKey(api_key, { name: "offset", expires_at: atOffset });
    expect(withOffset.status).toBe(201);
    expect(withOffset.body.data.expires_at).toBe(ahead.toISOString());
  });

  it.each([
    ["no body", undefined],
    ["no name", {}],
    ["an empty name", { name: "" }],
    ["a blank name", { name: "   " }],
    ["a name over 100 characters", { name: "x".repeat(101) }],
    ["a non-string name", { name: 42 }],
    ["a malformed expiry", { name: "k", expires_at: "tomorrow" }],
    ["an expiry without a time zone", { name: "k", expires_at: "2099-01-01T00:00:00" }],
    ["an expiry in the past", { name: "k", expires_at: "2020-01-01T00:00:00Z" }],
    ["an array body", [{ name: "k" }]],
  ])("refuses %s with 400 VALIDATION_ERROR and creates nothing", async (_label, body) => {
    const { api_key, account_id } = main;
    const before = await bed.prisma.apiKey.count({ where: { accountId: account_id } });
    const res = await createKey(api_key, body);
    expectError(res, 400, "VALIDATION_ERROR");
    expect(await bed.prisma.apiKey.count({ where: { accountId: account_id } })).toBe(before);
  });

  it("answers malformed JSON with 400 and a non-JSON body with 415", async () => {
    const { api_key } = main;
    expectError(await createKey(api_key, '{"name": '), 400, "VALIDATION_ERROR");
    expectError(
      await call(api_key, "POST", "/account/keys", "name=x", "text/plain"),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
  });

  it("allows at most 10 active keys, even under concurrent creates; revoked and expired keys free a slot", async () => {
    const { api_key, account_id } = limited;
    // The default key plus 7 makes 8; five concurrent creates may add exactly two more.
    for (let i = 0; i < 7; i++) expect((await createKey(api_key, { name: `k${i}` })).status).toBe(201);
    const burst = await Promise.all(
      Array.from({ length: 5 }, (_, i) => createKey(api_key, { name: `b${i}` })),
    );
    expect(burst.filter((r) => r.status === 201)).toHaveLength(2);
    for (const r of burst.filter((r) => r.status !== 201)) {
      expectError(r, 403, "FORBIDDEN");
      expect(r.body.error.message).toContain("10");
    }
    expect(await bed.prisma.apiKey.count({ where: { accountId: account_id } })).toBe(10);

    const usage = await call(api_key, "GET", "/account/usage");
    expect(usage.body.data.active_keys).toBe(10);
    const victim = usage.body.data.keys.find((k: { name: string }) => k.name === "k0");
    expect((await call(api_key, "DELETE", `/account/keys/${victim.id}`)).status).toBe(200);
    expect((await createKey(api_key, { name: "after revoke" })).status).toBe(201);
    expectError(await createKey(api_key, { name: "over" }), 403, "FORBIDDEN");

    // An expired key no longer counts.
    const other = usage.body.data.keys.find((k: { name: string }) => k.name === "k1");
    await bed.prisma.apiKey.update({
      where: { id: other.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await createKey(api_key, { name: "after expiry" })).status).toBe(201);
  });

  it("revokes a key: refused at once with KEY_REVOKED, even while cached", async () => {
    const { api_key } = main;
    const created = (await createKey(api_key, { name: "to revoke" })).body.data;
    // Used first, so the gateway has it cached.
    expect((await call(created.key, "GET", "/account")).status).toBe(200);

    const res = await call(api_key, "DELETE", `/account/keys/${created.id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { id: created.id, revoked: true, revoked_at: expect.stringMatching(TIMESTAMP) },
    });
    const refused = await call(created.key, "GET", "/account");
    expectError(refused, 401, "KEY_REVOKED");
    // A refused key has no budget of its own: the answer reports the client's failed-authentication one.
    expect(refused.headers.get("x-ratelimit-limit")).toBe("30");

    // Idempotent: the same answer again.
    const again = await call(api_key, "DELETE", `/account/keys/${created.id}`);
    expect(again.status).toBe(200);
    expect(again.body.data.revoked_at).toBe(res.body.data.revoked_at);

    const usage = (await call(api_key, "GET", "/account/usage")).body.data;
    expect(usage.keys.map((k: { id: string }) => k.id)).not.toContain(created.id);
    expect(usage.active_keys).toBe(
      await bed.prisma.apiKey.count({
        where: {
          accountId: main.account_id,
          revokedAt: null,
          OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }],
        },
      }),
    );
  });

  it("lets a key revoke itself", async () => {
    const { api_key } = selfRevoking;
    const usage = (await call(api_key, "GET", "/account/usage")).body.data;
    expect((await call(api_key, "DELETE", `/account/keys/${usage.current_key.id}`)).status).toBe(200);
    expectError(await call(api_key, "GET", "/account"), 401, "KEY_REVOKED");
  });

  it("refuses an expired key with KEY_EXPIRED", async () => {
    const { api_key } = main;
    const created = (
      await createKey(api_key, { name: "short-lived", expires_at: new Date(Date.now() + 1500).toISOString() })
    ).body.data;
    expect((await call(created.key, "GET", "/account")).status).toBe(200);
    await waitFor(async () => (await call(created.key, "GET", "/account")).status === 401, {
      timeoutMs: 5000,
    });
    expectError(await call(created.key, "GET", "/account"), 401, "KEY_EXPIRED");
    const usage = (await call(api_key, "GET", "/account/usage")).body.data;
    // Listed (its owner should see why it stopped working) but not active.
    expect(usage.keys.map((k: { id: string }) => k.id)).toContain(created.id);
    expect(usage.active_keys).toBe(usage.keys.length - 1);
  });

  it("answers 404 for unknown and foreign key ids, 400 for malformed ones, and touches nothing", async () => {
    const alice = main;
    const bob = other;
    const bobKey = (await createKey(bob.api_key, { name: "bob's" })).body.data;

    expectError(
      await call(alice.api_key, "DELETE", "/account/keys/00000000-0000-4000-8000-000000000000"),
      404,
      "NOT_FOUND",
    );
    expectError(await call(alice.api_key, "DELETE", `/account/keys/${bobKey.id}`), 404, "NOT_FOUND");
    expectError(await call(alice.api_key, "DELETE", "/account/keys/not-a-uuid"), 400, "VALIDATION_ERROR");
    expect((await call(bobKey.key, "GET", "/account")).status).toBe(200);
    expect((await bed.prisma.apiKey.findUniqueOrThrow({ where: { id: bobKey.id } })).revokedAt).toBeNull();
  });

  it("answers 405 with Allow for other methods", async () => {
    const { api_key } = main;
    const list = await call(api_key, "GET", "/account/keys");
    expectError(list, 405, "METHOD_NOT_ALLOWED");
    expect(list.headers.get("allow")).toBe("POST");
    const put = await call(api_key, "PUT", "/account/keys/00000000-0000-4000-8000-000000000000", {});
    expectError(put, 405, "METHOD_NOT_ALLOWED");
    expect(put.headers.get("allow")).toBe("DELETE");
  });
});
