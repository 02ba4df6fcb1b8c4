// Deleting expired sessions, and the timer that does it.
import type { PrismaClient } from "@kurz/db";
import { deleteInBatches } from "../db/delete-in-batches.ts";

/** Deletes expired sessions, at most `batch` rows per statement and `maxBatches` statements per run. */
export async function pruneExpiredSessions(
  prisma: PrismaClient,
  opts: { batch?: number; maxBatches?: number } = {},
): Promise<number> {
  return deleteInBatches(
    opts,
    (batch) => prisma.$executeRaw`
      DELETE FROM sessions WHERE id IN (
        SELECT id FROM sessions WHERE expires_at <= now() ORDER BY expires_at LIMIT ${batch}
      )`,
  );
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
