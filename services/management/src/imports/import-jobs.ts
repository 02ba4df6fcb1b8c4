// What the import job use cases share: the job's JSON and its refusals. Jobs are the account's own:
// another account's id answers 404 like an unknown one, and a row's link is shown only while it is the
// job's account's.

import type { ImportJob as ImportJobJson } from "@kurz/contracts";
import type { ImportJob, PrismaClient } from "@kurz/db";
import { apiError, notFound } from "@kurz/service-kit";
import { attentionRows } from "./attention-rows.ts";

export const PREVIEW_ERRORS = 20;

export const ERROR_PAGE = 5_000;

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
