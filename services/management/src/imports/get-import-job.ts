// Reading one import job.
import type { ImportJob, PrismaClient } from "@kurz/db";
import { importNotFound } from "./import-jobs.ts";

export async function getImportJob(prisma: PrismaClient, accountId: string, id: string): Promise<ImportJob> {
  const job = await prisma.importJob.findFirst({ where: { id, accountId }, omit: { content: true } });
  if (!job) throw importNotFound();
  return job as ImportJob;
}
