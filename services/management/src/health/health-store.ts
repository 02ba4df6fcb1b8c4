// A link's health in Postgres: the current state (link_health, one row per checked link) and the changes
// (link_health_changes, a row only when the state or the final URL changes). Every query names the
// workspace (account_id) with the link, so one workspace can never read or write another's health.
// A link is broken after two failing checks in a row and recovers at the first healthy one
// (docs/health.md); the decision is recordCheck's, under the link's row lock.
import { BROKEN_AFTER_FAILURES, isFailingHealthState, isHealthyHealthState } from "@kurz/contracts";
import type { Link, Prisma, PrismaClient } from "@kurz/db";
import { enqueueLinkEvent, linkHealthEvent } from "../db/outbox.ts";
import type { RedirectRecords } from "../projections/link-records.ts";
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
  /** Since when the link is broken; null while it is not. */
  brokenSince: Date | null;
  consecutiveFailures: number;
}

/** How many changes GET .../health shows. */
export const HEALTH_HISTORY_LIMIT = 20;

/** What recordCheck needs besides the database: a broken or recovered link is announced and re-projected. */
export interface RecordCheckDeps {
  prisma: PrismaClient;
  /** The redirect's record of a link that broke or recovered is written again (its `b` member). */
  records: Pick<RedirectRecords, "put">;
  /** Wakes the outbox relay after a commit that wrote a link.broken or link.recovered event. */
  onEventsWritten: () => void;
}

/**
 * Stores one check's result for the workspace's link and answers the state it put the link in; null
 * (nothing written) when the link is not the workspace's.
 * The previous state is read under a lock so two checks of one link at once cannot both see the same
 * "previous" and record a change twice. The same lock makes the broken/recovered decision (docs/health.md)
 * exactly once: the link's broken_since, its outbox event (link.broken or link.recovered) and the
 * failure count commit together, and after the commit the redirect record is written again.
 */
export async function recordCheck(
  deps: RecordCheckDeps,
  accountId: string,
  linkId: string,
  result: CheckResult,
): Promise<HealthState | null> {
  const outcome = await deps.prisma.$transaction(async (tx) => {
    // Locking the link row (not the health row, which may not exist yet) serialises two checks of one
    // link, the first-ever ones included, and doubles as the workspace check.
    const [owned] = await tx.$queryRaw<{ broken_since: Date | null }[]>`
      SELECT broken_since FROM links
      WHERE id = ${linkId}::uuid AND account_id = ${accountId}::uuid FOR NO KEY UPDATE`;
    if (!owned) return null;
    const [previous] = await tx.$queryRaw<
      { state: string; final_url: string; consecutive_failures: number }[]
    >`
      SELECT state, final_url, consecutive_failures FROM link_health
      WHERE link_id = ${linkId}::uuid AND account_id = ${accountId}::uuid`;
    const state = classify(result, previous ? { finalUrl: previous.final_url } : null);
    const failures = failuresAfter(previous?.consecutive_failures ?? 0, state);
    const row = {
      state,
      statusCode: result.statusCode,
      finalUrl: result.finalUrl,
      hops: result.hops as unknown as Prisma.InputJsonValue,
      durationMs: result.durationMs,
      detail: result.detail,
      checkedAt: result.checkedAt,
      consecutiveFailures: failures,
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
    const transition = transitionOf(owned.broken_since !== null, state, failures);
    if (transition === null) return { state, link: null };
    const link = await markBroken(tx, linkId, transition === "link.broken" ? result.checkedAt : null);
    await enqueueLinkEvent(
      tx,
      linkHealthEvent(transition, link, {
        state,
        status_code: result.statusCode,
        final_url: result.finalUrl,
        checked_at: result.checkedAt.toISOString(),
      }),
    );
    return { state, link };
  });
  if (outcome === null) return null;
  if (outcome.link !== null) {
    deps.onEventsWritten();
    await deps.records.put(outcome.link);
  }
  return outcome.state;
}

/** Failing checks in a row after one more check: a healthy one resets, `refused` says nothing. */
export function failuresAfter(before: number, state: HealthState): number {
  if (isFailingHealthState(state)) return before + 1;
  return isHealthyHealthState(state) ? 0 : before;
}

/** The event a check decides, if any: broken on the second failure in a row, recovered on health. */
export function transitionOf(
  wasBroken: boolean,
  state: HealthState,
  failures: number,
): "link.broken" | "link.recovered" | null {
  if (!wasBroken && failures >= BROKEN_AFTER_FAILURES) return "link.broken";
  if (wasBroken && isHealthyHealthState(state)) return "link.recovered";
  return null;
}

/**
 * Sets or clears the link's broken_since (its record version moves with it, by the trigger) without
 * touching updated_at, which records the owner's changes; answers the row as it now stands.
 */
async function markBroken(tx: Prisma.TransactionClient, linkId: string, since: Date | null): Promise<Link> {
  await tx.$executeRaw`UPDATE links SET broken_since = ${since} WHERE id = ${linkId}::uuid`;
  return tx.link.findUniqueOrThrow({ where: { id: linkId } });
}

/** The workspace's link's health; `current` is null before the first check. */
export async function readHealth(
  prisma: PrismaClient,
  accountId: string,
  linkId: string,
  limit = HEALTH_HISTORY_LIMIT,
): Promise<LinkHealthView> {
  const [current, history, link] = await Promise.all([
    prisma.linkHealth.findFirst({ where: { linkId, accountId } }),
    prisma.linkHealthChange.findMany({
      where: { linkId, accountId },
      orderBy: [{ checkedAt: "desc" }, { id: "desc" }],
      take: limit,
    }),
    prisma.link.findFirst({ where: { id: linkId, accountId }, select: { brokenSince: true } }),
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
    brokenSince: link?.brokenSince ?? null,
    consecutiveFailures: current?.consecutiveFailures ?? 0,
  };
}
