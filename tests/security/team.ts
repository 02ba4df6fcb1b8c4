// A workspace with people in it, made as people make one: its owner signs up, then invites each other
// member by e-mail, who accepts with a password of their own (which creates their user and signs them
// in). Shared by the role and workspace attack files.
import type { Role } from "@kurz/contracts";
import { expect } from "vitest";
import {
  type Caller,
  callAs,
  type RawResponse,
  registerOwner,
  sessionTokenOf,
  uniqueEmail,
} from "./attack.ts";

/** Someone in a workspace: their session (a Caller) and who they are. */
export interface Person {
  role: Role;
  email: string;
  password: string;
  userId: string;
  /** Their session's cookie and CSRF token. */
  session: Caller;
}

export interface Team {
  workspaceId: string;
  /** The owner's first key (sign-up's). */
  ownerKey: string;
  people: Record<Role, Person>;
}

async function expectOk(res: Promise<RawResponse>, status = 200): Promise<RawResponse> {
  const r = await res;
  expect(r.status, r.text).toBe(status);
  return r;
}

/** The single-use token of an invitation's accept link (it rides in the link's fragment). */
export const invitationToken = (created: RawResponse): string => {
  const token = /#invitation=([A-Za-z0-9_-]+)$/.exec(created.body.data.accept_url)?.[1];
  if (!token) throw new Error(`no token in ${created.text}`);
  return token;
};

/** POST …/invitations as `inviter`, in `workspaceId`: the raw answer. */
export const invite = (origin: string, inviter: Caller, workspaceId: string, email: string, role: Role) =>
  callAs(origin, "POST", `/api/v1/workspaces/${workspaceId}/invitations`, inviter, { email, role });

/** POST /api/v1/invitations/:token/accept: the raw answer. */
export const accept = (origin: string, token: string, password: string) =>
  callAs(origin, "POST", `/api/v1/invitations/${token}/accept`, {}, { password });

/** The session an accept (or sign-in) answer sets, as a Caller. */
export const sessionOf = (res: RawResponse): Caller => ({
  cookie: sessionTokenOf(res),
  csrf: res.body.data.session.csrf_token,
});

/** Invites a new e-mail into `workspaceId` with `role` as `inviter`, and accepts: the new person. */
export async function join(
  origin: string,
  inviter: Caller,
  workspaceId: string,
  role: Role,
  tag: string,
): Promise<Person> {
  const email = uniqueEmail(`${tag}-${role}`);
  const password = `pw-${tag}-${role}-long-enough`;
  const created = await expectOk(invite(origin, inviter, workspaceId, email, role), 201);
  const accepted = await expectOk(accept(origin, invitationToken(created), password));
  expect(accepted.body.data.session).toMatchObject({ account_id: workspaceId, role });
  return { role, email, password, userId: accepted.body.data.session.user_id, session: sessionOf(accepted) };
}

/** A workspace with an owner (signed up) and an admin, a member and a viewer (invited by the owner). */
export async function makeTeam(origin: string, tag: string): Promise<Team> {
  const owner = await registerOwner(origin, `${tag}-owner`);
  const ownerSession: Caller = { cookie: owner.token, csrf: owner.csrf };
  const session = await expectOk(callAs(origin, "GET", "/api/v1/auth/session", ownerSession));
  const others = await Promise.all(
    (["admin", "member", "viewer"] as const).map((role) =>
      join(origin, ownerSession, owner.accountId, role, tag),
    ),
  );
  const [admin, member, viewer] = others as [Person, Person, Person];
  return {
    workspaceId: owner.accountId,
    ownerKey: owner.key,
    people: {
      owner: {
        role: "owner",
        email: owner.email,
        password: owner.password,
        userId: session.body.data.user_id,
        session: ownerSession,
      },
      admin,
      member,
      viewer,
    },
  };
}

/**
 * A key `person` makes with their session (their password re-entered), with `scopes` when given (else
 * all their role grants): the raw answer.
 */
export const createKeyAs = (
  origin: string,
  person: Person,
  scopes?: readonly string[],
  as: Caller = person.session,
) =>
  callAs(origin, "POST", "/api/v1/account/keys", as, {
    name: `${person.role} key`,
    current_password: person.password,
    ...(scopes ? { scopes } : {}),
  });

/** createKeyAs, which must succeed: the key itself. */
export async function keyOf(origin: string, person: Person, scopes?: readonly string[]): Promise<string> {
  const res = await expectOk(createKeyAs(origin, person, scopes), 201);
  return res.body.data.key as string;
}
