// The import job resource: create from an upload, read, list, the refused rows as CSV and the rows that
// need their owner (links created inactive), each with its link as it is now. Jobs are the account's
// own: another account's id answers 404 like an unknown one, and a row's link is shown only while it
// is the job's account's.
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import type {
  CreateImportQuery,
  ImportAttentionRow,
  ImportFormat,
  ImportJob as ImportJobJson,
} from "@kurz/contracts";
import type { ImportJob, PrismaClient } from "@kurz/db";
import { apiError, badRequest, csvLine, notFound } from "@kurz/service-kit";
import { ownVerifiedDomainId } from "../links/link-targets.ts";
import { ImportFileError } from "./import-file.ts";
import { importFileThreads } from "./import-file-threads.ts";

const PREVIEW_ERRORS = 20;
const ERROR_PAGE = 5_000;

export const importNotFound = () => notFound("Import not found.");

export async function toImportJson(prisma: PrismaClient, job: ImportJob): Promise<ImportJobJson> {
  const [preview, attention, domain, renamed, renames] = await Promise.all([
    job.failed === 0
      ? []
      : prisma.importRowError.findMany({
          where: { jobId: job.id },
          orderBy: { row: "asc" },
          take: PREVIEW_ERRORS,
          select: { row: true, error: true },
        }),
    job.needsAttention === 0 ? [] : attentionRows(prisma, job, 0, PREVIEW_ERRORS),
    job.domainId === null
      ? null
      : prisma.domain.findUnique({ where: { id: job.domainId }, select: { host: true } }),
    job.renameReserved === null ? 0 : prisma.importRowRename.count({ where: { jobId: job.id } }),
    job.renameReserved === null
      ? []
      : prisma.importRowRename.findMany({
          where: { jobId: job.id },
          orderBy: { row: "asc" },
          take: PREVIEW_ERRORS,
        }),
  ]);
  return {
    id: job.id,
    status: job.status as ImportJobJson["status"],
    format: job.format as ImportJobJson["format"],
    filename: job.filename,
    fetch_titles: job.fetchTitles,
    domain: domain?.host ?? null,
    rename_reserved: job.renameReserved,
    counts: {
      total: job.total,
      processed: job.processed,
      created: job.created,
      skipped: job.skipped,
      needs_attention: job.needsAttention,
      failed: job.failed,
    },
    progress: job.total === 0 ? 1 : Math.min(1, job.processed / job.total),
    error: job.error,
    errors_preview: preview,
    renamed,
    renamed_preview: renames.map((r) => ({ row: r.row, code: r.code, short_code: r.shortCode })),
    attention_preview: attention,
    created_at: job.createdAt.toISOString(),
    updated_at: job.updatedAt.toISOString(),
    finished_at: job.finishedAt?.toISOString() ?? null,
  };
}

/** Jobs one account may have queued or running at once; one more is refused (429). */
export const IMPORT_JOBS_PER_ACCOUNT = 2;

export const tooManyImports = () =>
  apiError(
    "RATE_LIMIT_EXCEEDED",
    `This account already has ${IMPORT_JOBS_PER_ACCOUNT} imports queued or running; upload this file once one of them has finished (GET /api/v1/imports shows their progress).`,
    { limit: IMPORT_JOBS_PER_ACCOUNT },
  );

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
      return { job: { ...job, content }, reused: false };
      // A file of 32 MiB takes a while to write on a busy database: more than the default 5 s.
    },
    { timeout: 120_000, maxWait: 30_000 },
  );
}

export async function getImportJob(prisma: PrismaClient, accountId: string, id: string): Promise<ImportJob> {
  const job = await prisma.importJob.findFirst({ where: { id, accountId }, omit: { content: true } });
  if (!job) throw importNotFound();
  return job as ImportJob;
}

export async function listImportJobs(
  prisma: PrismaClient,
  accountId: string,
  page: number,
  perPage: number,
): Promise<{ jobs: ImportJob[]; total: number }> {
  const [jobs, total] = await Promise.all([
    prisma.importJob.findMany({
      where: { accountId },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: (page - 1) * perPage,
      take: perPage,
      omit: { content: true },
    }),
    prisma.importJob.count({ where: { accountId } }),
  ]);
  return { jobs: jobs as ImportJob[], total };
}

/** The refused rows, streamed page by page (keyset on the row number). */
export function importErrorsCsv(prisma: PrismaClient, jobId: string): Readable {
  async function* lines() {
    yield csvLine(["row", "alias", "url", "error"]);
    let after = 0;
    for (;;) {
      const page = await prisma.importRowError.findMany({
        where: { jobId, row: { gt: after } },
        orderBy: { row: "asc" },
        take: ERROR_PAGE,
      });
      for (const e of page) yield csvLine([e.row, e.alias, e.url, e.error]);
      if (page.length < ERROR_PAGE) return;
      after = page[page.length - 1]!.row;
    }
  }
  return Readable.from(lines());
}

/**
 * A page of the job's rows that need their owner, in row order, each with its link now: the link is
 * read by id within the job's account, so a link deleted (or never the account's) shows as null.
 */
export async function attentionRows(
  prisma: PrismaClient,
  job: Pick<ImportJob, "id" | "accountId">,
  skip: number,
  take: number,
): Promise<ImportAttentionRow[]> {
  const rows = await prisma.importRowAttention.findMany({
    where: { jobId: job.id },
    orderBy: { row: "asc" },
    skip,
    take,
  });
  const links =
    rows.length === 0
      ? []
      : await prisma.link.findMany({
          where: { accountId: job.accountId, id: { in: rows.map((r) => r.linkId) } },
          select: { id: true, shortCode: true, isActive: true, passwordHash: true },
        });
  const byId = new Map(links.map((l) => [l.id, l]));
  return rows.map((r) => {
    const link = byId.get(r.linkId);
    return {
      row: r.row,
      link_id: r.linkId,
      alias: r.alias,
      url: r.url,
      reason: r.reason,
      link: link
        ? { short_code: link.shortCode, is_active: link.isActive, has_password: link.passwordHash !== null }
        : null,
    };
  });
}
