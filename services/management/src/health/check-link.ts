// Checks one link's destination and records what it found: the one path of every check, on demand
// (POST /api/v1/links/:id/health/check) and scheduled (schedule-runner.ts). After the record, the link's
// next scheduled check is one interval of its workspace away (none while the workspace's checks are off).
import type { HealthState } from "@kurz/contracts";
import { poolOf } from "@kurz/db";
import type { DestinationChecker } from "./check-destination.ts";
import { type RecordCheckDeps, recordCheck } from "./health-store.ts";
import { INTERVAL_OF_ACCOUNT } from "./schedule-interval.ts";

export interface LinkToCheck {
  accountId: string;
  linkId: string;
  url: string;
}

/** Runs the check politely towards `hostname`'s site; the scheduler holds the site's slot already. */
export type Politely = <T>(hostname: string, task: () => Promise<T>) => Promise<T>;

const directly: Politely = (_hostname, task) => task();

export interface CheckLinkOptions {
  politely?: Politely;
  /**
   * Runs the record (a transaction on the service's pool of 10 connections): the scheduler bounds how
   * many it holds at once, so its checks never take the connections the API's requests need.
   */
  recording?: <T>(task: () => Promise<T>) => Promise<T>;
}

const RESCHEDULE = `
  UPDATE link_health_schedule s SET next_check_at = $2::timestamptz + ${INTERVAL_OF_ACCOUNT}
  FROM links l JOIN accounts a ON a.id = l.account_id
  WHERE s.link_id = $1::uuid AND l.id = s.link_id`;

/** The state the check put the link in; null (nothing recorded) when the link is no longer the workspace's. */
export async function checkLink(
  deps: RecordCheckDeps,
  checker: Pick<DestinationChecker, "check">,
  link: LinkToCheck,
  { politely = directly, recording = (task) => task() }: CheckLinkOptions = {},
): Promise<HealthState | null> {
  let hostname: string;
  try {
    hostname = new URL(link.url).hostname;
  } catch {
    hostname = link.url;
  }
  const result = await politely(hostname, () => checker.check(link.url));
  return recording(async () => {
    const state = await recordCheck(deps, link.accountId, link.linkId, result);
    if (state !== null) await poolOf(deps.prisma).query(RESCHEDULE, [link.linkId, result.checkedAt]);
    return state;
  });
}
