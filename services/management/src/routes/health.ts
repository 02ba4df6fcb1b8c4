// /api/v1/links/:id/health and /api/v1/links/:id/health/check: a link's destination health
// (docs/health.md). A link of another workspace is not found, exactly like an unknown id.
import { type LinkHealth, RATE_LIMIT_WINDOWS, ROUTES } from "@kurz/contracts";
import {
  type MountedRoute,
  rateLimitExceeded,
  route,
  serviceUnavailable,
  v1Success,
} from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { checkLink } from "../health/check-link.ts";
import type { HealthDeps } from "../health/health-routes-deps.ts";
import { type LinkHealthView, type RecordCheckDeps, readHealth } from "../health/health-store.ts";
import { linkNotFound } from "../links/link-writer.ts";

const toJson = (linkId: string, view: LinkHealthView): LinkHealth => ({
  link_id: linkId,
  broken_since: view.brokenSince?.toISOString() ?? null,
  consecutive_failures: view.consecutiveFailures,
  current: view.current && {
    state: view.current.state,
    status_code: view.current.statusCode,
    final_url: view.current.finalUrl,
    checked_at: view.current.checkedAt.toISOString(),
    hops: view.current.hops,
    duration_ms: view.current.durationMs,
    detail: view.current.detail,
  },
  history: view.history.map((h) => ({
    state: h.state,
    status_code: h.statusCode,
    final_url: h.finalUrl,
    checked_at: h.checkedAt.toISOString(),
  })),
});

/** Counts one check on demand for the workspace; 429 in the API's rate-limit format once spent. */
async function spendCheck(redis: Redis, health: HealthDeps, accountId: string): Promise<void> {
  const window = RATE_LIMIT_WINDOWS.minute;
  const nowSec = Math.floor(health.now() / 1000);
  const key = `health-check:${accountId}:${Math.floor(nowSec / window.seconds)}`;
  const counts = await redis
    .multi()
    .incr(key)
    .expire(key, window.seconds + 5)
    .exec()
    .catch(() => null);
  const n = Number(counts?.[0]?.[1] ?? Number.NaN);
  if (!Number.isFinite(n))
    throw serviceUnavailable("Health checks are temporarily unavailable; retry shortly");
  if (n > health.checksPerMinute) {
    throw rateLimitExceeded(
      {
        limit: health.checksPerMinute,
        window: window.name,
        retry_after: window.seconds - (nowSec % window.seconds),
      },
      "Too many health checks for this workspace; retry within the minute",
    );
  }
}

export function linkHealthRoutes(
  deps: RecordCheckDeps & {
    redis: Redis;
    health: HealthDeps;
  },
): MountedRoute[] {
  const { prisma, redis, health } = deps;
  return [
    route(ROUTES.getLinkHealth, async ({ identity: { accountId }, params }) => {
      if ((await prisma.link.count({ where: { id: params.id, accountId } })) === 0) throw linkNotFound();
      return v1Success(toJson(params.id, await readHealth(prisma, accountId, params.id)));
    }),

    route(ROUTES.checkLinkHealth, async ({ identity: { accountId }, params }) => {
      const link = await prisma.link.findFirst({
        where: { id: params.id, accountId },
        select: { originalUrl: true },
      });
      if (!link) throw linkNotFound();
      await spendCheck(redis, health, accountId);
      const target = { accountId, linkId: params.id, url: link.originalUrl };
      const state = await checkLink(deps, health.checker, target, {
        politely: (host, task) => health.limiter.run(host, task),
      });
      // null: the link was deleted or moved away during the check; as for any missing link.
      if (state === null) throw linkNotFound();
      return v1Success(toJson(params.id, await readHealth(prisma, accountId, params.id)));
    }),
  ];
}
