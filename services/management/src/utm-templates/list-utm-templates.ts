// GET /api/v1/utm-templates: the workspace's saved templates, by name.
import type { UtmTemplate } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { toUtmTemplateJson } from "./utm-templates.ts";

export async function listUtmTemplates(prisma: PrismaClient, accountId: string): Promise<UtmTemplate[]> {
  const rows = await prisma.utmTemplate.findMany({
    where: { accountId },
    orderBy: [{ name: "asc" }, { id: "asc" }],
  });
  return rows.map(toUtmTemplateJson);
}
