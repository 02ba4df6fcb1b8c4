// What every part of the public handler reads: its dependencies and the per-handler state (the turn's
// queued answers, the campaigns' turns), built once per listener and passed to each part explicitly.
// The parts are plain functions of this context, so the hit path allocates no closure per request.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ClickJournal } from "./click-journal.ts";
import type { ClickLimit } from "./click-limit.ts";
import type { ClickPublisher } from "./click-publisher.ts";
import { GeoCountry } from "./geo-country.ts";
import type { MissBudget } from "./miss-budget.ts";
import type { OverlaySubmissions } from "./overlay-submissions.ts";
import type { PasswordLimiter } from "./password-limiter.ts";
import type { HostClassifier } from "./request-host.ts";
import type { Resolver } from "./resolver.ts";
import { RotatorTurns } from "./rotator-turns.ts";
import { RedirectWrites } from "./turn-writes.ts";

export interface RedirectHandlerDeps {
  resolver: Resolver;
  publisher: ClickPublisher;
  /** Written before each burst of answers; absent in tests that do not exercise it. */
  journal?: ClickJournal;
  limiter: PasswordLimiter;
  missBudget: MissBudget;
  redirectStatus: number;
  /** Number of trusted proxies in front (0 = use the socket address). */
  trustProxy: number;
  /** Tells the public host from branded domains. */
  hosts: HostClassifier;
  /** Single-machine mode: pipes API and dashboard paths to the gateway (see api-forwarder.ts). */
  forwardApi?: (req: IncomingMessage, res: ServerResponse) => void;
  /**
   * Campaigns' turns; a handler for another listener of the same process (the splice's return
   * listener, decision 0038) shares them, so a campaign rotates once across both.
   */
  turns?: RotatorTurns;
  /** Contact overlays' forms (decision 0026); without it a POST to an overlay link is a 405. */
  submissions?: OverlaySubmissions;
  /** Links' click limits (max_clicks), counted in the shared Redis. */
  clickLimit: ClickLimit;
  /** Countries for smart links' rules; none (every country unknown) unless given. */
  geo?: GeoCountry;
  /** Epoch milliseconds: expiry and rules' schedules are read on it (tests pass their own). */
  now?: () => number;
  logger: { error(o: object, m?: string): void; warn(o: object, m?: string): void };
}

export interface RedirectContext {
  readonly resolver: Resolver;
  readonly publisher: ClickPublisher;
  readonly journal: ClickJournal | undefined;
  readonly limiter: PasswordLimiter;
  readonly missBudget: MissBudget;
  readonly redirectStatus: number;
  readonly trustProxy: number;
  readonly hosts: HostClassifier;
  readonly forwardApi: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  readonly turns: RotatorTurns;
  readonly submissions: OverlaySubmissions | undefined;
  readonly clickLimit: ClickLimit;
  readonly geo: GeoCountry;
  readonly now: () => number;
  readonly logger: RedirectHandlerDeps["logger"];
  /** Redirects queued for the end of the event-loop turn (turn-writes.ts). */
  readonly writes: RedirectWrites;
}

export function createRedirectContext(deps: RedirectHandlerDeps): RedirectContext {
  const journal = deps.journal;
  return {
    resolver: deps.resolver,
    publisher: deps.publisher,
    journal,
    limiter: deps.limiter,
    missBudget: deps.missBudget,
    redirectStatus: deps.redirectStatus,
    trustProxy: deps.trustProxy,
    hosts: deps.hosts,
    forwardApi: deps.forwardApi,
    turns: deps.turns ?? new RotatorTurns(),
    submissions: deps.submissions,
    clickLimit: deps.clickLimit,
    geo: deps.geo ?? GeoCountry.none,
    now: deps.now ?? Date.now,
    logger: deps.logger,
    // A click is journaled before its answer is written: the turn's clicks first, then its answers.
    writes: new RedirectWrites(
      (err, res) => {
        deps.logger.error({ err: err instanceof Error ? err.message : String(err) }, "redirect write failed");
        res.destroy();
      },
      () => journal?.writeTurn(),
    ),
  };
}
