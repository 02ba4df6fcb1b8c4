// Creating an import job from an uploaded file.
import { createHash } from "node:crypto";
import type { CreateImportQuery, ImportFormat } from "@kurz/contracts";
import type { ImportJob, PrismaClient } from "@kurz/db";
import { badRequest } from "@kurz/service-kit";
import { recordCreated } from "../audit/record-audit.ts";
import { ownVerifiedDomainId } from "../links/link-targets.ts";
import { ImportFileError } from "./import-file.ts";
import { importFileThreads } from "./import-file-threads.ts";
import { IMPORT_JOBS_PER_ACCOUNT, tooManyImports } from "./import-jobs.ts";

/**
 * Reads the file now, so a file that cannot be read is refused with its reason before a job exists.
 * The same file uploaded again by the same account (same bytes and format) while its job is still
 * queued or running answers that job instead of a second one: two jobs of one file running side by
 * side could both create a row without alias before either sees the other's. Once a job has ended, the
 * same file runs again as a new job whose rows are skipped where their links exist (import-batch.ts),
 * so links deleted since are created again. An account has at most IMPORT_JOBS_PER_ACCOUNT jobs
 * queued or running (a lock per account makes two uploads at once count each other). A `domain` must be
 * a verified branded domain of the account, checked here, before a job exists.
 */
export async function createImportJob(
  prisma: PrismaClient,
  accountId: string,
  file: Buffer,
  query: CreateImportQuery,
  options: {
    claimedForMs?: number;
    /** The rate-limit subject the job's title fetches are charged to; null: none (the operator's CLI). */
    titleBudget?: string | null;
  } = {},
): Promise<{ job: ImportJob; reused: boolean }> {
  let read: { format: ImportFormat; total: number };
  try {
    // On a thread of its own (import-file-threads.ts): a large file is seconds of CPU.
    read = await importFileThreads().count(file, query.format ?? "auto");
  } catch (err) {
    if (err instanceof ImportFileError) throw badRequest(err.message);
    throw err;
  }
  const domainId =
    query.domain === undefined ? null : await ownVerifiedDomainId(prisma, accountId, query.domain);
  const renameReserved = query.rename_reserved ?? null;
  const sha = createHash("sha256").update(file).digest("hex");
  return prisma.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended('import_jobs:' || ${accountId}, 0))`;
      const active = await tx.importJob.findMany({
        where: { accountId, status: { in: ["queued", "running"] } },
        orderBy: { createdAt: "desc" },
        omit: { content: true },
      });
      const same = active.find(
        (j) =>
          j.contentSha256 === sha &&
          j.format === read.format &&
          j.domainId === domainId &&
          j.renameReserved === renameReserved,
      );
      if (same) {
        // The caller (the CLI) reads the file of the job it answers.
        const withContent = await tx.importJob.findUnique({ where: { id: same.id } });
        if (withContent) return { job: withContent, reused: true };
      }
      if (active.length >= IMPORT_JOBS_PER_ACCOUNT) throw tooManyImports();
      const content = new Uint8Array(file);
      const job = await tx.importJob.create({
        data: {
          accountId,
          format: read.format,
          filename: query.filename ?? null,
          fetchTitles: query.fetch_titles ?? false,
          titleBudget: options.titleBudget ?? null,
          domainId,
          renameReserved,
          content,
          contentSha256: sha,
          total: read.total,
          // The CLI runs the job itself: it is created already held, so the service's worker leaves it alone.
          ...(options.claimedForMs !== undefined
            ? { status: "running", leaseUntil: new Date(Date.now() + options.claimedForMs) }
            : {}),
        },
        // Not read back: the file is the one in hand (megabytes decoded from hex otherwise).
        omit: { content: true },
      });
      await recordCreated(tx, accountId, "import", job.id, { format: read.format, rows: read.total });
      return { job: { ...job, content }, reused: false };
      // A file of 32 MiB takes a while to write on a busy database: more than the default 5 s.
    },
    { timeout: 120_000, maxWait: 30_000 },
  );
}
