// The audit log (docs/workspaces.md, "Audit log") as people and keys make it through the public origin:
// every kind of change appears once with its actor, the client's address prefix (never the address)
// and user-agent family; sign-ins and failed sign-ins land in each of the person's workspaces; a
// change that does not commit leaves no event; pages by cursor do not overlap; the CSV parses; and the
// retention prune, on a clock of the test's own, deletes only what is older than the retention.

import { useStack } from "@kurz/testing/use-stack";
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { pruneAuditEvents } from "../src/audit/prune-audit-events.ts";
import { recordAudit } from "../src/audit/record-audit.ts";
import { callJson } from "./json-call.ts";
import { RELAXED_LIMITS } from "./links-helpers.ts";

// biome-ignore lint/suspicious/noExplicitAny: assertions check the shape member by member
type Json = any;

const CHROME_MAC =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
const FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0";
const CLIENT_V4 = "203.0.113.77";
const CLIENT_V6 = "2001:db8:abcd:12::1";

interface Who {
  cookie?: string;
  csrf?: string;
  key?: string;
  workspace?: string;
  agent?: string;
  address?: string;
}

describe("audit log", () => {
  const bed = useStack({
    inProcess: true,
    extraEnv: { ...RELAXED_LIMITS, AUTH_RATE_LIMIT_PER_MINUTE: "100000", WEBHOOK_ALLOW_HOSTS: "127.0.0.1" },
  });
  let seq = 0;
  const email = (label: string) => `audit-${label}-${process.pid}-${Date.now()}-${seq++}@example.com`;

  async function call(method: string, path: string, who: Who = {}, body?: unknown, accept?: string) {
    const headers: Record<string, string> = {
      "user-agent": who.agent ?? CHROME_MAC,
      "x-forwarded-for": who.address ?? CLIENT_V4,
    };
    if (accept) headers.accept = accept;
    if (who.cookie) {
      headers.cookie = `kurz_session=${who.cookie}`;
      headers["x-csrf-token"] = who.csrf ?? "";
    }
    if (who.key) headers.authorization = `Bearer ${who.key}`;
    if (who.workspace) headers["x-workspace-id"] = who.workspace;
    return callJson(`${bed.stack.origin}/api/v1${path}`, method, headers, body);
  }

  async function ok(answer: ReturnType<typeof call>, status = 200): Promise<Json> {
    const res = await answer;
    expect(res.status, res.text).toBe(status);
    return res.body.data;
  }

  const sessionOf = (res: Awaited<ReturnType<typeof call>>, agent?: string): Who => ({
    cookie: /kurz_session=([^;]*)/.exec(res.headers.get("set-cookie") ?? "")?.[1] ?? "",
    csrf: res.body.data.session.csrf_token,
    ...(agent ? { agent } : {}),
  });

  async function register(label: string) {
    const address = email(label);
    const password = `${label} correct horse battery`;
    const res = await call("POST", "/auth/register", {}, { email: address, password });
    expect(res.status, res.text).toBe(201);
    return {
      who: sessionOf(res),
      email: address,
      password,
      workspaceId: res.body.data.account.id as string,
      userId: res.body.data.session.user_id as string,
    };
  }

  const events = async (who: Who, query = ""): Promise<Json[]> =>
    (await ok(call("GET", `/audit-log?limit=500${query}`, who))).events;

  let owner: Awaited<ReturnType<typeof register>>;
  let key: { id: string; key: string; name: string };
  beforeAll(async () => {
    owner = await register("owner");
    const created = await ok(
      call("POST", "/account/keys", owner.who, { name: "ci deploy key", current_password: owner.password }),
      201,
    );
    key = { id: created.id, key: created.key, name: "ci deploy key" };
  });

  it("records sign-up and key creation with the session's user, the /24 and the browser family", async () => {
    const log = await events(owner.who);
    const byAction = (action: string) => log.filter((e: Json) => e.action === action);
    expect(byAction("workspace.created")).toHaveLength(1);
    expect(byAction("session.signed_in")).toHaveLength(1);
    const [created] = byAction("api_key.created");
    expect(created).toMatchObject({
      actor: { type: "user", id: owner.userId, label: owner.email },
      resource_type: "api_key",
      resource_id: key.id,
      ip_prefix: "203.0.113.0/24",
      user_agent_family: "Chrome on macOS",
      details: { name: key.name },
    });
    expect(JSON.stringify(log)).not.toContain(CLIENT_V4);
  });

  it("records link create, update and delete by a key with the key as actor; IPv6 as a /48", async () => {
    const byKey: Who = { key: key.key, agent: "curl/8.4.0", address: CLIENT_V6 };
    const link = await ok(call("POST", "/links", byKey, { url: "https://audit.example/a", title: "A" }), 201);
    await ok(call("PATCH", `/links/${link.id}`, byKey, { title: "B", is_active: false }));
    await ok(call("DELETE", `/links/${link.id}`, byKey));
    const log = await events(owner.who, `&resource_type=link&resource_id=${link.id}`);
    expect(log.map((e: Json) => e.action)).toEqual(["link.deleted", "link.updated", "link.created"]);
    for (const e of log) {
      expect(e).toMatchObject({
        actor: { type: "key", id: key.id, label: key.name },
        ip_prefix: "2001:db8:abcd::/48",
        user_agent_family: "curl",
      });
    }
    expect(log[1].details).toEqual({ fields: ["title", "is_active"] });
    // The actor filter finds the key's events, and only its.
    const mine = await events(owner.who, `&actor=${key.id}`);
    expect(mine.length).toBeGreaterThanOrEqual(3);
    expect(mine.every((e: Json) => e.actor.id === key.id)).toBe(true);
  });

  it("gives each link created its own event, and a create refused at the limit none", async () => {
    const events = () =>
      bed.prisma.auditEvent.count({ where: { accountId: owner.workspaceId, action: "link.created" } });
    const beforeBulk = await events();
    await ok(
      call(
        "POST",
        "/links/bulk",
        { key: key.key },
        {
          links: [{ url: "https://audit.example/b1" }, { url: "https://audit.example/b2" }],
        },
      ),
      201,
    );
    expect(await events()).toBe(beforeBulk + 2);
    const before = await events();
    const count = await bed.prisma.link.count({ where: { accountId: owner.workspaceId } });
    await bed.prisma.account.update({ where: { id: owner.workspaceId }, data: { linkLimit: count + 1 } });
    try {
      // Lone creates skip the early count, so the database function refuses those past the limit
      // (kurz_create_links), deleting their rows and their events in its statement.
      const answers = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          call("POST", "/links", { key: key.key }, { url: `https://audit.example/race/${i}`, title: "r" }),
        ),
      );
      const created = answers.filter((a) => a.status === 201).length;
      expect(answers.map((a) => a.status).sort()).toEqual([201, 403, 403, 403]);
      expect(await events()).toBe(before + created);
    } finally {
      await bed.prisma.account.update({ where: { id: owner.workspaceId }, data: { linkLimit: 500 } });
    }
  });

  it("leaves no event behind a change whose transaction rolls back", async () => {
    const marker = `rolled-back-${Date.now()}`;
    await expect(
      bed.prisma.$transaction(async (tx) => {
        await recordAudit(tx, { accountId: owner.workspaceId, action: marker, resourceType: "test" });
        throw new Error("the change failed after its event was written");
      }),
    ).rejects.toThrow("the change failed");
    expect(await bed.prisma.auditEvent.count({ where: { action: marker } })).toBe(0);
    // A refused change through the API changes nothing, its event included.
    const count = await bed.prisma.auditEvent.count({ where: { accountId: owner.workspaceId } });
    const res = await call("PATCH", `/workspaces/${owner.workspaceId}`, owner.who, { name: "" });
    expect(res.status).toBe(400);
    expect(await bed.prisma.auditEvent.count({ where: { accountId: owner.workspaceId } })).toBe(count);
  });

  it("records members, invitations, roles and sign-ins (failed ones for a known e-mail only)", async () => {
    const invited = email("member");
    const invitation = await ok(
      call("POST", `/workspaces/${owner.workspaceId}/invitations`, owner.who, {
        email: invited,
        role: "member",
      }),
      201,
    );
    const token = /#invitation=([A-Za-z0-9_-]{43})$/.exec(invitation.accept_url)![1]!;
    const password = "member correct horse battery";
    const accepted = await call(
      "POST",
      `/invitations/${token}/accept`,
      { agent: FIREFOX_LINUX },
      { password },
    );
    expect(accepted.status, accepted.text).toBe(200);
    const memberId = accepted.body.data.session.user_id as string;
    await ok(
      call("PATCH", `/workspaces/${owner.workspaceId}/members/${memberId}`, owner.who, { role: "viewer" }),
    );
    const wrong = await call(
      "POST",
      "/auth/login",
      { agent: FIREFOX_LINUX },
      { email: invited, password: "nope nope nope" },
    );
    expect(wrong.status).toBe(401);
    const unknown = await call(
      "POST",
      "/auth/login",
      {},
      { email: email("nobody"), password: "whatever it is" },
    );
    expect(unknown.status).toBe(401);
    const login = await call("POST", "/auth/login", { agent: FIREFOX_LINUX }, { email: invited, password });
    expect(login.status, login.text).toBe(200);
    await ok(call("POST", "/auth/logout", sessionOf(login, FIREFOX_LINUX)));

    const log = await events(owner.who);
    const one = (action: string) => log.find((e: Json) => e.action === action);
    expect(one("invitation.created")).toMatchObject({
      actor: { type: "user", id: owner.userId },
      resource_id: invitation.id,
      details: { email: invited, role: "member" },
    });
    expect(one("invitation.accepted")).toMatchObject({
      actor: { type: "user", id: memberId, label: invited },
      user_agent_family: "Firefox on Linux",
    });
    expect(one("member.role_changed")).toMatchObject({
      actor: { id: owner.userId },
      resource_type: "member",
      resource_id: memberId,
      details: { from: "member", to: "viewer" },
    });
    expect(one("session.sign_in_failed")).toMatchObject({
      actor: { type: "user", id: memberId },
      resource_id: memberId,
      ip_prefix: "203.0.113.0/24",
    });
    expect(one("session.signed_out")).toMatchObject({
      actor: { type: "user", id: memberId },
      resource_type: "session",
      user_agent_family: "Firefox on Linux",
    });
    const signIns = log.filter((e: Json) => e.action === "session.signed_in" && e.actor.id === memberId);
    expect(signIns.map((e: Json) => e.details.via).sort()).toEqual(["invitation", "password"]);
    // The unknown e-mail has no workspace: nothing anywhere names it.
    expect(JSON.stringify(log)).not.toContain("audit-nobody");

    // The member, now a viewer, may not read it.
    const viewer = sessionOf(accepted);
    const refused = await call("GET", "/audit-log", { ...viewer, workspace: owner.workspaceId });
    expect(refused.status).toBe(403);
  });

  it("records workspace settings, overlay and webhook changes", async () => {
    const who = owner.who;
    const overlay = await ok(call("POST", "/overlays", who, { type: "message", name: "Promo" }), 201);
    await ok(call("PATCH", `/overlays/${overlay.id}`, who, { name: "Promo 2" }));
    await ok(call("DELETE", `/overlays/${overlay.id}`, who));
    await ok(
      call("PATCH", `/workspaces/${owner.workspaceId}`, who, { name: "Audited", audit_retention_days: 30 }),
    );
    const webhook = await ok(
      call("POST", "/webhooks", who, { url: "http://127.0.0.1:9/kurz", events: ["link.created"] }),
      201,
    );
    await ok(call("DELETE", `/webhooks/${webhook.id}`, who));
    const log = await events(owner.who);
    const actions = new Set(log.map((e: Json) => e.action));
    for (const action of [
      "workspace.updated",
      "overlay.created",
      "overlay.updated",
      "overlay.deleted",
      "webhook.created",
      "webhook.deleted",
    ]) {
      expect(actions, action).toContain(action);
    }
    expect(log.find((e: Json) => e.action === "workspace.updated").details).toEqual({
      fields: ["name", "audit_retention_days"],
      audit_retention_days: 30,
    });
    const workspace = await ok(call("GET", `/workspaces/${owner.workspaceId}`, who));
    expect(workspace.audit_retention_days).toBe(30);
    await ok(call("PATCH", `/workspaces/${owner.workspaceId}`, who, { audit_retention_days: 365 }));
  });

  it("pages by cursor without overlap, filters by time, and exports the same events as CSV", async () => {
    const all = await events(owner.who);
    expect(all.length).toBeGreaterThan(6);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = await ok(
        call("GET", `/audit-log?limit=3${cursor ? `&cursor=${cursor}` : ""}`, owner.who),
      );
      expect(page.events.length).toBeLessThanOrEqual(3);
      seen.push(...page.events.map((e: Json) => e.id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(all.map((e: Json) => e.id));

    const future = await events(owner.who, `&from=${encodeURIComponent("2999-01-01T00:00:00Z")}`);
    expect(future).toEqual([]);
    const bad = await call("GET", "/audit-log?cursor=abc", owner.who);
    expect(bad.status).toBe(400);

    const csv = await call("GET", "/audit-log?format=csv", owner.who);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const rows: Json[] = parse(csv.text, { columns: true });
    expect(rows.map((r) => r.id)).toEqual(all.map((e: Json) => e.id));
    expect(rows[0]).toHaveProperty("user_agent_family");
    const byAccept = await call("GET", "/audit-log", owner.who, undefined, "text/csv");
    expect(byAccept.headers.get("content-type")).toMatch(/^text\/csv/);
  });

  it("prunes only events older than the workspace's retention, as of the clock it is given", async () => {
    const other = await register("retention");
    await bed.prisma.account.update({ where: { id: other.workspaceId }, data: { auditRetentionDays: 10 } });
    const now = new Date("2031-06-01T00:00:00Z");
    const day = 86_400_000;
    const at = (days: number) => new Date(now.getTime() - days * day);
    const ids = await bed.prisma.auditEvent.findMany({
      where: { accountId: other.workspaceId },
      select: { id: true },
      orderBy: { id: "asc" },
    });
    expect(ids.length).toBeGreaterThanOrEqual(2);
    await bed.prisma.auditEvent.update({ where: { id: ids[0]!.id }, data: { occurredAt: at(11) } });
    await bed.prisma.auditEvent.update({ where: { id: ids[1]!.id }, data: { occurredAt: at(9) } });
    // The owner's workspace keeps 365 days: an event 11 days old there stays.
    const kept = await bed.prisma.auditEvent.findFirstOrThrow({ where: { accountId: owner.workspaceId } });
    await bed.prisma.auditEvent.update({ where: { id: kept.id }, data: { occurredAt: at(11) } });

    await pruneAuditEvents(bed.prisma, now);
    const left = await bed.prisma.auditEvent.findMany({
      where: { id: { in: [ids[0]!.id, ids[1]!.id, kept.id] } },
    });
    expect(left.map((e) => e.id).sort()).toEqual([ids[1]!.id, kept.id].sort());
  });
});
