// Attacks on leaving for good (DELETE /api/v1/users/me, docs/workspaces.md "Leaving for good"): a
// cookie without the password, a slip (the wrong e-mail typed), a key instead of a session, a sole
// owner taking other people's workspace with them, and a deleted link's code taken over by someone
// else once its workspace is gone. Each refusal is a clear error and changes nothing.
import { NO_WORKSPACE } from "@kurz/contracts";
import { describe, expect, it } from "vitest";
import { type Caller, callAs, expectV1Error, registerOwner, useSessionStack } from "./attack.ts";
import { join, keyOf, makeTeam, type Person } from "./team.ts";

const { bed } = useSessionStack({ SESSION_RATE_LIMIT_PER_MINUTE: "100000" }, { inProcess: true });
const origin = () => bed.stack.origin;

/** Signs up a person with a workspace of their own: their session, e-mail, password and user id. */
async function newPerson(tag: string) {
  const owner = await registerOwner(origin(), tag);
  const session: Caller = { cookie: owner.token, csrf: owner.csrf };
  const me = await callAs(origin(), "GET", "/api/v1/auth/session", session);
  return { ...owner, session, userId: me.body.data.user_id as string };
}

const deleteMe = (who: Caller, body: unknown) => callAs(origin(), "DELETE", "/api/v1/users/me", who, body);

/** What a refused delete could have changed: the user, their memberships, sessions and the workspace. */
async function footprint(userId: string, accountId: string) {
  const [user, memberships, sessions, account, keys, links] = await Promise.all([
    bed.prisma.user.findUnique({ where: { id: userId } }),
    bed.prisma.membership.findMany({ where: { userId }, orderBy: { accountId: "asc" } }),
    bed.prisma.session.findMany({ where: { userId }, orderBy: { id: "asc" } }),
    bed.prisma.account.findUnique({ where: { id: accountId }, select: { name: true, email: true } }),
    bed.prisma.apiKey.findMany({ where: { accountId }, select: { id: true, revokedAt: true } }),
    bed.prisma.link.count({ where: { accountId } }),
  ]);
  return JSON.stringify({ user, memberships, sessions, account, keys, links });
}

describe("DELETE /api/v1/users/me refuses", () => {
  it("a session whose password was not confirmed, and a wrong password", async () => {
    const p = await newPerson("leave-nosudo");
    const before = await footprint(p.userId, p.accountId);
    const res = await deleteMe(p.session, { confirm: p.email });
    expectV1Error(res, 403, "FORBIDDEN");
    expect(res.body.error.message).toMatch(/current_password/);
    expectV1Error(
      await deleteMe(p.session, { confirm: p.email, current_password: "not-my-password-at-all" }),
      403,
      "FORBIDDEN",
    );
    expect(await footprint(p.userId, p.accountId)).toBe(before);
  });

  it("the wrong e-mail typed as confirmation, or none", async () => {
    const p = await newPerson("leave-confirm");
    const before = await footprint(p.userId, p.accountId);
    const wrong = await deleteMe(p.session, {
      confirm: "someone@else.example",
      current_password: p.password,
    });
    expectV1Error(wrong, 400, "VALIDATION_ERROR");
    expect(wrong.body.error.details.confirm._errors[0]).toMatch(/e-mail/);
    expectV1Error(await deleteMe(p.session, { current_password: p.password }), 400, "VALIDATION_ERROR");
    expect(await footprint(p.userId, p.accountId)).toBe(before);
  });

  it("an API key, even one sending the password and the e-mail", async () => {
    const p = await newPerson("leave-key");
    const before = await footprint(p.userId, p.accountId);
    const res = await deleteMe({ key: p.key }, { confirm: p.email, current_password: p.password });
    expectV1Error(res, 401, "UNAUTHORIZED");
    expectV1Error(
      await callAs(origin(), "GET", "/api/v1/users/me/deletion-preview", { key: p.key }),
      401,
      "UNAUTHORIZED",
    );
    expect(await footprint(p.userId, p.accountId)).toBe(before);
  });

  it("a request without the CSRF token", async () => {
    const p = await newPerson("leave-csrf");
    const res = await deleteMe(
      { cookie: p.session.cookie },
      { confirm: p.email, current_password: p.password },
    );
    expectV1Error(res, 403, "FORBIDDEN");
    expect(await bed.prisma.user.count({ where: { id: p.userId } })).toBe(1);
  });
});

describe("a sole owner whose workspace has other members", () => {
  it("is refused (409, naming it) unless delete_shared_workspaces; then it goes and its members keep a workspace", async () => {
    const team = await makeTeam(origin(), "leave-shared");
    const owner = team.people.owner;
    const preview = await callAs(origin(), "GET", "/api/v1/users/me/deletion-preview", owner.session);
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.data).toMatchObject({
      email: owner.email,
      workspaces_deleted: [],
      workspaces_shared: [{ id: team.workspaceId, other_members: 3 }],
      workspaces_left: [],
      export: { method: "GET", path: "/api/v1/exports/links" },
    });

    // The password confirmed beforehand, so the refusal below is about the workspace alone.
    const confirmed = await callAs(origin(), "POST", "/api/v1/auth/confirm", owner.session, {
      current_password: owner.password,
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    const before = await footprint(owner.userId, team.workspaceId);
    const refused = await deleteMe(owner.session, { confirm: owner.email });
    expectV1Error(refused, 409, "CONFLICT");
    expect(refused.body.error.message).toMatch(/owner/);
    expect(refused.body.error.details.workspaces).toEqual([team.workspaceId]);
    expect(await footprint(owner.userId, team.workspaceId)).toBe(before);

    const done = await deleteMe(owner.session, {
      confirm: owner.email.toUpperCase(),
      current_password: owner.password,
      delete_shared_workspaces: true,
    });
    expect(done.status, done.text).toBe(200);
    expect(done.body.data).toEqual({
      deleted: true,
      workspaces_deleted: [team.workspaceId],
      workspaces_left: [],
    });
    expect(await bed.prisma.account.count({ where: { id: team.workspaceId } })).toBe(0);
    expect(await bed.prisma.user.count({ where: { id: owner.userId } })).toBe(0);
    // The admin lost the workspace but keeps a session with one of their own.
    const admin = await callAs(origin(), "GET", "/api/v1/auth/session", team.people.admin.session);
    expect(admin.status, admin.text).toBe(200);
    expect(admin.body.data.account_id).not.toBe(team.workspaceId);
    expectV1Error(await callAs(origin(), "GET", "/api/v1/auth/session", owner.session), 401, "UNAUTHORIZED");
  }, 60_000);

  it("another owner makes it no longer the leaver's alone: it stays, their membership and keys go", async () => {
    const owner = await newPerson("leave-coowner");
    const other: Person = await join(origin(), owner.session, owner.accountId, "owner", "leave-coowner2");
    const member: Person = await join(origin(), owner.session, owner.accountId, "member", "leave-member");
    const memberKey = await keyOf(origin(), member);
    const preview = await callAs(origin(), "GET", "/api/v1/users/me/deletion-preview", owner.session);
    expect(preview.body.data.workspaces_left).toEqual([
      expect.objectContaining({ id: owner.accountId, role: "owner" }),
    ]);

    // The member leaves for good: the workspace stays, their key answers 401.
    const gone = await deleteMe(member.session, { confirm: member.email, current_password: member.password });
    expect(gone.status, gone.text).toBe(200);
    expect(gone.body.data).toMatchObject({ workspaces_deleted: [], workspaces_left: [owner.accountId] });
    expectV1Error(await callAs(origin(), "GET", "/api/v1/links", { key: memberKey }), 401, "KEY_REVOKED");

    // The first owner leaves: the workspace's contact e-mail becomes the other owner's.
    const left = await deleteMe(owner.session, { confirm: owner.email, current_password: owner.password });
    expect(left.status, left.text).toBe(200);
    const account = await bed.prisma.account.findUniqueOrThrow({ where: { id: owner.accountId } });
    expect(account.email).toBe(other.email);
    expect(await bed.prisma.membership.findMany({ where: { accountId: owner.accountId } })).toEqual([
      expect.objectContaining({ userId: other.userId, role: "owner" }),
    ]);
    expect(
      await bed.prisma.apiKey.count({
        where: { accountId: owner.accountId, revokedAt: null, createdByUserId: null },
      }),
    ).toBe(0);
  }, 60_000);
});

describe("a deleted workspace's short codes", () => {
  it("stay reserved: nobody else may take them, and the reservation names no workspace", async () => {
    const leaver = await newPerson("leave-codes");
    const alias = `lv${Date.now().toString(36)}`;
    const created = await callAs(
      origin(),
      "POST",
      "/api/v1/links",
      { key: leaver.key },
      {
        url: "https://example.com/printed",
        custom_alias: alias,
      },
    );
    expect(created.status, created.text).toBe(201);
    const done = await deleteMe(leaver.session, { confirm: leaver.email, current_password: leaver.password });
    expect(done.status, done.text).toBe(200);

    const retired = await bed.prisma.retiredCode.findUniqueOrThrow({ where: { shortCode: alias } });
    expect(retired.accountId).toBe(NO_WORKSPACE);
    const thief = await newPerson("leave-thief");
    const taken = await callAs(
      origin(),
      "POST",
      "/api/v1/links",
      { key: thief.key },
      {
        url: "https://evil.example/",
        custom_alias: alias,
      },
    );
    expectV1Error(taken, 409, "CONFLICT");
    // The leaver signing up again is someone new: the code is reserved from them too.
    const again = await newPerson("leave-codes-again");
    expectV1Error(
      await callAs(
        origin(),
        "POST",
        "/api/v1/links",
        { key: again.key },
        { url: "https://example.com/", custom_alias: alias },
      ),
      409,
      "CONFLICT",
    );
  }, 60_000);

  it("stay reserved when an emptied workspace is deleted (DELETE /workspaces/:id)", async () => {
    const owner = await newPerson("leave-ws-codes");
    const made = await callAs(origin(), "POST", "/api/v1/workspaces", owner.session, { name: "Short-lived" });
    expect(made.status, made.text).toBe(201);
    const inIt: Caller = { ...owner.session, headers: { "x-workspace-id": made.body.data.id } };
    const alias = `lw${Date.now().toString(36)}`;
    const link = await callAs(origin(), "POST", "/api/v1/links", inIt, {
      url: "https://example.com/",
      custom_alias: alias,
    });
    expect(link.status, link.text).toBe(201);
    expect((await callAs(origin(), "DELETE", `/api/v1/links/${link.body.data.id}`, inIt)).status).toBe(200);
    const gone = await callAs(origin(), "DELETE", `/api/v1/workspaces/${made.body.data.id}`, inIt);
    expect(gone.status, gone.text).toBe(200);

    expect((await bed.prisma.retiredCode.findUniqueOrThrow({ where: { shortCode: alias } })).accountId).toBe(
      NO_WORKSPACE,
    );
    const thief = await newPerson("leave-ws-thief");
    expectV1Error(
      await callAs(
        origin(),
        "POST",
        "/api/v1/links",
        { key: thief.key },
        { url: "https://evil.example/", custom_alias: alias },
      ),
      409,
      "CONFLICT",
    );
  });
});
