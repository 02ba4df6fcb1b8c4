// Sessions (docs/decisions/0021-sessions-and-csrf.md): an opaque 256-bit token in the browser's
// cookie, its SHA-256 in Postgres (a leaked table signs nobody in), a CSRF token tied to it, and an
// idle expiry that each use pushes forward. The gateway caches records in Redis; ending a session
// deletes its row and then writes a tombstone over its cache entry, so no gateway path accepts it
// again, and a gateway lookup that raced with the end cannot write it back (it writes only where no
// tombstone is).
import { createHash, randomBytes } from "node:crypto";
import {
  SESSION_TOMBSTONE,
  type Session,
  type SessionList,
  type SessionRecord,
  sessionCacheKey,
} from "@kurz/contracts";
import { Prisma, type PrismaClient, type Session as SessionRow } from "@kurz/db";
import { serviceUnavailable, unauthorized } from "@kurz/service-kit";
import type { Redis } from "ioredis";

export const HOUR_MS = 3_600_000;
/** Longer than any gateway cache entry (SESSION_CACHE_TTL_SECONDS), so a tombstone outlives them all. */
const TOMBSTONE_SECONDS = 3600;

export const hashSessionToken = (token: string): string => createHash("sha256").update(token).digest("hex");

export interface IssuedSession {
  token: string;
  row: SessionRow & { account: { email: string } };
}

type SessionDb = Pick<PrismaClient, "session">;

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

/** The caller's own live session, as GET /api/v1/auth/session answers it; 401 once it has ended. */
export async function currentSession(prisma: PrismaClient, accountId: string, id: string): Promise<Session> {
  const row = await prisma.session.findFirst({
    where: { id, accountId, expiresAt: { gt: new Date() } },
    include: { account: { select: { email: true } } },
  });
  if (!row) throw unauthorized("Not signed in");
  return toSession(row);
}

/** The account's live sessions, most recently used first, the caller's marked `current`. */
export async function listSessions(
  prisma: PrismaClient,
  accountId: string,
  currentId: string,
  now = new Date(),
): Promise<SessionList> {
  const rows = await prisma.session.findMany({
    where: { accountId, expiresAt: { gt: now } },
    orderBy: [{ renewedAt: "desc" }, { id: "asc" }],
  });
  return {
    sessions: rows.map((row) => ({
      id: row.id,
      created_at: row.createdAt.toISOString(),
      last_used_at: row.renewedAt.toISOString(),
      expires_at: row.expiresAt.toISOString(),
      current: row.id === currentId,
    })),
  };
}

/**
 * Pushes a live session's end `sessionTtlMs` past `now`, but never beyond `sessionMaxAgeMs` after it
 * was created (the absolute lifetime: a session in constant use still ends); null when it has ended,
 * this renewal included.
 */
export async function renewSession(
  prisma: PrismaClient,
  tokenHash: string,
  lifetime: { sessionTtlMs: number; sessionMaxAgeMs: number },
  now = new Date(),
) {
  const idleEnd = new Date(now.getTime() + lifetime.sessionTtlMs);
  const count = await prisma.$executeRaw`
    UPDATE sessions
    SET renewed_at = ${now}::timestamptz,
        expires_at = LEAST(${idleEnd}::timestamptz, created_at + make_interval(secs => ${lifetime.sessionMaxAgeMs / 1000}))
    WHERE token_hash = ${tokenHash} AND expires_at > ${now}::timestamptz`;
  return count === 0 ? null : findLiveSession(prisma, tokenHash, now);
}

/**
 * Ends the account's sessions that match (all but `keep` when given) and tombstones their cache
 * entries. The rows go first: a gateway miss after this finds nothing in Postgres either.
 */
export async function endSessions(
  deps: { prisma: PrismaClient; redis: Redis },
  where: { accountId: string; id?: string; keep?: string | null },
): Promise<number> {
  // One statement: a session created while this runs is either deleted and tombstoned, or not
  // touched at all; none is deleted without its tombstone.
  const only = where.id !== undefined ? Prisma.sql`AND id = ${where.id}::uuid` : Prisma.empty;
  const keep = where.keep ? Prisma.sql`AND id <> ${where.keep}::uuid` : Prisma.empty;
  const ended = await deps.prisma.$queryRaw<{ token_hash: string }[]>`
    DELETE FROM sessions WHERE account_id = ${where.accountId}::uuid ${only} ${keep} RETURNING token_hash`;
  if (ended.length > 0) {
    await tombstone(
      deps.redis,
      ended.map((s) => s.token_hash),
    );
  }
  return ended.length;
}

async function tombstone(redis: Redis, tokenHashes: string[]): Promise<void> {
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

/** Deletes expired sessions, at most `batch` rows per statement and `maxBatches` statements per run. */
export async function pruneExpiredSessions(
  prisma: PrismaClient,
  opts: { batch?: number; maxBatches?: number } = {},
): Promise<number> {
  const batch = opts.batch ?? 1000;
  let total = 0;
  for (let i = 0; i < (opts.maxBatches ?? 10); i++) {
    const deleted = await prisma.$executeRaw`
      DELETE FROM sessions WHERE id IN (
        SELECT id FROM sessions WHERE expires_at <= now() ORDER BY expires_at LIMIT ${batch}
      )`;
    total += deleted;
    if (deleted < batch) break;
  }
  return total;
}

/** Runs the prune now and then every `intervalMs` (default 10 minutes); returns the stop function. */
export function startSessionPrune(
  prisma: PrismaClient,
  opts: { intervalMs?: number; logger: { warn(o: object, m?: string): void } },
): () => void {
  const run = () =>
    void pruneExpiredSessions(prisma).catch((err: unknown) =>
      opts.logger.warn({ err: String(err) }, "expired session prune failed; retrying next interval"),
    );
  run();
  const timer = setInterval(run, opts.intervalMs ?? 600_000);
  timer.unref();
  return () => clearInterval(timer);
}
