// Changing who is in a workspace and with what role: the rules every such change obeys, and what
// follows it. Admins act on members below owner; only owners make, demote or remove owners; the last
// owner stays; one who leaves their last workspace gets an empty one of their own. Afterwards the
// person's keys in the workspace are narrowed to the new role (or revoked when they leave), and their
// sessions' cached memberships are dropped, so the gateway applies the change to their next request.
import { ROLE_SCOPES, type Role, type Scope } from "@kurz/contracts";
import type { ApiKey, Membership, Prisma, PrismaClient } from "@kurz/db";
import { conflict, forbidden } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { defaultWorkspaceName } from "../accounts/create-account.ts";
import { recordAudit } from "../audit/record-audit.ts";
import { knownScopes } from "../keys/api-keys.ts";
import { invalidateGatewayCache, revokeAllApiKeys } from "../keys/revoke-api-key.ts";
import { forgetCachedSessions } from "../sessions/sessions.ts";
import { type Caller, lockWorkspace, noSuchMember, ownerCount } from "./workspaces.ts";

export interface MembershipDeps {
  prisma: PrismaClient;
  redis: Redis;
}

/** What the caller may do to `target`'s membership, moving it to `next` (null: out of the workspace). */
function checkAllowed(caller: Caller, target: Membership, next: Role | null): void {
  const self = target.userId === caller.userId;
  const touchesOwner = target.role === "owner" || next === "owner";
  if (touchesOwner && !caller.scopes.includes("workspace:owner") && !(self && next === null)) {
    throw forbidden("Only an owner can make, demote or remove an owner");
  }
}

/**
 * Moves `userId`'s membership of the caller's workspace to `next`, or ends it (null), under the
 * workspace's lock; `self` marks a member leaving on their own. Returns the membership as it was.
 */
export async function changeMembership(
  deps: MembershipDeps,
  caller: Caller,
  userId: string,
  next: Role | null,
): Promise<Membership & { user: { email: string } }> {
  const accountId = caller.accountId;
  const { before, narrowed } = await deps.prisma.$transaction(async (tx) => {
    await lockWorkspace(tx, accountId);
    const target = await tx.membership.findUnique({
      where: { accountId_userId: { accountId, userId } },
      include: { user: { select: { email: true } } },
    });
    if (!target) throw noSuchMember();
    checkAllowed(caller, target, next);
    if (target.role === "owner" && next !== "owner" && (await ownerCount(tx, accountId)) <= 1) {
      throw conflict("A workspace keeps at least one owner: make another member owner first");
    }
    if (next === null) {
      await tx.membership.delete({ where: { accountId_userId: { accountId, userId } } });
      await keepAWorkspace(tx, userId, target.user.email);
    } else
      await tx.membership.update({
        where: { accountId_userId: { accountId, userId } },
        data: { role: next },
      });
    const narrowed = next === null ? [] : await narrowKeys(tx, { accountId, userId }, ROLE_SCOPES[next]);
    await recordAudit(tx, {
      accountId,
      action:
        next === null ? (userId === caller.userId ? "member.left" : "member.removed") : "member.role_changed",
      resourceType: "member",
      resourceId: userId,
      details:
        next === null
          ? { email: target.user.email, role: target.role }
          : { email: target.user.email, from: target.role, to: next },
    });
    return { before: target, narrowed };
  });
  // After the commit: the gateway's cached keys turn narrower (or revoked) only once the rows are.
  for (const key of narrowed) await invalidateGatewayCache(deps.redis, key);
  if (next === null) await revokeAllApiKeys(deps, { createdByUserId: userId, accountId });
  await forgetCachedSessions(deps.prisma, deps.redis, userId);
  return before;
}

/**
 * Every user belongs to a workspace (a session always has one to act in): one who leaves their last
 * gets a new, empty one of their own.
 */
export async function keepAWorkspace(
  tx: Prisma.TransactionClient,
  userId: string,
  email: string,
): Promise<void> {
  if ((await tx.membership.count({ where: { userId } })) > 0) return;
  await tx.account.create({
    data: { email, name: defaultWorkspaceName(email), memberships: { create: { userId, role: "owner" } } },
  });
}

/** Takes from the user's live keys in the workspace every scope `granted` lacks; returns the changed keys. */
async function narrowKeys(
  tx: Prisma.TransactionClient,
  where: { accountId: string; userId: string },
  granted: readonly Scope[],
): Promise<ApiKey[]> {
  const keys = await tx.apiKey.findMany({
    where: { accountId: where.accountId, createdByUserId: where.userId, revokedAt: null },
  });
  const narrowed: ApiKey[] = [];
  for (const key of keys) {
    const scopes = knownScopes(key.scopes).filter((s) => granted.includes(s));
    if (scopes.length === key.scopes.length) continue;
    narrowed.push(await tx.apiKey.update({ where: { id: key.id }, data: { scopes } }));
  }
  return narrowed;
}
