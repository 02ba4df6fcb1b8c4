// The role matrix (docs/workspaces.md), generated from contracts: every route record that needs a scope
// (ROUTE_SCOPES) is called by an owner, an admin, a member and a viewer of one workspace. A role whose
// scopes (ROLE_SCOPES) lack the route's gets 403 naming that scope, in the route's envelope; a role
// that has it gets past the check (whatever the made-up ids and minimal bodies then answer, never 401
// or 403). A new route is in the matrix as soon as it is declared. Then scoped keys: what a key may
// do is its own scopes, never more than its creator's role, and it follows the creator's membership.
import { randomUUID } from "node:crypto";
import {
  ROLE_SCOPES,
  ROLES,
  ROUTE_DEFS,
  type Role,
  type RouteDef,
  type Scope,
  scopeOf,
} from "@kurz/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type Caller,
  callAs,
  expectLegacyError,
  expectV1Error,
  ONE_CLIENT_AUTH_LIMITS,
  type RawResponse,
  useAttackStack,
} from "./attack.ts";
import { createKeyAs, join, keyOf, makeTeam, type Team } from "./team.ts";

// Each person's session makes some 60 requests within a minute here.
const bed = useAttackStack(
  { ...ONE_CLIENT_AUTH_LIMITS, SESSION_RATE_LIMIT_PER_MINUTE: "100000" },
  { inProcess: true },
);

const isLegacy = (def: RouteDef) => !def.path.startsWith("/api/v1/");

/**
 * A syntactically valid value for each path parameter, read from the record's params schema: a UUID,
 * an integer id or a code, whichever the parameter accepts. Nothing with these ids exists.
 */
const CANDIDATES = [randomUUID(), "2147483000", "nosuchcode9"];
function samplePath(def: RouteDef): string {
  const names = Object.keys(def.params?.shape ?? {});
  // A candidate fits a parameter when the schema raises no issue about that parameter.
  const fits = (name: string, value: string) =>
    !def.params
      ?.safeParse(Object.fromEntries(names.map((n) => [n, value])))
      .error?.issues.some((issue) => issue.path[0] === name);
  return def.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
    const value = CANDIDATES.find((c) => fits(name, c));
    if (value === undefined) throw new Error(`${def.method} ${def.path}: no sample value fits :${name}`);
    return value;
  });
}

interface Case {
  def: RouteDef;
  scope: Scope;
  role: Role;
}

const CASES: Case[] = ROUTE_DEFS.flatMap((def) => {
  const scope = scopeOf(def);
  return scope === null ? [] : ROLES.map((role) => ({ def, scope, role }));
});
const name = (c: Pick<Case, "def" | "role">) => `${c.role} ${c.def.method} ${c.def.path}`;

describe("each role against each route that needs a scope", () => {
  let team: Team;
  /** Each role's key with everything its role grants: the older API takes keys on most of its paths. */
  const keys = {} as Record<Role, string>;
  const answers = new Map<string, RawResponse>();

  beforeAll(async () => {
    team = await makeTeam(bed.stack.origin, "roles");
    for (const role of ROLES) keys[role] = await keyOf(bed.stack.origin, team.people[role]);
    const call = (c: Case) => {
      const who: Caller = isLegacy(c.def) ? { key: keys[c.role] } : team.people[c.role].session;
      const body = c.def.body || c.def.bodyParser || c.def.consumes ? {} : undefined;
      return callAs(bed.stack.origin, c.def.method, samplePath(c.def), who, body);
    };
    // Modest batches of independent requests: made-up ids and minimal bodies, so no answer depends on
    // another (a minimal campaign is the most any of them makes).
    for (let i = 0; i < CASES.length; i += 16) {
      const batch = CASES.slice(i, i + 16);
      const got = await Promise.all(batch.map(async (c) => [name(c), await call(c)] as const));
      for (const [key, res] of got) answers.set(key, res);
    }
  }, 120_000);

  it("covers every route that needs a scope, in both APIs", () => {
    expect(CASES.some((c) => isLegacy(c.def))).toBe(true);
    expect(CASES.some((c) => !isLegacy(c.def))).toBe(true);
    expect(new Set(CASES.map((c) => c.scope)).size).toBeGreaterThan(10);
  });

  it.each(CASES.map((c) => [name(c), c] as const))("%s", (_name, c) => {
    const res = answers.get(name(c))!;
    if (!ROLE_SCOPES[c.role].includes(c.scope)) {
      if (isLegacy(c.def)) {
        expectLegacyError(res, 403);
        expect(res.body.message).toContain(c.scope);
      } else {
        expectV1Error(res, 403, "FORBIDDEN");
        expect(res.body.error.message).toContain(c.scope);
        expect(res.body.error.details).toEqual({ required_scope: c.scope });
      }
    } else {
      expect(res.status, res.text).not.toBe(401);
      expect(res.status, res.text).not.toBe(403);
      expect(res.status, res.text).toBeLessThan(500);
    }
  });
});

describe("scoped keys", () => {
  const origin = () => bed.stack.origin;
  const link = { url: "https://roles.example/page" };
  let team: Team;

  beforeAll(async () => {
    team = await makeTeam(origin(), "keys");
  }, 60_000);

  const forbiddenScope = (res: RawResponse, scope: Scope) => {
    expectV1Error(res, 403, "FORBIDDEN");
    expect(res.body.error.message).toContain(scope);
  };

  it("a key with links:read lists links and is refused a create, naming links:write", async () => {
    const key = await keyOf(origin(), team.people.owner, ["links:read"]);
    const listed = await callAs(origin(), "GET", "/api/v1/links", { key });
    expect(listed.status, listed.text).toBe(200);
    const created = await callAs(origin(), "POST", "/api/v1/links", { key }, link);
    forbiddenScope(created, "links:write");
    expect(created.body.error.details).toEqual({ required_scope: "links:write" });
    expect(await bed.prisma.link.count({ where: { accountId: team.workspaceId } })).toBe(0);
  });

  it("a viewer cannot make a key with links:write, which their role lacks", async () => {
    const res = await createKeyAs(origin(), team.people.viewer, ["links:read", "links:write"]);
    forbiddenScope(res, "links:write");
    expect(res.body.error.details).toEqual({ scopes: ["links:write"] });
    // What the role grants is still theirs to give.
    expect((await createKeyAs(origin(), team.people.viewer, ["links:read"])).status).toBe(201);
  });

  it("a key cannot mint a key with a scope it lacks", async () => {
    const owner = team.people.owner;
    const minter = await keyOf(origin(), owner, ["links:read", "keys:write"]);
    const res = await createKeyAs(origin(), owner, ["links:write"], { key: minter });
    forbiddenScope(res, "links:write");
    // Nor without naming scopes: it gets the minting key's own, no more.
    const plain = await createKeyAs(origin(), owner, undefined, { key: minter });
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body.data.scopes).toEqual(["links:read", "keys:write"]);
    // And a key without keys:write mints nothing.
    const reader = await keyOf(origin(), owner, ["links:read"]);
    forbiddenScope(await createKeyAs(origin(), owner, ["links:read"], { key: reader }), "keys:write");
  });

  it("demoting a member narrows the keys they made to the new role", async () => {
    const member = await join(
      origin(),
      team.people.owner.session,
      team.workspaceId,
      "member",
      "keys-demoted",
    );
    const key = await keyOf(origin(), member);
    expect((await callAs(origin(), "POST", "/api/v1/links", { key }, link)).status).toBe(201);
    const demoted = await callAs(
      origin(),
      "PATCH",
      `/api/v1/workspaces/${team.workspaceId}/members/${member.userId}`,
      team.people.owner.session,
      { role: "viewer" },
    );
    expect(demoted.status, demoted.text).toBe(200);
    forbiddenScope(await callAs(origin(), "POST", "/api/v1/links", { key }, link), "links:write");
    expect((await callAs(origin(), "GET", "/api/v1/links", { key })).status).toBe(200);
    const row = await bed.prisma.apiKey.findFirstOrThrow({
      where: { accountId: team.workspaceId, createdByUserId: member.userId },
    });
    expect(row.scopes).toEqual([...ROLE_SCOPES.viewer]);
    // Their session follows the role too.
    forbiddenScope(await callAs(origin(), "POST", "/api/v1/links", member.session, link), "links:write");
  });

  it("removing a member revokes their keys and takes the workspace from their session", async () => {
    const member = await join(
      origin(),
      team.people.owner.session,
      team.workspaceId,
      "member",
      "keys-removed",
    );
    const key = await keyOf(origin(), member);
    expect((await callAs(origin(), "GET", "/api/v1/links", { key })).status).toBe(200);
    expect((await callAs(origin(), "GET", "/api/v1/links", member.session)).status).toBe(200);
    const removed = await callAs(
      origin(),
      "DELETE",
      `/api/v1/workspaces/${team.workspaceId}/members/${member.userId}`,
      team.people.admin.session,
    );
    expect(removed.status, removed.text).toBe(200);
    expectV1Error(await callAs(origin(), "GET", "/api/v1/links", { key }), 401, "KEY_REVOKED");
    const named = { ...member.session, headers: { "x-workspace-id": team.workspaceId } };
    expectV1Error(await callAs(origin(), "GET", "/api/v1/links", named), 404, "NOT_FOUND");
    // It was their only workspace: their session now acts in a new, empty one of their own.
    const links = await callAs(origin(), "GET", "/api/v1/links", member.session);
    expect(links.status, links.text).toBe(200);
    expect(links.body.data).toEqual([]);
    const memberships = await bed.prisma.membership.findMany({ where: { userId: member.userId } });
    expect(memberships).toHaveLength(1);
    expect(memberships[0]).toMatchObject({ role: "owner" });
    expect(memberships[0]!.accountId).not.toBe(team.workspaceId);
  });

  it("a removed member's session still acts in their other workspaces, not in this one", async () => {
    const member = await join(origin(), team.people.owner.session, team.workspaceId, "member", "keys-two");
    const own = await callAs(origin(), "POST", "/api/v1/workspaces", member.session, { name: "their own" });
    expect(own.status, own.text).toBe(201);
    const removed = await callAs(
      origin(),
      "DELETE",
      `/api/v1/workspaces/${team.workspaceId}/members/${member.userId}`,
      team.people.owner.session,
    );
    expect(removed.status, removed.text).toBe(200);
    const inTeam = { ...member.session, headers: { "x-workspace-id": team.workspaceId } };
    expectV1Error(await callAs(origin(), "GET", "/api/v1/links", inTeam), 404, "NOT_FOUND");
    const session = await callAs(origin(), "GET", "/api/v1/auth/session", member.session);
    expect(session.status, session.text).toBe(200);
    expect(session.body.data.account_id).toBe(own.body.data.id);
    expect(session.body.data.workspaces.map((w: { id: string }) => w.id)).toEqual([own.body.data.id]);
  });
});
