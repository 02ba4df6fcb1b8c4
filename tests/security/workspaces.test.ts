// Attacks on workspaces, members and invitations (docs/workspaces.md): spent, expired and withdrawn
// invitation tokens, an invitation accepted with someone else's password or by someone else signed in, admins reaching for owners'
// powers, the last owner walking away, another workspace named in a header or a path, a viewer
// writing through the older API, and deletions a workspace must refuse. Each gets a clear error in
// its API's envelope and changes nothing.
import { beforeAll, describe, expect, it } from "vitest";
import {
  type Caller,
  callAs,
  expectLegacyError,
  expectV1Error,
  type RawResponse,
  registerOwner,
  uniqueEmail,
  useSessionStack,
} from "./attack.ts";
import { accept, invitationToken, invite, keyOf, makeTeam, sessionOf, type Team } from "./team.ts";

const PER_ACCOUNT = 3;
const { bed } = useSessionStack(
  {
    SIGNIN_ATTEMPTS_PER_ACCOUNT: String(PER_ACCOUNT),
    SIGNIN_ATTEMPTS_PER_CLIENT: "1000",
    SESSION_RATE_LIMIT_PER_MINUTE: "100000",
  },
  { inProcess: true },
);
const origin = () => bed.stack.origin;

let team: Team;
beforeAll(async () => {
  team = await makeTeam(origin(), "ws");
}, 60_000);

const owner = () => team.people.owner.session;
const admin = () => team.people.admin.session;
const ws = (path = "") => `/api/v1/workspaces/${team.workspaceId}${path}`;
const inWorkspace = (who: Caller, workspaceId: string): Caller => ({
  ...who,
  headers: { ...who.headers, "x-workspace-id": workspaceId },
});

/** What a refused request could have changed in a workspace: its name, members, invitations, keys, links. */
async function footprint(accountId: string) {
  const [account, memberships, invitations, keys, links] = await Promise.all([
    bed.prisma.account.findUnique({ where: { id: accountId }, select: { name: true } }),
    bed.prisma.membership.findMany({ where: { accountId }, orderBy: { userId: "asc" } }),
    bed.prisma.invitation.findMany({ where: { accountId }, orderBy: { id: "asc" } }),
    bed.prisma.apiKey.findMany({
      where: { accountId },
      orderBy: { id: "asc" },
      select: { id: true, scopes: true, revokedAt: true },
    }),
    bed.prisma.link.count({ where: { accountId } }),
  ]);
  return JSON.stringify({ account, memberships, invitations, keys, links });
}

/** Runs `attack` and checks that the workspaces it names are as they were. */
async function unchanged<T>(accountIds: string[], attack: () => Promise<T>): Promise<T> {
  const before = await Promise.all(accountIds.map(footprint));
  const result = await attack();
  expect(await Promise.all(accountIds.map(footprint))).toEqual(before);
  return result;
}

const gone = (res: RawResponse) => {
  expectV1Error(res, 404, "NOT_FOUND");
  expect(res.body.error.message).toMatch(/invitation/i);
};

describe("invitation tokens", () => {
  const newInvitation = async (role: "member" | "viewer" = "member") => {
    const email = uniqueEmail("ws-invited");
    const created = await invite(origin(), owner(), team.workspaceId, email, role);
    expect(created.status, created.text).toBe(201);
    return { email, id: created.body.data.id as string, token: invitationToken(created) };
  };

  it("is single-use: a second acceptance answers 404", async () => {
    const { email, token } = await newInvitation();
    expect((await accept(origin(), token, "first acceptance password")).status).toBe(200);
    await unchanged([team.workspaceId], async () => {
      gone(await accept(origin(), token, "first acceptance password"));
      gone(await accept(origin(), token, "someone else's choice of password"));
    });
    expect(await bed.prisma.user.count({ where: { email } })).toBe(1);
  });

  it("expires: once its time is past it answers 404 and creates no one", async () => {
    const { email, id, token } = await newInvitation();
    await bed.prisma.invitation.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await unchanged([team.workspaceId], async () => gone(await accept(origin(), token, "a late password")));
    expect(await bed.prisma.user.count({ where: { email } })).toBe(0);
  });

  it("withdrawn: its link stops working", async () => {
    const { email, id, token } = await newInvitation();
    const withdrawn = await callAs(origin(), "DELETE", ws(`/invitations/${id}`), admin());
    expect(withdrawn.status, withdrawn.text).toBe(200);
    await unchanged([team.workspaceId], async () =>
      gone(await accept(origin(), token, "a withdrawn password")),
    );
    expect(await bed.prisma.user.count({ where: { email } })).toBe(0);
  });

  it("malformed tokens answer like unknown ones", async () => {
    for (const token of ["short", "A".repeat(43), "A".repeat(44), `${"A".repeat(42)}!`]) {
      gone(await accept(origin(), token, "any password at all"));
    }
  });

  it("an existing user's wrong password answers 401 and spends their sign-in budget", async () => {
    // Someone with an account of their own is invited: only their password accepts for them.
    const invitee = await registerOwner(origin(), "ws-existing");
    const created = await invite(origin(), owner(), team.workspaceId, invitee.email, "member");
    expect(created.status, created.text).toBe(201);
    const token = invitationToken(created);
    await unchanged([team.workspaceId, invitee.accountId], async () => {
      for (let i = 0; i < PER_ACCOUNT; i++) {
        expectV1Error(await accept(origin(), token, "not their password"), 401, "UNAUTHORIZED");
      }
      // The budget is theirs: spent here, it refuses their own sign-in, and the invitation too.
      const signIn = await callAs(
        origin(),
        "POST",
        "/api/v1/auth/login",
        {},
        {
          email: invitee.email,
          password: invitee.password,
        },
      );
      expectV1Error(signIn, 429, "RATE_LIMIT_EXCEEDED");
      expectV1Error(await accept(origin(), token, invitee.password), 429, "RATE_LIMIT_EXCEEDED");
    });
  });

  it("someone else signed in, holding the link, cannot take it: their session and password join no one", async () => {
    const invitee = await registerOwner(origin(), "ws-meant");
    const stranger = await registerOwner(origin(), "ws-stranger");
    const created = await invite(origin(), owner(), team.workspaceId, invitee.email, "member");
    const token = invitationToken(created);
    const asStranger: Caller = { cookie: stranger.token, csrf: stranger.csrf };
    await unchanged([team.workspaceId, stranger.accountId], async () => {
      const taken = await callAs(origin(), "POST", `/api/v1/invitations/${token}/accept`, asStranger, {
        password: stranger.password,
      });
      expectV1Error(taken, 401, "UNAUTHORIZED");
    });
    const strangersView = await callAs(origin(), "GET", ws(), inWorkspace(asStranger, team.workspaceId));
    expectV1Error(strangersView, 404, "NOT_FOUND");
    // The link still works for the person it was sent to.
    expect((await accept(origin(), token, invitee.password)).status).toBe(200);
  });

  it("the invited user's own password accepts, and they keep their own workspace", async () => {
    const invitee = await registerOwner(origin(), "ws-existing-ok");
    const created = await invite(origin(), owner(), team.workspaceId, invitee.email, "viewer");
    const accepted = await accept(origin(), invitationToken(created), invitee.password);
    expect(accepted.status, accepted.text).toBe(200);
    const ids = accepted.body.data.session.workspaces.map((w: { id: string }) => w.id);
    expect(ids).toEqual(expect.arrayContaining([invitee.accountId, team.workspaceId]));
    const there = await callAs(origin(), "GET", ws(), inWorkspace(sessionOf(accepted), team.workspaceId));
    expect(there.status, there.text).toBe(200);
    expect(there.body.data.role).toBe("viewer");
  });
});

describe("admins and owners", () => {
  it("an admin can neither invite an owner nor make one", async () => {
    await unchanged([team.workspaceId], async () => {
      const invited = await invite(origin(), admin(), team.workspaceId, uniqueEmail("ws-owner"), "owner");
      expectV1Error(invited, 403, "FORBIDDEN");
      const promoted = await callAs(origin(), "PATCH", ws(`/members/${team.people.member.userId}`), admin(), {
        role: "owner",
      });
      expectV1Error(promoted, 403, "FORBIDDEN");
      const self = await callAs(origin(), "PATCH", ws(`/members/${team.people.admin.userId}`), admin(), {
        role: "owner",
      });
      expectV1Error(self, 403, "FORBIDDEN");
    });
  });

  it("an admin can neither demote nor remove an owner", async () => {
    const ownerPath = ws(`/members/${team.people.owner.userId}`);
    await unchanged([team.workspaceId], async () => {
      for (const role of ["admin", "member", "viewer"]) {
        expectV1Error(await callAs(origin(), "PATCH", ownerPath, admin(), { role }), 403, "FORBIDDEN");
      }
      expectV1Error(await callAs(origin(), "DELETE", ownerPath, admin()), 403, "FORBIDDEN");
    });
  });

  it("the last owner can neither demote nor remove themselves, nor leave (409)", async () => {
    const self = ws(`/members/${team.people.owner.userId}`);
    await unchanged([team.workspaceId], async () => {
      expectV1Error(await callAs(origin(), "PATCH", self, owner(), { role: "admin" }), 409, "CONFLICT");
      expectV1Error(await callAs(origin(), "DELETE", self, owner()), 409, "CONFLICT");
      expectV1Error(await callAs(origin(), "POST", ws("/leave"), owner()), 409, "CONFLICT");
    });
  });
});

describe("another workspace, named", () => {
  // A stranger with a workspace of their own, and the team's owner with a second one.
  let stranger: Awaited<ReturnType<typeof registerOwner>>;
  let second: string;
  beforeAll(async () => {
    stranger = await registerOwner(origin(), "ws-stranger");
    const made = await callAs(origin(), "POST", "/api/v1/workspaces", owner(), { name: "second" });
    expect(made.status, made.text).toBe(201);
    second = made.body.data.id;
  });

  it("X-Workspace-Id naming a workspace the user is not in answers 404, as a malformed one does", async () => {
    const me: Caller = { cookie: stranger.token, csrf: stranger.csrf };
    await unchanged([team.workspaceId, stranger.accountId], async () => {
      for (const named of [team.workspaceId, team.workspaceId.toUpperCase(), "not-a-uuid", "' OR 1=1 --"]) {
        expectV1Error(
          await callAs(origin(), "GET", "/api/v1/links", inWorkspace(me, named)),
          404,
          "NOT_FOUND",
        );
        const write = await callAs(origin(), "POST", "/api/v1/links", inWorkspace(me, named), {
          url: "https://ws-stranger.example/",
        });
        expectV1Error(write, 404, "NOT_FOUND");
      }
    });
  });

  it("a workspace's id in a path must be the request's workspace: 404 otherwise, even for its owner", async () => {
    const asStranger: Caller = { cookie: stranger.token, csrf: stranger.csrf };
    const inTeam = inWorkspace(owner(), team.workspaceId);
    await unchanged([team.workspaceId, second], async () => {
      for (const [who, target] of [
        [asStranger, team.workspaceId],
        [inTeam, second],
        [inWorkspace(owner(), second), team.workspaceId],
      ] as const) {
        const path = `/api/v1/workspaces/${target}`;
        expectV1Error(await callAs(origin(), "GET", path, who), 404, "NOT_FOUND");
        expectV1Error(await callAs(origin(), "PATCH", path, who, { name: "renamed" }), 404, "NOT_FOUND");
        expectV1Error(await callAs(origin(), "GET", `${path}/members`, who), 404, "NOT_FOUND");
        expectV1Error(await callAs(origin(), "DELETE", path, who), 404, "NOT_FOUND");
        const invited = await invite(origin(), who, target, uniqueEmail("ws-cross"), "viewer");
        expectV1Error(invited, 404, "NOT_FOUND");
      }
      // A key is its own workspace's, whoever made it.
      const key = { key: team.ownerKey };
      expectV1Error(await callAs(origin(), "GET", `/api/v1/workspaces/${second}`, key), 404, "NOT_FOUND");
    });
    // Named in the header, the same request acts there.
    const own = await callAs(origin(), "GET", `/api/v1/workspaces/${second}`, inWorkspace(owner(), second));
    expect(own.status, own.text).toBe(200);
    expect(own.body.data).toMatchObject({ id: second, name: "second", role: "owner" });
  });
});

describe("a viewer through the older API", () => {
  it("cannot write, with a key or a session: 403 in the older envelope", async () => {
    const viewer = team.people.viewer;
    const key = await keyOf(origin(), viewer);
    await unchanged([team.workspaceId], async () => {
      for (const who of [{ key }, viewer.session]) {
        const campaign = await callAs(origin(), "POST", "/api/campaign/add", who, { name: "viewer's" });
        expectLegacyError(campaign, 403);
        expect(campaign.body.message).toContain("campaigns:write");
        expectLegacyError(await callAs(origin(), "POST", "/api/channel/add", who, { name: "viewer's" }), 403);
        expectLegacyError(
          await callAs(origin(), "POST", "/api/domain/add", who, { domain: "https://viewer.example.test" }),
          403,
        );
        expectLegacyError(
          await callAs(origin(), "POST", "/api/overlay/add", who, { type: "message", name: "viewer's" }),
          403,
        );
      }
      // Reading is theirs.
      expect((await callAs(origin(), "GET", "/api/campaigns", { key })).status).toBe(200);
    });
    expect(await bed.prisma.campaign.count({ where: { accountId: team.workspaceId } })).toBe(0);
  });
});

describe("deleting a workspace", () => {
  it("one that holds links is refused (409)", async () => {
    const person = await registerOwner(origin(), "ws-full");
    const me: Caller = { cookie: person.token, csrf: person.csrf };
    const other = await callAs(origin(), "POST", "/api/v1/workspaces", me, { name: "other" });
    expect(other.status, other.text).toBe(201);
    const link = await callAs(origin(), "POST", "/api/v1/links", me, { url: "https://ws-full.example/" });
    expect(link.status, link.text).toBe(201);
    await unchanged([person.accountId], async () => {
      const res = await callAs(origin(), "DELETE", `/api/v1/workspaces/${person.accountId}`, me);
      expectV1Error(res, 409, "CONFLICT");
      expect(res.body.error.message).toContain("1 links");
    });
  });

  it("deleting a user's only workspace leaves them a new, empty one of their own", async () => {
    const person = await registerOwner(origin(), "ws-only");
    const me: Caller = { cookie: person.token, csrf: person.csrf };
    const res = await callAs(origin(), "DELETE", `/api/v1/workspaces/${person.accountId}`, me);
    expect(res.status, res.text).toBe(200);
    const session = await callAs(origin(), "GET", "/api/v1/auth/session", me);
    expect(session.status, session.text).toBe(200);
    expect(session.body.data.account_id).not.toBe(person.accountId);
    expect(session.body.data.role).toBe("owner");
    expect(session.body.data.workspaces).toHaveLength(1);
    expect(await bed.prisma.account.count({ where: { id: person.accountId } })).toBe(0);
  });

  it("an admin cannot delete it (403 naming workspace:owner)", async () => {
    await unchanged([team.workspaceId], async () => {
      const res = await callAs(origin(), "DELETE", ws(), admin());
      expectV1Error(res, 403, "FORBIDDEN");
      expect(res.body.error.details).toEqual({ required_scope: "workspace:owner" });
    });
  });
});
