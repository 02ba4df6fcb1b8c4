// The health scheduler inside management (docs/health.md, "Scheduled checks"): claims due links from
// Postgres (claim-due-links.ts), takes each one's site slot and a check of the global budget in Redis
// (site-slots.ts), checks and records it (check-link.ts), and times its next check. Every instance runs
// one; the claim and the slots are what they share, so together they never check a link twice at once,
// never exceed a site's politeness limit and never start more checks a second than the budget.
//
// A link whose site is busy waits for it, one link per site per scheduler; the others of that site go
// back to Postgres, spread one politeness interval apart, so a site with many links is worked through
// at its pace without holding the scheduler's places. A failure of Redis or Postgres is logged and the
// work is retried later (a claimed link's lease ends and it is due again): it never stops the service.
import pLimit from "p-limit";
import { siteOf } from "../titles/title-fetcher.ts";
import type { DestinationChecker } from "./check-destination.ts";
import { checkLink, type LinkToCheck } from "./check-link.ts";
import { claimDueLinks, putBack } from "./claim-due-links.ts";
import type { RecordCheckDeps } from "./health-store.ts";
import type { SiteSlots } from "./site-slots.ts";

/** What a check's record needs (health-store.ts): the pool, the redirect's records, the relay's wake. */
export interface HealthSchedulerDeps extends RecordCheckDeps {
  slots: Pick<SiteSlots, "take">;
  checker: Pick<DestinationChecker, "check">;
  /** Checks this scheduler runs at once (HEALTH_CHECK_CONCURRENCY). */
  concurrency: number;
  logger: { warn(o: object, m?: string): void };
  /** Milliseconds; what is due, and when a link put back is due again, are reckoned from it. */
  now?: () => number;
  /** How long a claimed link is held before another scheduler may take it (default 5 min). */
  leaseMs?: number;
  /** The wait of an idle scheduler before it looks for due links again (HEALTH_SCHEDULE_POLL_MS). */
  pollMs?: number;
  /** Least time between two checks of one site (the slots' interval). */
  siteIntervalMs?: number;
}

export interface ScheduleCounts {
  /** Links checked and recorded. */
  checked: number;
  /** Due links not checked: disabled, expired, at their click limit, or their workspace's checks off. */
  passed: number;
  /** Links handed back to wait for their busy site. */
  deferred: number;
  /** Checks that could not run or be recorded (Redis or Postgres failed); retried later. */
  failed: number;
}

/** Hundreds of records a second at a few milliseconds each; the rest of the pool stays the API's. */
const RECORDS_AT_ONCE = 3;

/** How often a link waiting for its busy site asks again. */
const BUSY_POLL_MS = 200;

/** A link that could not be handled for a failure is due again after this. */
const RETRY_AFTER_MS = 60_000;

export class HealthScheduler {
  private readonly now: () => number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly intervalMs: number;
  private readonly counts: ScheduleCounts = { checked: 0, passed: 0, deferred: 0, failed: 0 };
  /** Sites one of this scheduler's links waits for. */
  private readonly waiting = new Set<string>();
  /** Per site, when the links this scheduler put back are due (the last one's time). */
  private readonly putBackUntil = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Records (transactions) under way at once: a few of the service's 10 connections, never all. */
  private readonly recording = pLimit(RECORDS_AT_ONCE);
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;

  constructor(private readonly deps: HealthSchedulerDeps) {
    this.now = deps.now ?? Date.now;
    this.leaseMs = deps.leaseMs ?? 5 * 60_000;
    this.pollMs = deps.pollMs ?? 10_000;
    this.intervalMs = deps.siteIntervalMs ?? 1_000;
  }

  /** What this scheduler has done since it was made. */
  get totals(): ScheduleCounts {
    return { ...this.counts };
  }

  /**
   * One round: claims up to `concurrency` due links and handles every one (checked, or put back for its
   * busy site), then resolves with what it did. Tests drive the scheduler with it and their clock.
   */
  async tick(): Promise<ScheduleCounts> {
    const before = this.totals;
    const { links, passed } = await claimDueLinks(
      this.deps.prisma,
      this.now(),
      this.deps.concurrency,
      this.leaseMs,
    );
    this.counts.passed += passed;
    await Promise.all(links.map((link) => this.handle(link)));
    const after = this.totals;
    return {
      checked: after.checked - before.checked,
      passed: after.passed - before.passed,
      deferred: after.deferred - before.deferred,
      failed: after.failed - before.failed,
    };
  }

  /** Runs rounds continuously: claims whenever half its places are free, waits `pollMs` when nothing is due. */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = this.run();
  }

  /** Claims nothing more and resolves when the checks under way have ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.loop = null;
    await Promise.all([...this.inFlight]);
  }

  private async run(): Promise<void> {
    const { concurrency } = this.deps;
    while (!this.stopping) {
      const room = concurrency - this.inFlight.size;
      if (room < Math.max(1, Math.floor(concurrency / 2))) {
        await this.pause(this.pollMs);
        continue;
      }
      let claimed: Awaited<ReturnType<typeof claimDueLinks>>;
      try {
        claimed = await claimDueLinks(this.deps.prisma, this.now(), room, this.leaseMs);
      } catch (err) {
        this.deps.logger.warn({ err: String(err) }, "health schedule: claim failed; retrying later");
        await this.pause(this.pollMs);
        continue;
      }
      this.counts.passed += claimed.passed;
      for (const link of claimed.links) {
        const done: Promise<void> = this.handle(link).finally(() => {
          this.inFlight.delete(done);
          this.wake?.();
        });
        this.inFlight.add(done);
      }
      if (claimed.links.length + claimed.passed < room) await this.pause(this.pollMs); // none due now
    }
  }

  /** Waits `ms`, or less when a check ends or stop() is called. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }

  /** Takes the link's site slot (waiting, or putting the link back) and checks it. Never throws. */
  private async handle(link: LinkToCheck): Promise<void> {
    let hostname: string;
    try {
      hostname = new URL(link.url).hostname;
    } catch {
      hostname = link.url;
    }
    const site = siteOf(hostname);
    let waiter = false;
    try {
      for (;;) {
        const got = await this.deps.slots.take(hostname, true);
        if (got.taken) {
          try {
            await checkLink(this.deps, this.deps.checker, link, { recording: this.recording });
            this.counts.checked++;
          } finally {
            await got.release().catch(() => {}); // the slot then expires on its own
          }
          return;
        }
        if (got.reason === "site" && !waiter) {
          if (this.waiting.has(site)) {
            await this.deferForSite(link, site, got.retryInMs);
            return;
          }
          waiter = true;
          this.waiting.add(site);
        }
        if (this.stopping) {
          await putBack(this.deps.prisma, link.linkId, this.now());
          return;
        }
        // While a check is in flight the slot's time left is its whole hold, not the wait: look again soon.
        await new Promise((r) => setTimeout(r, Math.min(got.retryInMs, BUSY_POLL_MS)));
      }
    } catch (err) {
      this.counts.failed++;
      this.deps.logger.warn({ err: String(err) }, "health schedule: a check failed; retrying later");
      await putBack(this.deps.prisma, link.linkId, this.now() + RETRY_AFTER_MS).catch(() => {});
    } finally {
      if (waiter) this.waiting.delete(site);
    }
  }

  /** Puts the link back one interval after the last link this scheduler put back for the site. */
  private async deferForSite(link: LinkToCheck, site: string, busyMs: number): Promise<void> {
    const now = this.now();
    for (const [s, until] of this.putBackUntil) if (until <= now) this.putBackUntil.delete(s);
    const at =
      Math.max(now + Math.min(busyMs, this.intervalMs), this.putBackUntil.get(site) ?? 0) + this.intervalMs;
    this.putBackUntil.set(site, at);
    await putBack(this.deps.prisma, link.linkId, at);
    this.counts.deferred++;
  }
}
