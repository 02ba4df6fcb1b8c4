// Leaving for good across every store (docs/workspaces.md, "Leaving for good"): a person with a
// workspace of their own (links with clicks in ClickHouse, a domain, a webhook, keys) and a membership
// in someone else's deletes themselves. Afterwards Postgres, Redis and ClickHouse are read directly
// and hold nothing of them or of their workspace, apart from the tombstones that refuse late writes
// and the retired codes, which name no one; the other workspace is intact and its links redirect.
// On both buses: with Kafka the workspace's link events and its deletion travel on different partitions.
import { createHash } from "node:crypto";
import { startKafkaMock } from "@kurz/bus/testing";
import { createClickHouse, type KurzClickHouse } from "@kurz/clickhouse";
import { NO_WORKSPACE, SESSION_TOMBSTONE } from "@kurz/contracts";
import { createPrisma, type PrismaClient } from "@kurz/db";
import { uniquePrefix, waitFor } from "@kurz/testing";
import { type Stack, stackTopics, startStack } from "@kurz/testing/stack";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const HOOK_HOST = "127.0.0.1";
let stack: Stack;
let prisma: PrismaClient;
let redis: Redis;
let ch: KurzClickHouse;

/** The bus the stack runs on: Redis Streams (one ordered stream a topic), or Kafka with 3 partitions. */
const buses = [
  {
    name: "redis streams",
    start: () => startStack({ inProcess: true, extraEnv: { WEBHOOK_ALLOW_HOSTS: HOOK_HOST } }),
  },
  {
    name: "kafka (librdkafka mock)",
    start: async (): Promise<Stack> => {
      const prefix = uniquePrefix("e2e-leave-kafka");
      const kafka = await startKafkaMock({ topics: stackTopics(prefix), partitions: 3 });
      const started = await startStack({
        inProcess: true,
        prefix,
        bus: "kafka",
        kafkaBrokers: kafka.brokers,
        extraEnv: {
          WEBHOOK_ALLOW_HOSTS: HOOK_HOST,
          KAFKA_SESSION_TIMEOUT_MS: "3000",
          KAFKA_REBALANCE_TIMEOUT_MS: "3000",
          KAFKA_HEARTBEAT_MS: "300",
        },
      });
      return {
        ...started,
        stop: async () => {
          await started.stop();
          await kafka.stop();
        },
      };
    },
  },
];

interface Who {
  cookie?: string;
  csrf?: string;
  key?: string;
  workspace?: string;
}

async function call(method: string, path: string, who: Who, body?: unknown) {
  const headers: Record<string, string> = {};
  if (who.cookie) headers.cookie = `kurz_session=${who.cookie}`;
  if (who.csrf) headers["x-csrf-token"] = who.csrf;
  if (who.key) headers.authorization = `Bearer ${who.key}`;
  if (who.workspace) headers["x-workspace-id"] = who.workspace;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${stack.origin}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: the test asserts on the shape member by member
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, body: json, headers: res.headers };
}

const cookieOf = (headers: Headers) => /kurz_session=([^;]+)/.exec(headers.get("set-cookie") ?? "")![1]!;
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

async function register(tag: string) {
  const email = `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = `pw-${tag}-long-enough`;
  const res = await call("POST", "/api/v1/auth/register", {}, { email, password });
  expect(res.status, res.text).toBe(201);
  return {
    email,
    password,
    accountId: res.body.data.account.id as string,
    key: res.body.data.api_key.key as string,
    session: { cookie: cookieOf(res.headers), csrf: res.body.data.session.csrf_token as string },
  };
}

async function createLink(key: string, url: string, workspace?: string) {
  const res = await call("POST", "/api/v1/links", { key, ...(workspace ? { workspace } : {}) }, { url });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; short_code: string; short_url: string };
}

const follow = (shortUrl: string) =>
  fetch(shortUrl, {
    redirect: "manual",
    headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0" },
  });

/** Every value Redis holds under `key`, as text (streams are the bus's log and are read apart). */
async function valuesOf(key: string): Promise<string[]> {
  const type = await redis.type(key);
  if (type === "string") return [(await redis.get(key)) ?? ""];
  if (type === "hash") return Object.entries(await redis.hgetall(key)).flat();
  if (type === "set") return redis.smembers(key);
  if (type === "zset") return redis.zrange(key, 0, -1);
  if (type === "list") return redis.lrange(key, 0, -1);
  return [];
}

describe.each(buses)("leaving for good ($name bus, embedded ClickHouse)", ({ name, start }) => {
  beforeAll(async () => {
    stack = await start();
    prisma = createPrisma(stack.databaseUrl);
    redis = new Redis(stack.env.REDIS_URL!);
    // The analytics service's own data directory, opened beside it in this process (one chDB engine).
    ch = await createClickHouse({
      path: stack.env.CLICKHOUSE_PATH!,
      database: stack.env.CLICKHOUSE_DATABASE ?? "kurz",
    });
  }, 120_000);

  afterAll(async () => {
    await ch?.close();
    redis?.disconnect();
    await prisma?.$disconnect();
    await stack?.stop();
  });

  it("deletes the person and their own workspace from Postgres, Redis and ClickHouse; the shared one stays", async () => {
    const leaver = await register("leaver");
    const other = await register("stays");
    const me = await call("GET", "/api/v1/auth/session", leaver.session);
    const userId = me.body.data.user_id as string;
    const own = leaver.accountId;

    // The leaver in someone else's workspace: a member with a key and a link of the workspace's there.
    const invited = await call("POST", `/api/v1/workspaces/${other.accountId}/invitations`, other.session, {
      email: leaver.email,
      role: "member",
    });
    expect(invited.status, invited.text).toBe(201);
    const token = /#invitation=([A-Za-z0-9_-]+)$/.exec(invited.body.data.accept_url)![1]!;
    const accepted = await call(
      "POST",
      `/api/v1/invitations/${token}/accept`,
      {},
      { password: leaver.password },
    );
    expect(accepted.status, accepted.text).toBe(200);
    const inShared = await call(
      "POST",
      "/api/v1/account/keys",
      { ...leaver.session, workspace: other.accountId },
      { name: "mine there", current_password: leaver.password },
    );
    expect(inShared.status, inShared.text).toBe(201);
    const sharedKey = inShared.body.data.key as string;
    const sharedLink = await createLink(sharedKey, "https://example.org/shared-stays");

    // Their own workspace: links with clicks, a domain, a webhook, a second key.
    const links = [
      await createLink(leaver.key, "https://example.com/leaver-one"),
      await createLink(leaver.key, "https://example.com/leaver-two"),
    ];
    for (const link of links) expect((await follow(link.short_url)).status).toBe(302);
    const host = `leave-${Date.now()}.example`;
    const domain = await call("POST", "/api/domain/add", { key: leaver.key }, { domain: `https://${host}` });
    expect(domain.status, domain.text).toBe(200);
    const hook = await call(
      "POST",
      "/api/v1/webhooks",
      { key: leaver.key },
      {
        url: `http://${HOOK_HOST}:9/kurz`,
        events: ["link.created", "link.deleted"],
      },
    );
    expect(hook.status, hook.text).toBe(201);
    const endpointId = hook.body.data.id as string;
    const second = await call("POST", "/api/v1/account/keys", leaver.session, {
      name: "second",
      current_password: leaver.password,
    });
    expect(second.status, second.text).toBe(201);
    const keys = [leaver.key, second.body.data.key as string, sharedKey];

    // The clicks are in ClickHouse before anything is deleted.
    const linkIds = links.map((l) => l.id);
    await waitFor(
      async () => {
        const [row] = await ch.query<{ n: number }>(
          "SELECT count() AS n FROM clicks WHERE link_id IN {ids:Array(UUID)}",
          { ids: linkIds },
        );
        return Number(row?.n) >= 2 || undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, description: "the clicks to reach ClickHouse" },
    );

    // What ClickHouse holds of the workspace, table by table: its clicks and rollups now.
    const chTables = await ch.query<{ name: string; columns: string[] }>(
      `SELECT t.name AS name, groupArray(c.name) AS columns FROM system.tables t
       JOIN system.columns c ON c.database = t.database AND c.table = t.name
       WHERE t.database = currentDatabase() AND t.engine LIKE '%MergeTree%' GROUP BY t.name`,
    );
    const codes = links.map((l) => l.short_code);
    const chLeft = async () => {
      const found: Record<string, number> = {};
      for (const { name, columns } of chTables) {
        const where: string[] = [];
        if (columns.includes("account_id")) where.push("account_id = {account:UUID}");
        if (columns.includes("short_code")) where.push("short_code IN {codes:Array(String)}");
        // The link dimension keeps a tombstone per deleted link, naming no workspace (checked below).
        if (columns.includes("link_id") && name !== "links") where.push("link_id IN {ids:Array(UUID)}");
        if (where.length === 0) continue;
        const [row] = await ch.query<{ n: number }>(
          `SELECT count() AS n FROM ${name} WHERE ${where.join(" OR ")}`,
          {
            account: own,
            codes,
            ids: linkIds,
          },
        );
        if (Number(row?.n) > 0) found[name] = Number(row?.n);
      }
      return found;
    };
    // The links' own rows come from the links topic, consumed apart from the clicks: waited for too.
    const before = await waitFor(
      async () => {
        const found = await chLeft();
        return ["clicks", "links", "link_daily", "link_stats"].every((t) => t in found) ? found : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, description: "the workspace's rows in every ClickHouse table" },
    );
    expect(Object.keys(before)).toEqual(
      expect.arrayContaining(["clicks", "links", "link_daily", "link_stats"]),
    );
    // The redirect's records name the workspace, as the scan below would see.
    expect(await redis.get(`${stack.env.REDIS_KEY_PREFIX}link:${links[0]!.short_code}`)).toContain(own);

    const preview = await call("GET", "/api/v1/users/me/deletion-preview", leaver.session);
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.data).toMatchObject({
      workspaces_deleted: [{ id: own, links: 2, other_members: 0 }],
      workspaces_shared: [],
      workspaces_left: [{ id: other.accountId, role: "member" }],
    });

    const deleted = await call("DELETE", "/api/v1/users/me", leaver.session, {
      confirm: leaver.email,
      current_password: leaver.password,
    });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.data).toEqual({
      deleted: true,
      workspaces_deleted: [own],
      workspaces_left: [other.accountId],
    });
    expect(deleted.headers.get("set-cookie")).toMatch(/kurz_session=;/);

    // The workspace that stays records the departure and the key that went with it (audit log).
    const recorded = await prisma.auditEvent.findMany({
      where: {
        accountId: other.accountId,
        actorId: userId,
        action: { in: ["member.left", "api_key.revoked"] },
      },
      orderBy: { id: "asc" },
    });
    expect(recorded.map((e) => [e.action, e.actorLabel])).toEqual([
      ["member.left", leaver.email],
      ["api_key.revoked", leaver.email],
    ]);

    // ClickHouse: analytics hears account.deleted and deletes every row of the workspace.
    await waitFor(async () => (Object.keys(await chLeft()).length === 0 ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 250,
      description: "analytics to delete the workspace's rows",
    });
    expect(chTables.map((t) => t.name)).toEqual(
      expect.arrayContaining(["clicks", "links", "link_daily", "link_stats"]),
    );
    const tombstones = await ch.query<{
      account_id: string;
      deleted: number;
      title: string;
      original_url: string;
    }>(
      "SELECT toString(account_id) AS account_id, deleted, title, original_url FROM links WHERE link_id IN {ids:Array(UUID)}",
      { ids: linkIds },
    );
    expect(tombstones.length).toBeGreaterThan(0);
    for (const t of tombstones)
      expect(t).toEqual({ account_id: NO_WORKSPACE, deleted: 1, title: "", original_url: "" });

    // Postgres: no row of any table names the workspace or the user.
    const columns = await prisma.$queryRaw<{ table_name: string; column_name: string }[]>`
      SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND column_name IN ('account_id', 'user_id', 'created_by_user_id', 'invited_by_user_id')`;
    expect(columns.length).toBeGreaterThan(10);
    for (const { table_name, column_name } of columns) {
      const [row] = await prisma.$queryRawUnsafe<{ n: bigint }[]>(
        `SELECT count(*) AS n FROM "${table_name}" WHERE "${column_name}"::text IN ($1, $2)`,
        own,
        userId,
      );
      expect(Number(row!.n), `${table_name}.${column_name}`).toBe(0);
    }
    // What they did in the workspaces that stay remains in those workspaces' audit logs (until their
    // retention), as those workspaces' record; nowhere else.
    const actedAs = await prisma.auditEvent.groupBy({ by: ["accountId"], where: { actorId: userId } });
    expect(actedAs.map((g) => g.accountId)).toEqual([other.accountId]);
    expect(await prisma.user.count({ where: { email: leaver.email } })).toBe(0);
    expect(await prisma.account.count({ where: { OR: [{ id: own }, { email: leaver.email }] } })).toBe(0);
    expect(await prisma.webhookDelivery.count({ where: { endpointId } })).toBe(0);
    expect(await prisma.domain.count({ where: { host } })).toBe(0);
    // The outbox has published everything (its rows are deleted once sent).
    await waitFor(async () => ((await prisma.outboxEvent.count()) === 0 ? true : undefined), {
      timeoutMs: 10_000,
    });
    // The codes stay reserved from everyone, and name no workspace.
    const retired = await prisma.retiredCode.findMany({ where: { shortCode: { in: codes } } });
    expect(retired.map((r) => r.accountId)).toEqual([NO_WORKSPACE, NO_WORKSPACE]);

    // Redis: nothing names the workspace, the user, their address or their destinations; what names
    // their codes, domain, keys and sessions is a tombstone that refuses late writes and expires.
    // Every key of this stack: the services' (REDIS_KEY_PREFIX) and the bus's streams.
    const prefix = stack.env.REDIS_KEY_PREFIX!;
    const all: string[] = [];
    for await (const batch of redis.scanStream({ match: `${stack.prefix}*`, count: 500 }))
      all.push(...(batch as string[]));
    const secrets = [own, userId, leaver.email, "example.com/leaver-"];
    const sessionHashes = [leaver.session.cookie, cookieOfAccepted(accepted)].map(sha256);
    const named = [
      ...codes.map((c) => `link:${c}`),
      `domain:${host}`,
      ...keys.map((k) => `apikey:${sha256(k)}`),
      ...sessionHashes.map((h) => `session:${h}`),
    ];
    let streams = 0;
    for (const key of all) {
      // The bus's log of published events: trimmed by length, not by workspace (docs/workspaces.md).
      if ((await redis.type(key)) === "stream") {
        streams++;
        continue;
      }
      const values = await valuesOf(key);
      for (const secret of secrets) {
        expect(key.includes(secret), key).toBe(false);
        for (const v of values) expect(v.includes(secret), `${key} = ${v}`).toBe(false);
      }
      const bare = key.slice(prefix.length);
      if (named.some((n) => bare === n || bare.startsWith(`miss:`))) {
        const [value] = values;
        const ttl = await redis.ttl(key);
        expect(ttl, key).toBeGreaterThan(0);
        expect(ttl, key).toBeLessThanOrEqual(86_400);
        if (bare.startsWith("session:")) expect(value).toBe(SESSION_TOMBSTONE);
        else if (bare.startsWith("apikey:"))
          expect(JSON.parse(value!)).toMatchObject({
            revoked: true,
            account_id: NO_WORKSPACE,
            user_id: null,
          });
        else if (!bare.startsWith("miss:")) expect(JSON.parse(value!)).toMatchObject({ deleted: true });
      }
    }
    if (name === "redis streams") expect(streams).toBeGreaterThan(0);

    // The person is gone: their sessions and keys answer 401; their codes answer 404.
    expect((await call("GET", "/api/v1/auth/session", leaver.session)).status).toBe(401);
    for (const key of keys) expect((await call("GET", "/api/v1/links", { key })).status).toBe(401);
    for (const link of links) expect((await follow(link.short_url)).status).toBe(404);

    // The other workspace is intact: its link (made by the leaver) still redirects, its owner still acts.
    const stays = await follow(sharedLink.short_url);
    expect(stays.status).toBe(302);
    expect(stays.headers.get("location")).toBe("https://example.org/shared-stays");
    const members = await call("GET", `/api/v1/workspaces/${other.accountId}/members`, other.session);
    expect(members.status, members.text).toBe(200);
    expect(members.body.data.map((m: { email: string }) => m.email)).toEqual([other.email]);
    expect((await call("GET", "/api/v1/links", { key: other.key })).status).toBe(200);
  }, 180_000);
});

/** The session the invitation's acceptance signed in. */
const cookieOfAccepted = (res: { headers: Headers }) => cookieOf(res.headers);
