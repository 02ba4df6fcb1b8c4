// What the UTM template use cases share (GET/POST/DELETE /api/v1/utm-templates): named sets of
// utm_* parameters the dashboard's UTM builder fills in, per workspace; at most UTM_TEMPLATES_MAX, names
// unique in it.
import type { UtmParams, UtmTemplate } from "@kurz/contracts";
import type { UtmTemplate as UtmTemplateRow } from "@kurz/db";
import { notFound } from "@kurz/service-kit";

export const toUtmTemplateJson = (row: UtmTemplateRow): UtmTemplate => ({
  id: row.id,
  name: row.name,
  params: row.params as UtmParams,
  created_at: row.createdAt.toISOString(),
});

export const templateNotFound = () => notFound("UTM template not found");
