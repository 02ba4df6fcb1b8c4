// The rows an import refused, as CSV.
import { Readable } from "node:stream";
import type { PrismaClient } from "@kurz/db";
import { csvLine } from "@kurz/service-kit";
import { ERROR_PAGE } from "./import-jobs.ts";

/** The refused rows, streamed page by page (keyset on the row number). */
export function importErrorsCsv(prisma: PrismaClient, jobId: string): Readable {
  async function* lines() {
    yield csvLine(["row", "alias", "url", "error"]);
    let after = 0;
    for (;;) {
      const page = await prisma.importRowError.findMany({
        where: { jobId, row: { gt: after } },
        orderBy: { row: "asc" },
        take: ERROR_PAGE,
      });
      for (const e of page) yield csvLine([e.row, e.alias, e.url, e.error]);
      if (page.length < ERROR_PAGE) return;
      after = page[page.length - 1]!.row;
    }
  }
  return Readable.from(lines());
}
