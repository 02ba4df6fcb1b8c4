// /api/v1/imports: upload a file (the body) → 202 with the job; read it, list them, download the refused
// rows, page through the rows that need their owner. The worker (imports/import-worker.ts) does the work; these handlers only call the use cases.
import { ROUTES, rateLimitSubject } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type MountedRoute, route, v1Success } from "@kurz/service-kit";
import { attentionRows } from "../imports/attention-rows.ts";
import { createImportJob } from "../imports/create-import-job.ts";
import { getImportJob } from "../imports/get-import-job.ts";
import { importErrorsCsv } from "../imports/import-errors-csv.ts";
import { toImportJson } from "../imports/import-jobs.ts";
import { listImportJobs } from "../imports/list-import-jobs.ts";
import { sessionBudgetSubject } from "../titles/title-budget.ts";

export function importsRoutes(deps: { prisma: PrismaClient; onImportQueued: () => void }): MountedRoute[] {
  const { prisma } = deps;
  return [
    route(ROUTES.createImport, async ({ identity: { accountId, keyId, userId }, body, query }) => {
      const file = Buffer.from(body.buffer, body.byteOffset, body.byteLength); // a view, not a copy
      // Its title fetches are the uploader's requests: a key's budget, or their sessions'.
      const titleBudget = keyId
        ? rateLimitSubject("v1", keyId)
        : userId
          ? sessionBudgetSubject(userId)
          : null;
      const { job } = await createImportJob(prisma, accountId, file, query, { titleBudget });
      deps.onImportQueued();
      return v1Success(await toImportJson(prisma, job));
    }),
    route(ROUTES.listImports, async ({ identity: { accountId }, query }) => {
      const { jobs, total } = await listImportJobs(prisma, accountId, query.page, query.per_page);
      return {
        success: true as const,
        data: await Promise.all(jobs.map((job) => toImportJson(prisma, job))),
        meta: {
          page: query.page,
          per_page: query.per_page,
          total,
          total_pages: Math.ceil(total / query.per_page),
        },
      };
    }),
    route(ROUTES.getImport, async ({ identity: { accountId }, params }) =>
      v1Success(await toImportJson(prisma, await getImportJob(prisma, accountId, params.id))),
    ),
    route(ROUTES.getImportAttention, async ({ identity: { accountId }, params, query }) => {
      const job = await getImportJob(prisma, accountId, params.id);
      const rows = await attentionRows(prisma, job, (query.page - 1) * query.per_page, query.per_page);
      return {
        success: true as const,
        data: rows,
        meta: {
          page: query.page,
          per_page: query.per_page,
          total: job.needsAttention,
          total_pages: Math.ceil(job.needsAttention / query.per_page),
        },
      };
    }),
    route(ROUTES.getImportErrors, async ({ identity: { accountId }, params }) => {
      const job = await getImportJob(prisma, accountId, params.id);
      return {
        contentType: "text/csv",
        body: importErrorsCsv(prisma, job.id),
        headers: { "Content-Disposition": `attachment; filename="import-${job.id}-errors.csv"` },
      };
    }),
  ];
}
