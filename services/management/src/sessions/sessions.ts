// Sessions (docs/decisions/0021-sessions-and-csrf.md): an opaque 256-bit token in the browser's
// cookie, its SHA-256 in Postgres (a leaked table signs nobody in), a CSRF token tied to it, and an
// idle expiry that each use pushes forward. The gateway caches records in Redis; ending a session
// deletes its row and then writes a tombstone over its cache entry, so no gateway path accepts it
// again, and a gateway lookup that raced with the end cannot write it back (it writes only where no
// tombstone is). This file holds what the session use cases share: issuing one, its JSON and lookups.
import {
  type Role,
  SESSION_TOMBSTONE,
  type Session,
  type SessionRecord,
  sessionCacheKey,
} from "@kurz/contracts";
import type { Prisma, PrismaClient, Session as SessionRow } from "@kurz/db";
import { forbidden, serviceUnavailable } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { hashToken, newToken } from "../security/tokens.ts";

export const HOUR_MS = 3_600_000;

/** Longer than any gateway cache entry (SESSION_CACHE_TTL_SECONDS), so a tombstone outlives them all. */
export const TOMBSTONE_SECONDS = 3600;

export const hashSessionToken = hashToken;

/** A session row with what its JSON needs: the user's e-mail and memberships, first workspace first. */
export type SessionWithUser = SessionRow & {
  user: {
    email: string;
    memberships: { accountId: string; role: string; account: { name: string; requireTwoFactor: boolean } }[];
    totp: { confirmedAt: Date | null } | null;
    _count: { passkeys: number };
  };
};

/** What every session lookup includes for toSession and toSessionRecord. */
export const SESSION_USER = {
  user: {
    select: {
      email: true,
      memberships: {
        select: {
          accountId: true,
          role: true,
          account: { select: { name: true, requireTwoFactor: true } },
        },
        orderBy: [{ createdAt: "asc" }, { accountId: "asc" }],
      },
      // Whether the user has a second factor: a workspace that requires one holds back a user without.
      totp: { select: { confirmedAt: true } },
      _count: { select: { passkeys: true } },
    },
  },
} as const satisfies Prisma.SessionInclude;

export interface IssuedSession {
  token: string;
  row: SessionWithUser;
}

export type SessionDb = Pick<PrismaClient, "session">;

/** Always a fresh token: a token the client brought is never adopted (no session fixation). */
export async function issueSession(
  db: SessionDb,
  userId: string,
  ttlMs: number,
  now = new Date(),
  /** The single sign-on provider signing the person in: "server", or its workspace's id. */
  ssoProvider: string | null = null,
): Promise<IssuedSession> {
  const token = newToken();
  const row = await db.session.create({
    data: {
      userId,
      ssoProvider,
      tokenHash: hashSessionToken(token),
      csrfToken: newToken(),
      createdAt: now,
      renewedAt: now,
      expiresAt: new Date(now.getTime() + ttlMs),
    },
    include: SESSION_USER,
  });
  return { token, row };
}

const workspacesOf = (row: SessionWithUser) =>
  row.user.memberships.map((m) => ({
    id: m.accountId,
    name: m.account.name,
    role: m.role as Role,
    require_two_factor: m.account.requireTwoFactor,
  }));

const hasSecondFactor = (row: SessionWithUser) =>
  row.user.totp?.confirmedAt != null || row.user._count.passkeys > 0;

/**
 * Whether the session meets `workspaceId`'s two-factor requirement: the user has a factor, or a single
 * sign-on provider signed the session in that the workspace trusts (the server's, or its own), whose
 * own sign-in owns the second factor.
 */
const meetsTwoFactor = (row: SessionWithUser, workspaceId: string) =>
  hasSecondFactor(row) || row.ssoProvider === "server" || row.ssoProvider === workspaceId;

/**
 * The session as its owner sees it, acting in `accountId` (the request's workspace; default: the
 * user's first). A user in no workspace has none to name: 403.
 */
export function toSession(row: SessionWithUser, accountId?: string): Session {
  const workspaces = workspacesOf(row);
  const current = accountId === undefined ? workspaces[0] : workspaces.find((w) => w.id === accountId);
  if (!current) throw forbidden("You belong to no workspace; create one or accept an invitation");
  return {
    account_id: current.id,
    user_id: row.userId,
    email: row.user.email,
    role: current.role,
    workspaces,
    two_factor: hasSecondFactor(row),
    expires_at: row.expiresAt.toISOString(),
    csrf_token: row.csrfToken,
  };
}

export function toSessionRecord(row: SessionWithUser): SessionRecord {
  return {
    session_id: row.id,
    user_id: row.userId,
    email: row.user.email,
    workspaces: workspacesOf(row).map(({ id, role, require_two_factor }) => ({
      id,
      role,
      two_factor_missing: require_two_factor && !meetsTwoFactor(row, id),
    })),
    csrf_token: row.csrfToken,
    renewed_at: row.renewedAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}

/** The live session with this token hash, or null (unknown or expired). */
export async function findLiveSession(prisma: PrismaClient, tokenHash: string, now = new Date()) {
  return prisma.session.findFirst({
    where: { tokenHash, expiresAt: { gt: now } },
    include: SESSION_USER,
  });
}

export async function tombstone(redis: Redis, tokenHashes: string[]): Promise<void> {
  try {
    const batch = redis.multi();
    for (const hash of tokenHashes)
      batch.set(sessionCacheKey(hash), SESSION_TOMBSTONE, "EX", TOMBSTONE_SECONDS);
    await batch.exec();
  } catch {
    // The rows are gone, so a retry finds nothing to tombstone: say so rather than claim success.
    throw serviceUnavailable("Sessions ended, but caches could not be updated for up to a minute; retry");
  }
}

/**
 * Drops the cached records of `userId`'s live sessions after their memberships changed, so the
 * gateway's next lookup reads the new ones from Postgres. Called after the change commits; a lookup
 * that read the old memberships just before may still write them back, for at most the gateway's
 * cache lifetime (SESSION_CACHE_TTL_SECONDS).
 */
export async function forgetCachedSessions(
  prisma: PrismaClient,
  redis: Redis,
  userId: string,
): Promise<void> {
  const rows = await prisma.session.findMany({ where: { userId }, select: { tokenHash: true } });
  if (rows.length === 0) return;
  try {
    await redis.del(...rows.map((r) => sessionCacheKey(r.tokenHash)));
  } catch {
    throw serviceUnavailable("The change is saved, but signed-in sessions may see it only within a minute");
  }
}
