// GET /api/v1/exports/links: the account's links as CSV or JSON, streamed (exports/links-export.ts).
// The analytics export is the analytics service's (it owns the clicks).
import { ROUTES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type MountedRoute, route } from "@kurz/service-kit";
import { recordAudit } from "../audit/record-audit.ts";
import { exportLinks } from "../exports/links-export.ts";

export function exportsRoutes(deps: { prisma: PrismaClient; baseUrl: string }): MountedRoute[] {
  return [
    route(ROUTES.exportLinks, async ({ identity: { accountId }, query }) => {
      const format = query.format ?? "csv";
      // Reading every link at once is worth a line in the log: it is how a workspace's data leaves it.
      await recordAudit(deps.prisma, {
        accountId,
        action: "links.exported",
        resourceType: "export",
        details: { format },
      });
      return {
        contentType: format === "json" ? "application/json" : "text/csv",
        body: exportLinks(deps.prisma, accountId, deps.baseUrl, format),
        headers: {
          "Content-Disposition": `attachment; filename="links.${format}"`,
          "Cache-Control": "no-store",
        },
      };
    }),
  ];
}
