// GET /api/v1/account and /api/v1/account/usage through the gateway: the documented fields and types,
// live totals, last_used_at recorded without a database write per request, tenant isolation.
import { waitFor } from "@kurz/testing";
import type { Stack } from "@kurz/testing/stack";
import { useStack } from "@kurz/testing/use-stack";
import { beforeAll, describe, expect, it } from "vitest";
import { expectV1Fields, KEY_FIELDS } from "./links-helpers.ts";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("account and usage", () => {
  // A short flush interval, so the test sees last_used_at reach Postgres quickly.
  const bed = useStack({ inProcess: true, extraEnv: { KEY_USAGE_FLUSH_MS: "300" } });
  type Account = Awaited<ReturnType<Stack["createAccount"]>>;
  let alice: Account;
  let bob: Account;

  beforeAll(async () => {
    const email = (label: string) => `account-${label}-${process.pid}-${Date.now()}@example.com`;
    [alice, bob] = await Promise.all([
      bed.stack.createAccount(email("alice"), 25),
      bed.stack.createAccount(email("bob")),
    ]);
  });

  // biome-ignore lint/suspicious/noExplicitAny: assertions check the shape member by member
  async function get(key: string, path: string): Promise<{ status: number; headers: Headers; body: any }> {
    const res = await fetch(`${bed.stack.origin}/api/v1${path}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    return { status: res.status, headers: res.headers, body: await res.json() };
  }

  async function createLink(key: string, url: string) {
    const res = await fetch(`${bed.stack.origin}/api/v1/links`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ url, title: "t" }),
    });
    expect(res.status).toBe(201);
  }

  it("answers the account with the documented fields and types, and its plan status and key rate limits", async () => {
    const res = await get(alice.api_key, "/account");
    expect(res.headers.get("x-ratelimit-limit")).toBe("60");
    const a = expectV1Fields(res, 200, [
      "created_at",
      "default_expiry_hours",
      "email",
      "id",
      "link_limit",
      "total_clicks",
      "total_links",
      // Beyond SnipURL's account object: what an operator sets (./kurz accounts:update).
      "status",
      "rate_limit_per_minute",
      "rate_limit_per_hour",
      // The default of new links' forward_query (docs/smart-links.md).
      "forward_query",
      // How often the links' destinations are checked (docs/health.md).
      "health_check_interval",
    ]);
    expect(a.status).toBe("free");
    expect(a.forward_query).toBe(true);
    expect(a.health_check_interval).toBe("daily");
    expect(a.rate_limit_per_minute).toBe(60);
    expect(a.rate_limit_per_hour).toBe(1000);
    expect(a.id).toBe(alice.account_id);
    expect(a.email).toBe(alice.email);
    expect(a.link_limit).toBe(25);
    expect(a.default_expiry_hours).toBeNull();
    expect(a.total_links).toBe(0);
    expect(a.total_clicks).toBe(0);
    expect(a.created_at).toMatch(TIMESTAMP);
  });

  it("reports live totals: links as they are created, clicks as analytics stores them", async () => {
    await createLink(alice.api_key, "https://example.com/one");
    await createLink(alice.api_key, "https://example.com/two");
    expect((await get(alice.api_key, "/account")).body.data.total_links).toBe(2);
    // total_clicks is kept current by the click-totals consumer; the endpoint reads it as stored.
    await bed.prisma.account.update({ where: { id: alice.account_id }, data: { totalClicks: 1234n } });
    await bed.prisma.account.update({ where: { id: alice.account_id }, data: { defaultExpiryHours: 48 } });
    const a = (await get(alice.api_key, "/account")).body.data;
    expect(a.total_clicks).toBe(1234);
    expect(a.default_expiry_hours).toBe(48);
    // Another account's links and clicks are not counted.
    const b = (await get(bob.api_key, "/account")).body.data;
    expect(b.id).toBe(bob.account_id);
    expect(b.total_links).toBe(0);
    expect(b.total_clicks).toBe(0);
    expect(b.link_limit).toBe(500);
    // total_links is the stored count (decision 0037): a delete takes it down in the same transaction.
    const list = await get(alice.api_key, "/links");
    const del = await fetch(`${bed.stack.origin}/api/v1/links/${list.body.data[0].id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${alice.api_key}` },
    });
    expect(del.status).toBe(200);
    expect((await get(alice.api_key, "/account")).body.data.total_links).toBe(1);
    expect(list.body.meta.total).toBe(2);
  });

  it("answers usage with exactly the documented fields and types", async () => {
    const res = await get(bob.api_key, "/account/usage");
    expect(res.status).toBe(200);
    const u = res.body.data;
    expect(Object.keys(u).sort()).toEqual(["active_keys", "current_key", "keys"]);
    expect(Object.keys(u.current_key).sort()).toEqual([
      "id",
      "name",
      "rate_limit_per_hour",
      "rate_limit_per_minute",
    ]);
    expect(u.current_key.name).toBe("Default key");
    expect(u.current_key.rate_limit_per_minute).toBe(60);
    expect(u.current_key.rate_limit_per_hour).toBe(1000);
    expect(u.active_keys).toBe(1);
    expect(u.keys).toHaveLength(1);
    const k = u.keys[0];
    expect(Object.keys(k).sort()).toEqual(KEY_FIELDS);
    expect(k.id).toBe(u.current_key.id);
    expect(k.key_prefix).toBe(bob.api_key.slice(0, 14));
    expect(k.expires_at).toBeNull();
    expect(k.created_at).toMatch(TIMESTAMP);
    expect(k.last_used_at === null || TIMESTAMP.test(k.last_used_at)).toBe(true);
    expect(JSON.stringify(u)).not.toContain(bob.api_key);
  });

  it("lists only the caller's own keys", async () => {
    const aliceUsage = (await get(alice.api_key, "/account/usage")).body.data;
    const bobUsage = (await get(bob.api_key, "/account/usage")).body.data;
    const aliceIds = aliceUsage.keys.map((k: { id: string }) => k.id);
    for (const k of bobUsage.keys) expect(aliceIds).not.toContain(k.id);
    expect(aliceUsage.current_key.id).not.toBe(bobUsage.current_key.id);
  });

  it("records last_used_at within seconds, and persists it to Postgres without a write per request", async () => {
    const before = Date.now();
    await get(alice.api_key, "/account");
    let lastUsed: string | null = null;
    await waitFor(
      async () => {
        lastUsed = (await get(alice.api_key, "/account/usage")).body.data.keys[0].last_used_at;
        return lastUsed !== null && Date.parse(lastUsed) >= before - 1000;
      },
      { timeoutMs: 5000 },
    );
    expect(Date.parse(lastUsed!)).toBeLessThanOrEqual(Date.now());
    await waitFor(
      async () => {
        const key = await bed.prisma.apiKey.findFirstOrThrow({ where: { accountId: alice.account_id } });
        return key.lastUsedAt !== null && key.lastUsedAt.getTime() >= before - 1000;
      },
      { timeoutMs: 10_000 },
    );
  });

  it("answers 405 with Allow for other methods", async () => {
    // PATCH /account is the account's settings.
    for (const [path, allow] of [
      ["/account", "GET, PATCH, HEAD"],
      ["/account/usage", "GET, HEAD"],
    ] as const) {
      const res = await fetch(`${bed.stack.origin}/api/v1${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${alice.api_key}` },
      });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe(allow);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("METHOD_NOT_ALLOWED");
    }
  });
});
