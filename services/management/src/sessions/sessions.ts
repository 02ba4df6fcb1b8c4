// Sessions (docs/decisions/0021-sessions-and-csrf.md): an opaque 256-bit token in the browser's
// cookie, its SHA-256 in Postgres (a leaked table signs nobody in), a CSRF token tied to it, and an
// idle expiry that each use pushes forward. The gateway caches records in Redis; ending a session
// deletes its row and then writes a tombstone over its cache entry, so no gateway path accepts it
// again, and a gateway lookup that raced with the end cannot write it back (it writes only where no
// tombstone is). This file holds what the session use cases share: issuing one, its JSON and lookups.
import { createHash, randomBytes } from "node:crypto";
import { SESSION_TOMBSTONE, type Session, type SessionRecord, sessionCacheKey } from "@kurz/contracts";
import type { PrismaClient, Session as SessionRow } from "@kurz/db";
import { serviceUnavailable } from "@kurz/service-kit";
import type { Redis } from "ioredis";

export const HOUR_MS = 3_600_000;

/** Longer than any gateway cache entry (SESSION_CACHE_TTL_SECONDS), so a tombstone outlives them all. */
export const TOMBSTONE_SECONDS = 3600;

export const hashSessionToken = (token: string): string => createHash("sha256").update(token).digest("hex");

export interface IssuedSession {
  token: string;
  row: SessionRow & { account: { email: string } };
}

export type SessionDb = Pick<PrismaClient, "session">;

/** Always a fresh token: a token the client brought is never adopted (no session fixation). */
export async function issueSession(
  db: SessionDb,
  accountId: string,
  ttlMs: number,
  now = new Date(),
): Promise<IssuedSession> {
  const token = randomBytes(32).toString("base64url");
  const row = await db.session.create({
    data: {
      accountId,
      tokenHash: hashSessionToken(token),
      csrfToken: randomBytes(32).toString("base64url"),
      createdAt: now,
      renewedAt: now,
      expiresAt: new Date(now.getTime() + ttlMs),
    },
    include: { account: { select: { email: true } } },
  });
  return { token, row };
}

export function toSession(row: SessionRow & { account: { email: string } }): Session {
  return {
    account_id: row.accountId,
    email: row.account.email,
    expires_at: row.expiresAt.toISOString(),
    csrf_token: row.csrfToken,
  };
}

export function toSessionRecord(row: SessionRow & { account: { email: string } }): SessionRecord {
  return {
    session_id: row.id,
    account_id: row.accountId,
    email: row.account.email,
    csrf_token: row.csrfToken,
    renewed_at: row.renewedAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}

/** The live session with this token hash, or null (unknown or expired). */
export async function findLiveSession(prisma: PrismaClient, tokenHash: string, now = new Date()) {
  return prisma.session.findFirst({
    where: { tokenHash, expiresAt: { gt: now } },
    include: { account: { select: { email: true } } },
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
