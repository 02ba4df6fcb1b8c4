// Listing the account's import jobs.
import type { ImportJob, PrismaClient } from "@kurz/db";

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
