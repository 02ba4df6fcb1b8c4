// Destinations change their framing policy, so a link with an overlay has its check (frame-policy.ts)
// redone when it is older than `maxAgeMs` (decision 0026). A few links per run, the stalest first,
// through the title fetcher's guards and per-host budget; each result rewrites the link's redirect
// record, so the redirect switches between framed overlay and interstitial without an edit.
import type { Link, PrismaClient } from "@kurz/db";
import type { RedirectRecords } from "../projections/link-records.ts";
import type { TitleFetcher } from "../titles/title-fetcher.ts";

export interface FrameRefreshOptions {
  intervalMs: number;
  maxAgeMs: number;
  batch?: number;
  logger: { warn(o: object, m?: string): void };
}

/** Re-checks up to `batch` stale links; returns how many were checked. */
export async function refreshFraming(
  prisma: PrismaClient,
  titles: Pick<TitleFetcher, "framingAllowed">,
  records: Pick<RedirectRecords, "put">,
  maxAgeMs: number,
  batch = 20,
): Promise<number> {
  const cutoff = new Date(Date.now() - maxAgeMs);
  const stale = await prisma.link.findMany({
    where: { overlayId: { not: null }, OR: [{ frameCheckedAt: null }, { frameCheckedAt: { lt: cutoff } }] },
    orderBy: { frameCheckedAt: { sort: "asc", nulls: "first" } },
    take: batch,
    select: { id: true, originalUrl: true },
  });
  for (const { id, originalUrl } of stale) {
    const frameable = await titles.framingAllowed(originalUrl);
    // updateMany: a link deleted meanwhile is simply skipped.
    await prisma.link.updateMany({ where: { id }, data: { frameable, frameCheckedAt: new Date() } });
    const link: Link | null = await prisma.link.findUnique({ where: { id } });
    if (link) await records.put(link);
  }
  return stale.length;
}

export function startFrameRefresh(
  prisma: PrismaClient,
  titles: Pick<TitleFetcher, "framingAllowed">,
  records: Pick<RedirectRecords, "put">,
  opts: FrameRefreshOptions,
): () => void {
  let running = false;
  const run = () => {
    if (running) return;
    running = true;
    refreshFraming(prisma, titles, records, opts.maxAgeMs, opts.batch)
      .catch((err: unknown) =>
        opts.logger.warn({ err: String(err) }, "framing refresh failed; retrying next run"),
      )
      .finally(() => {
        running = false;
      });
  };
  const timer = setInterval(run, opts.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
