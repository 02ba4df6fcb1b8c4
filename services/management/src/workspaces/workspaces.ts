// What the workspace and member use cases share: the caller, the JSON of a workspace and a member, and
// the lock that serialises changes to one workspace's memberships (so "the last owner stays" holds
// under concurrent requests).
import type { Member, Role, Workspace } from "@kurz/contracts";
import type { Account, Membership, Prisma } from "@kurz/db";
import { type KeyIdentity, notFound } from "@kurz/service-kit";

export type Caller = Pick<KeyIdentity, "accountId" | "userId" | "sessionId" | "scopes" | "role">;

/** A workspace's id in a path must be the request's own: any other answers as if it did not exist. */
export function requireOwnWorkspace(caller: Caller, id: string): void {
  if (id.toLowerCase() !== caller.accountId) throw noSuchWorkspace();
}

export const noSuchWorkspace = () => notFound("No such workspace");
export const noSuchMember = () => notFound("No such member");

export function toWorkspace(account: Account, role: Role | null): Workspace {
  return {
    id: account.id,
    name: account.name,
    role,
    require_two_factor: account.requireTwoFactor,
    created_at: account.createdAt.toISOString(),
    audit_retention_days: account.auditRetentionDays,
  };
}

export function toMember(m: Membership & { user: { email: string } }): Member {
  return {
    user_id: m.userId,
    email: m.user.email,
    role: m.role as Role,
    joined_at: m.createdAt.toISOString(),
  };
}

/** Locks the workspace's row for the rest of the transaction; 404 when it is gone. */
export async function lockWorkspace(tx: Prisma.TransactionClient, accountId: string): Promise<void> {
  const locked = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
  if (locked.length === 0) throw noSuchWorkspace();
}

/** How many owners the workspace has (inside a transaction holding its lock). */
export const ownerCount = (tx: Prisma.TransactionClient, accountId: string) =>
  tx.membership.count({ where: { accountId, role: "owner" } });
