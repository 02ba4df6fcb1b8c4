// Renewing a session's idle expiry (the gateway's call on use).
import type { PrismaClient } from "@kurz/db";
import { findLiveSession } from "./sessions.ts";

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
