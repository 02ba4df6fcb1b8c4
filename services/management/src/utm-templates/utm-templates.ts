// The workspace's saved UTM templates (GET/POST/DELETE /api/v1/utm-templates): named sets of
// utm_* parameters the dashboard's UTM builder fills in. At most UTM_TEMPLATES_MAX per workspace, names
// unique in it.
import {
  type CreateUtmTemplateBody,
  UTM_TEMPLATES_MAX,
  type UtmParams,
  type UtmTemplate,
} from "@kurz/contracts";
import { isUniqueViolation, type PrismaClient, type UtmTemplate as UtmTemplateRow } from "@kurz/db";
import { apiError, conflict, notFound } from "@kurz/service-kit";
import { recordAudit } from "../audit/record-audit.ts";

const toJson = (row: UtmTemplateRow): UtmTemplate => ({
  id: row.id,
  name: row.name,
  params: row.params as UtmParams,
  created_at: row.createdAt.toISOString(),
});

export const templateNotFound = () => notFound("UTM template not found");

export async function listUtmTemplates(prisma: PrismaClient, accountId: string): Promise<UtmTemplate[]> {
  const rows = await prisma.utmTemplate.findMany({
    where: { accountId },
    orderBy: [{ name: "asc" }, { id: "asc" }],
  });
  return rows.map(toJson);
}

/** Saves a template; 409 when the name is taken in the workspace or it holds UTM_TEMPLATES_MAX already. */
export async function createUtmTemplate(
  prisma: PrismaClient,
  accountId: string,
  body: CreateUtmTemplateBody,
): Promise<UtmTemplate> {
  try {
    return await prisma.$transaction(async (tx) => {
      // The account row's lock orders two concurrent creates, so the count cannot pass the limit.
      await tx.$queryRaw`SELECT id FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
      const count = await tx.utmTemplate.count({ where: { accountId } });
      if (count >= UTM_TEMPLATES_MAX) {
        throw apiError("CONFLICT", `A workspace keeps at most ${UTM_TEMPLATES_MAX} UTM templates`);
      }
      const row = await tx.utmTemplate.create({
        data: { accountId, name: body.name, params: body.params },
      });
      await recordAudit(tx, {
        accountId,
        action: "utm_template.created",
        resourceType: "utm_template",
        resourceId: row.id,
        details: { name: row.name },
      });
      return toJson(row);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`A UTM template named '${body.name}' already exists`);
    throw err;
  }
}

/** Deletes the workspace's template `id`; another workspace's or an unknown id: 404. */
export async function deleteUtmTemplate(prisma: PrismaClient, accountId: string, id: number): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const removed = await tx.utmTemplate.deleteMany({ where: { id, accountId } });
    if (removed.count === 0) throw templateNotFound();
    await recordAudit(tx, {
      accountId,
      action: "utm_template.deleted",
      resourceType: "utm_template",
      resourceId: id,
    });
  });
}
