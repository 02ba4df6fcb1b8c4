// Leaving for good (docs/workspaces.md): GET /api/v1/users/me/deletion-preview and DELETE
// /api/v1/users/me. The person goes with every workspace they alone own; a workspace with another
// owner stays, without them and their keys. A sole owner whose workspace has other members is refused
// unless they ask for it to go too (`delete_shared_workspaces`): deleting people's work as a side effect
// of someone else leaving must be a choice made on purpose, and transferring ownership keeps it.
import type { DeletedUser, DeleteUserBody, DeletionPreview, Role } from "@kurz/contracts";
import { LINKS_EXPORT_PATH } from "@kurz/contracts";
import type { ApiKey, Prisma, PrismaClient } from "@kurz/db";
import { apiError } from "@kurz/service-kit";
import { recordAudit } from "../audit/record-audit.ts";
import { forgetCachedSessions, tombstone } from "../sessions/sessions.ts";
import { clearAccountFailures } from "../sessions/signin-limits.ts";
import { requireRecentPassword } from "../sessions/sudo.ts";
import {
  afterWorkspaceErased,
  type EraseDeps,
  type ErasedWorkspace,
  eraseWorkspaceInTx,
  forgetKeys,
  rateLimitKeys,
} from "../workspaces/erase-workspace.ts";
import type { AuthDeps } from "./auth-deps.ts";

type Db = Prisma.TransactionClient | PrismaClient;
type DeleteDeps = EraseDeps & Pick<AuthDeps, "prisma" | "redis" | "signinLimits">;

/** A big workspace's links, events and codes are many statements: more than the default 5 s. */
const ERASE_TIMEOUT_MS = 120_000;

interface Plan {
  email: string;
  deleted: DeletionPreview["workspaces_deleted"];
  shared: DeletionPreview["workspaces_shared"];
  left: DeletionPreview["workspaces_left"];
}

/** What deleting `userId` would do, read from `db` (inside the delete's transaction, under its locks). */
async function planFor(db: Db, userId: string): Promise<Plan> {
  const user = await db.user.findUniqueOrThrow({ where: { id: userId }, select: { email: true } });
  const memberships = await db.membership.findMany({
    where: { userId },
    orderBy: { accountId: "asc" },
    select: {
      role: true,
      account: {
        select: {
          id: true,
          name: true,
          _count: { select: { links: true } },
          memberships: { where: { userId: { not: userId } }, select: { role: true } },
        },
      },
    },
  });
  const plan: Plan = { email: user.email, deleted: [], shared: [], left: [] };
  for (const { role, account } of memberships) {
    const others = account.memberships;
    if (role === "owner" && !others.some((m) => m.role === "owner")) {
      const going = {
        id: account.id,
        name: account.name,
        links: account._count.links,
        other_members: others.length,
      };
      (others.length === 0 ? plan.deleted : plan.shared).push(going);
    } else {
      plan.left.push({ id: account.id, name: account.name, role: role as Role });
    }
  }
  return plan;
}

export async function deletionPreview(prisma: PrismaClient, userId: string): Promise<DeletionPreview> {
  const { email, deleted, shared, left } = await planFor(prisma, userId);
  return {
    email,
    workspaces_deleted: deleted,
    workspaces_shared: shared,
    workspaces_left: left,
    export: { method: "GET", path: LINKS_EXPORT_PATH },
  };
}

const sharedRefused = (shared: Plan["shared"]) =>
  apiError(
    "CONFLICT",
    `You are the only owner of ${shared.map((w) => `"${w.name}"`).join(", ")}, which other people use: make one of them an owner first, or send delete_shared_workspaces: true to delete it with everything in it`,
    { workspaces: shared.map((w) => w.id) },
  );

/**
 * Deletes the signed-in user (a session, the password confirmed, `confirm` their e-mail). Nothing
 * changes when any check fails. Returns what went; the caller clears the session cookie.
 */
export async function deleteUser(
  deps: DeleteDeps,
  caller: { userId: string; sessionId: string },
  body: DeleteUserBody,
  clientHash: string | null,
  now = new Date(),
): Promise<DeletedUser> {
  const { userId } = caller;
  const before = await planFor(deps.prisma, userId);
  // Before the password: a slip of the keyboard changes nothing, not even the session's confirmation.
  if (body.confirm.trim().toLowerCase() !== before.email) {
    throw apiError("VALIDATION_ERROR", "Type your e-mail address in `confirm` to delete your account", {
      _errors: [],
      confirm: { _errors: ["Does not match your e-mail address"] },
    });
  }
  await requireRecentPassword(deps, caller, body.current_password, clientHash, now);
  if (before.shared.length > 0 && body.delete_shared_workspaces !== true) throw sharedRefused(before.shared);

  const done = await deps.prisma.$transaction(
    async (tx) => {
      // Every workspace of the person locked, in one order (no deadlock with another leaver), then
      // planned again: a member added or an owner made meanwhile changes what may go.
      await tx.$queryRaw`
        SELECT a.id FROM accounts a JOIN memberships m ON m.account_id = a.id
        WHERE m.user_id = ${userId}::uuid ORDER BY a.id FOR UPDATE OF a`;
      const plan = await planFor(tx, userId);
      if (plan.shared.length > 0 && body.delete_shared_workspaces !== true) throw sharedRefused(plan.shared);
      const erased: ErasedWorkspace[] = [];
      for (const w of [...plan.deleted, ...plan.shared]) {
        erased.push(await eraseWorkspaceInTx(tx, w.id, userId));
      }
      const leftIds = plan.left.map((w) => w.id);
      // Their keys in the workspaces that stay would outlive them (the creator is set to null).
      const revoked = await tx.apiKey.updateManyAndReturn({
        where: { createdByUserId: userId, revokedAt: null },
        data: { revokedAt: now },
      });
      const stale = await tx.apiKey.findMany({
        where: { createdByUserId: userId, revokedAt: { not: null } },
      });
      await handContactEmails(tx, leftIds, plan.email, userId);
      // The workspaces that stay record that the person left them for good, and what went with them.
      await recordAudit(tx, [
        ...leftIds.map((accountId) => ({
          accountId,
          action: "member.left",
          resourceType: "member",
          resourceId: userId,
          details: { account_deleted: true },
        })),
        ...revoked
          .filter((k) => leftIds.includes(k.accountId))
          .map((k) => ({
            accountId: k.accountId,
            action: "api_key.revoked",
            resourceType: "api_key",
            resourceId: k.id,
            details: { name: k.name, account_deleted: true },
          })),
      ]);
      const sessions = await tx.session.findMany({ where: { userId }, select: { tokenHash: true } });
      // Memberships, sessions, known devices, resets and e-mail changes go by the cascade; invitations
      // they sent stay (the workspace's), without their name; keys they made are kept revoked, nameless.
      await tx.user.delete({ where: { id: userId } });
      return { erased, leftIds, keys: [...revoked, ...stale], sessions: sessions.map((s) => s.tokenHash) };
    },
    { timeout: ERASE_TIMEOUT_MS },
  );

  await tombstone(deps.redis, done.sessions);
  await forgetKeys(deps.redis, done.keys satisfies ApiKey[], now);
  await deps.redis.del(...rateLimitKeys([`session:${userId}`], Math.floor(now.getTime() / 1000)));
  await clearAccountFailures(deps.redis, deps.signinLimits, before.email);
  for (const erased of done.erased) {
    await afterWorkspaceErased(deps, erased, now);
    for (const member of erased.members) await forgetCachedSessions(deps.prisma, deps.redis, member);
  }
  return {
    deleted: true,
    workspaces_deleted: done.erased.map((e) => e.accountId),
    workspaces_left: done.leftIds,
  };
}

/**
 * A workspace's contact e-mail is its creator's at creation: where it is still the leaver's, it
 * becomes that of an owner who stays (the earliest).
 */
async function handContactEmails(
  tx: Prisma.TransactionClient,
  accountIds: readonly string[],
  email: string,
  userId: string,
): Promise<void> {
  if (accountIds.length === 0) return;
  await tx.$executeRaw`
    UPDATE accounts a SET email = COALESCE((
      SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.account_id = a.id AND m.role = 'owner' AND m.user_id <> ${userId}::uuid
      ORDER BY m.created_at, u.id LIMIT 1), a.email)
    WHERE a.id = ANY(${accountIds}::uuid[]) AND a.email = ${email}`;
}
