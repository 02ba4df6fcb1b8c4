// GET /api/v1/audit-log: the workspace's audit log (docs/workspaces.md, "Audit log"); the reads are in
// audit/.
import { ROUTES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type MountedRoute, route, v1Success } from "@kurz/service-kit";
import { auditEventsCsv, listAuditEvents } from "../audit/list-audit-events.ts";

export function auditRoutes(deps: { prisma: PrismaClient }): MountedRoute[] {
  return [
    route(ROUTES.listAuditLog, async ({ identity: { accountId }, query, req }) => {
      const { format, limit, ...filter } = query;
      if (format === "csv" || (format === undefined && prefersCsv(req.headers.accept))) {
        return {
          contentType: "text/csv",
          body: auditEventsCsv(deps.prisma, accountId, filter),
          headers: {
            "Content-Disposition": 'attachment; filename="audit-log.csv"',
            "Cache-Control": "no-store",
          },
        };
      }
      return v1Success(await listAuditEvents(deps.prisma, accountId, { ...filter, limit }));
    }),
  ];
}

/** An Accept naming text/csv and not JSON (a browser's download, a `curl -H 'Accept: text/csv'`). */
const prefersCsv = (accept: string | undefined) =>
  accept !== undefined && /\btext\/csv\b/i.test(accept) && !/\bapplication\/json\b/i.test(accept);
