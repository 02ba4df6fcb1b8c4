// POST /api/v1/utm-templates: a named set of UTM parameters saved for the workspace.
import { type CreateUtmTemplateBody, UTM_TEMPLATES_MAX, type UtmTemplate } from "@kurz/contracts";
import { isUniqueViolation, type PrismaClient } from "@kurz/db";
import { apiError, conflict } from "@kurz/service-kit";
import { recordCreated } from "../audit/record-audit.ts";
import { toUtmTemplateJson } from "./utm-templates.ts";

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
      await recordCreated(tx, accountId, "utm_template", row.id, { name: row.name });
      return toUtmTemplateJson(row);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`A UTM template named '${body.name}' already exists`);
    throw err;
  }
}
