// A link's health in Postgres: the current state (link_health, one row per checked link) and the changes
// (link_health_changes, a row only when the state or the final URL changes). Every query names the
// workspace (account_id) with the link, so one workspace can never read or write another's health.
import type { Prisma, PrismaClient } from "@kurz/db";
import { type CheckResult, classify, type HealthState } from "./check-destination.ts";

export interface HealthChange {
  state: HealthState;
  statusCode: number | null;
  finalUrl: string;
  checkedAt: Date;
}

export interface LinkHealthView {
  current:
    | (HealthChange & {
        hops: CheckResult["hops"];
        durationMs: number;
        detail: string | null;
      })
    | null;
  /** Newest first. */
  history: HealthChange[];
}

/** How many changes GET .../health shows. */
export const HEALTH_HISTORY_LIMIT = 20;

/**
 * Stores one check's result for the workspace's link and answers the state it put the link in; null
 * (nothing written) when the link is not the workspace's.
 * The previous state is read under a lock so two checks of one link at once cannot both see the same
 * "previous" and record a change twice.
 */
export async function recordCheck(
  prisma: PrismaClient,
  accountId: string,
  linkId: string,
  result: CheckResult,
): Promise<HealthState | null> {
  return prisma.$transaction(async (tx) => {
    // Locking the link row (not the health row, which may not exist yet) serialises two checks of one
    // link, the first-ever ones included, and doubles as the workspace check.
    const owned = await tx.$queryRaw<unknown[]>`
      SELECT 1 FROM links WHERE id = ${linkId}::uuid AND account_id = ${accountId}::uuid FOR NO KEY UPDATE`;
    if (owned.length === 0) return null;
    const [previous] = await tx.$queryRaw<{ state: string; final_url: string }[]>`
      SELECT state, final_url FROM link_health
      WHERE link_id = ${linkId}::uuid AND account_id = ${accountId}::uuid`;
    const state = classify(result, previous ? { finalUrl: previous.final_url } : null);
    const row = {
      state,
      statusCode: result.statusCode,
      finalUrl: result.finalUrl,
      hops: result.hops as unknown as Prisma.InputJsonValue,
      durationMs: result.durationMs,
      detail: result.detail,
      checkedAt: result.checkedAt,
    };
    if (previous) {
      await tx.linkHealth.updateMany({ where: { linkId, accountId }, data: row });
    } else {
      await tx.linkHealth.create({ data: { linkId, accountId, ...row } });
    }
    // "redirected" after "ok" at the same final URL cannot happen (classify needs a new URL), so
    // comparing state and URL is enough to tell a change.
    if (!previous || previous.state !== state || previous.final_url !== result.finalUrl) {
      await tx.linkHealthChange.create({
        data: {
          linkId,
          accountId,
          state,
          statusCode: result.statusCode,
          finalUrl: result.finalUrl,
          checkedAt: result.checkedAt,
        },
      });
    }
    return state;
  });
}

/** The workspace's link's health; `current` is null before the first check. */
export async function readHealth(
  prisma: PrismaClient,
  accountId: string,
  linkId: string,
  limit = HEALTH_HISTORY_LIMIT,
): Promise<LinkHealthView> {
  const [current, history] = await Promise.all([
    prisma.linkHealth.findFirst({ where: { linkId, accountId } }),
    prisma.linkHealthChange.findMany({
      where: { linkId, accountId },
      orderBy: [{ checkedAt: "desc" }, { id: "desc" }],
      take: limit,
    }),
  ]);
  const change = (r: { state: string; statusCode: number | null; finalUrl: string; checkedAt: Date }) => ({
    state: r.state as HealthState,
    statusCode: r.statusCode,
    finalUrl: r.finalUrl,
    checkedAt: r.checkedAt,
  });
  return {
    current: current
      ? {
          ...change(current),
          hops: current.hops as unknown as CheckResult["hops"],
          durationMs: current.durationMs,
          detail: current.detail,
        }
      : null,
    history: history.map(change),
  };
}
