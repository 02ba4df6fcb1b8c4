// Deleted short codes stay reserved to their former owner for a grace period (docs/security.md,
// "Links, titles, QR and keys"): printed links and QR codes of a deleted link must not start sending
// visitors to another account's destination. The owner may reuse the code at once.
// retired_codes holds one row per deleted code, the latest deletion wins, and link_id is the deleted
// link's id (analytics reads the rows to know an account's recently deleted links). A row older than
// the grace reserves nothing; the purge removes such rows now and then.
import type { Prisma, PrismaClient } from "@kurz/db";

type Db = Prisma.TransactionClient | PrismaClient;

const DAY_MS = 86_400_000;

/** The grace in ms: RETIRED_CODE_DAYS (docs/configuration.md). */
export const retiredCodeGraceMs = (config: { RETIRED_CODE_DAYS: number }) =>
  config.RETIRED_CODE_DAYS * DAY_MS;

/** A code is reserved for another account; creating it must fail like a taken code. */
export class CodeReserved extends Error {
  override name = "CodeReserved";
}

/** Records the deletion of `links` (called in the deleting transaction). */
export async function retireCodes(
  tx: Prisma.TransactionClient,
  accountId: string,
  links: readonly { id: string; shortCode: string }[],
): Promise<void> {
  if (links.length === 0) return;
  const codes = links.map((l) => l.shortCode);
  const ids = links.map((l) => l.id);
  await tx.$executeRaw`
    INSERT INTO retired_codes (short_code, account_id, link_id, retired_at)
    SELECT code, ${accountId}::uuid, id, now() FROM unnest(${codes}::text[], ${ids}::uuid[]) AS d(code, id)
    ON CONFLICT (short_code) DO UPDATE
      SET account_id = EXCLUDED.account_id, link_id = EXCLUDED.link_id, retired_at = EXCLUDED.retired_at`;
}

/** The codes among `codes` that another account retired less than `graceMs` ago. */
export async function reservedForOthers(
  db: Db,
  codes: readonly string[],
  accountId: string,
  graceMs: number,
): Promise<Set<string>> {
  if (codes.length === 0) return new Set();
  const rows = await db.retiredCode.findMany({
    where: {
      shortCode: { in: [...codes] },
      accountId: { not: accountId },
      retiredAt: { gt: new Date(Date.now() - graceMs) },
    },
    select: { shortCode: true },
  });
  return new Set(rows.map((r) => r.shortCode));
}

/** Removes rows past the grace; returns how many. */
export async function purgeRetiredCodes(prisma: PrismaClient, graceMs: number): Promise<number> {
  const { count } = await prisma.retiredCode.deleteMany({
    where: { retiredAt: { lte: new Date(Date.now() - graceMs) } },
  });
  return count;
}

/** Purges every `intervalMs` (and once at start); returns the function that stops it. */
export function startRetiredCodePurge(
  prisma: PrismaClient,
  graceMs: number,
  opts: { intervalMs?: number; logger: { warn(o: object, m?: string): void } },
): () => void {
  const run = () =>
    void purgeRetiredCodes(prisma, graceMs).catch((err: unknown) =>
      opts.logger.warn({ err: String(err) }, "retired code purge failed; retrying next interval"),
    );
  run();
  const timer = setInterval(run, opts.intervalMs ?? 3_600_000);
  timer.unref();
  return () => clearInterval(timer);
}
