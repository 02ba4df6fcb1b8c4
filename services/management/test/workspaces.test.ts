// Workspaces as a signed-in person uses them through the public origin (docs/workspaces.md): a second
// workspace made by session and listed with the session, X-Workspace-Id choosing where a request
// acts, renaming, members owners first, invitations listed without their tokens and accepted, an
// invitation sent again replacing the first, and deleting an empty workspace.
import { useStack } from "@kurz/testing/use-stack";
import { beforeAll, describe, expect, it } from "vitest";
import { callJson } from "./json-call.ts";
import { RELAXED_LIMITS } from "./links-helpers.ts";

// biome-ignore lint/suspicious/noExplicitAny: assertions check the shape member by member
type Json = any;

interface Answer {
  status: number;
  text: string;
  body: Json;
  setCookie: string;
}

interface Session {
  cookie: string;
  csrf: string;
  /** The workspace to act in (X-Workspace-Id); absent: the user's first. */
  workspace?: string;
}

const INVITATION_FIELDS = ["created_at", "email", "expires_at", "id", "invited_by", "role"];

describe("workspaces, members and invitations", () => {
  const bed = useStack({
    inProcess: true,
    // Every request of the file comes from one client: its sign-up and sign-in budget must not decide.
    extraEnv: { ...RELAXED_LIMITS, AUTH_RATE_LIMIT_PER_MINUTE: "100000" },
  });
  let seq = 0;
  const email = (label: string) => `ws-${label}-${process.pid}-${Date.now()}-${seq++}@example.com`;

  async function call(method: string, path: string, who?: Session, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (who) {
      headers.cookie = `kurz_session=${who.cookie}`;
      headers["x-csrf-token"] = who.csrf;
      if (who.workspace) headers["x-workspace-id"] = who.workspace;
    }
    const answer = await callJson(`${bed.stack.origin}/api/v1${path}`, method, headers, body);
    return { ...answer, setCookie: answer.headers.get("set-cookie") ?? "" };
  }

  async function ok(answer: Promise<Answer>, status = 200): Promise<Json> {
    const res = await answer;
    expect(res.status, res.text).toBe(status);
    expect(res.body.success).toBe(true);
    return res.body.data;
  }

  const signedIn = (res: Answer): Session => ({
    cookie: /kurz_session=([^;]*)/.exec(res.setCookie)?.[1] ?? "",
    csrf: res.body.data.session.csrf_token,
  });

  async function register(label: string) {
    const password = `${label} correct horse battery`;
    const res = await call("POST", "/auth/register", undefined, { email: email(label), password });
    expect(res.status, res.text).toBe(201);
    const { account, session } = res.body.data;
    return { session: signedIn(res), workspaceId: account.id as string, userId: session.user_id as string };
  }

  const tokenOf = (created: Json): string => /#invitation=([A-Za-z0-9_-]{43})$/.exec(created.accept_url)![1]!;

  const invite = (who: Session, workspaceId: string, address: string, role: string) =>
    ok(call("POST", `/workspaces/${workspaceId}/invitations`, who, { email: address, role }), 201);

  async function acceptAs(token: string, password: string) {
    const res = await call("POST", `/invitations/${token}/accept`, undefined, { password });
    expect(res.status, res.text).toBe(200);
    return { session: signedIn(res), userId: res.body.data.session.user_id as string, data: res.body.data };
  }

  let owner: Awaited<ReturnType<typeof register>>;
  let second: Json;
  beforeAll(async () => {
    owner = await register("owner");
    second = await ok(call("POST", "/workspaces", owner.session, { name: "  Side project " }), 201);
  });

  it("creates a workspace by session, listed with the user's and in their session", async () => {
    expect(second).toMatchObject({ name: "Side project", role: "owner" });
    expect(second.id).not.toBe(owner.workspaceId);
    const listed = await ok(call("GET", "/workspaces", owner.session));
    // The first joined stays the default, first.
    expect(listed.map((w: Json) => [w.id, w.role])).toEqual([
      [owner.workspaceId, "owner"],
      [second.id, "owner"],
    ]);
    const session = await ok(call("GET", "/auth/session", owner.session));
    expect(session.account_id).toBe(owner.workspaceId);
    expect(session.workspaces).toEqual([
      expect.objectContaining({ id: owner.workspaceId, role: "owner" }),
      { id: second.id, name: "Side project", role: "owner", require_two_factor: false },
    ]);
    // Named in the header, the session acts there.
    const there = await ok(call("GET", "/auth/session", { ...owner.session, workspace: second.id }));
    expect(there).toMatchObject({ account_id: second.id, role: "owner" });
  });

  it("X-Workspace-Id decides where a link is made and which links are listed", async () => {
    const inSecond = { ...owner.session, workspace: second.id };
    const link = await ok(call("POST", "/links", inSecond, { url: "https://side-project.example/" }), 201);
    const row = await bed.prisma.link.findUniqueOrThrow({ where: { id: link.id } });
    expect(row.accountId).toBe(second.id);
    const inSecondList = await ok(call("GET", "/links", inSecond));
    expect(inSecondList.map((l: Json) => l.id)).toEqual([link.id]);
    const inFirst = await ok(call("GET", "/links", owner.session));
    expect(inFirst.map((l: Json) => l.id)).not.toContain(link.id);
    const byId = await call("GET", `/links/${link.id}`, owner.session);
    expect(byId.status, byId.text).toBe(404);
  });

  it("renames a workspace", async () => {
    const inSecond = { ...owner.session, workspace: second.id };
    const renamed = await ok(call("PATCH", `/workspaces/${second.id}`, inSecond, { name: "Renamed" }));
    expect(renamed).toMatchObject({ id: second.id, name: "Renamed", role: "owner" });
    expect(await ok(call("GET", `/workspaces/${second.id}`, inSecond))).toEqual(renamed);
    const session = await ok(call("GET", "/auth/session", owner.session));
    expect(session.workspaces[1]).toEqual({
      id: second.id,
      name: "Renamed",
      role: "owner",
      require_two_factor: false,
    });
    // An empty body changes nothing.
    expect(await ok(call("PATCH", `/workspaces/${second.id}`, inSecond, {}))).toEqual(renamed);
  });

  it("invites, lists the invitation without its token, and the accepted person is a member", async () => {
    const address = email("invited");
    const created = await invite(owner.session, owner.workspaceId, address, "member");
    expect(Object.keys(created).sort()).toEqual([...INVITATION_FIELDS, "accept_url", "emailed"].sort());
    expect(created).toMatchObject({ email: address, role: "member", invited_by: owner.userId });
    const token = tokenOf(created);
    const pending = await call("GET", `/workspaces/${owner.workspaceId}/invitations`, owner.session);
    expect(pending.status, pending.text).toBe(200);
    expect(pending.text).not.toContain(token);
    const [listed] = pending.body.data.filter((i: Json) => i.email === address);
    expect(Object.keys(listed).sort()).toEqual(INVITATION_FIELDS);
    expect(listed.id).toBe(created.id);

    const joined = await acceptAs(token, "the invited member's own password");
    expect(joined.data.session).toMatchObject({ account_id: owner.workspaceId, role: "member" });
    const members = await ok(call("GET", `/workspaces/${owner.workspaceId}/members`, owner.session));
    expect(members).toContainEqual(
      expect.objectContaining({ user_id: joined.userId, email: address, role: "member" }),
    );
    const after = await ok(call("GET", `/workspaces/${owner.workspaceId}/invitations`, owner.session));
    expect(after.map((i: Json) => i.email)).not.toContain(address);
    // The new member acts in the workspace with their session.
    expect((await call("GET", "/links", joined.session)).status).toBe(200);
  });

  it("lists members owners first, then by when they joined", async () => {
    const team = await register("team");
    const where = team.workspaceId;
    const viewer = await acceptAs(
      tokenOf(await invite(team.session, where, email("viewer"), "viewer")),
      "the viewer's own password",
    );
    const admin = await acceptAs(
      tokenOf(await invite(team.session, where, email("admin"), "admin")),
      "the admin's own password",
    );
    const coOwner = await acceptAs(
      tokenOf(await invite(team.session, where, email("co-owner"), "owner")),
      "the co-owner's own password",
    );
    const members = await ok(call("GET", `/workspaces/${where}/members`, viewer.session));
    expect(members.map((m: Json) => [m.user_id, m.role])).toEqual([
      [team.userId, "owner"],
      [coOwner.userId, "owner"],
      [admin.userId, "admin"],
      [viewer.userId, "viewer"],
    ]);
  });

  it("inviting an e-mail again replaces its invitation: the first link stops working", async () => {
    const address = email("again");
    const first = await invite(owner.session, owner.workspaceId, address, "viewer");
    const again = await invite(owner.session, owner.workspaceId, address, "member");
    expect(again.id).toBe(first.id);
    expect(tokenOf(again)).not.toBe(tokenOf(first));
    const pending = await ok(call("GET", `/workspaces/${owner.workspaceId}/invitations`, owner.session));
    expect(pending.filter((i: Json) => i.email === address)).toEqual([
      expect.objectContaining({ id: first.id, role: "member" }),
    ]);
    const stale = await call("POST", `/invitations/${tokenOf(first)}/accept`, undefined, {
      password: "the invited person's password",
    });
    expect(stale.status, stale.text).toBe(404);
    expect(stale.body.error.code).toBe("NOT_FOUND");
    const joined = await acceptAs(tokenOf(again), "the invited person's password");
    expect(joined.data.session.role).toBe("member");
  });

  it("deletes an empty workspace: gone from the lists, and naming it answers 404", async () => {
    const empty = await ok(call("POST", "/workspaces", owner.session, { name: "Short-lived" }), 201);
    const inEmpty = { ...owner.session, workspace: empty.id };
    await invite(inEmpty, empty.id, email("never"), "viewer");
    const deleted = await ok(call("DELETE", `/workspaces/${empty.id}`, inEmpty));
    expect(deleted).toEqual({ id: empty.id, deleted: true });
    const listed = await ok(call("GET", "/workspaces", owner.session));
    expect(listed.map((w: Json) => w.id)).not.toContain(empty.id);
    const session = await ok(call("GET", "/auth/session", owner.session));
    expect(session.workspaces.map((w: Json) => w.id)).not.toContain(empty.id);
    const named = await call("GET", "/links", inEmpty);
    expect(named.status, named.text).toBe(404);
    expect(await bed.prisma.account.count({ where: { id: empty.id } })).toBe(0);
    expect(await bed.prisma.invitation.count({ where: { accountId: empty.id } })).toBe(0);
    expect(await bed.prisma.membership.count({ where: { accountId: empty.id } })).toBe(0);
  });
});
