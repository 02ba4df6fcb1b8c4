// Management's word on links, asked while the user waits (docs/analytics.md, "Read-your-writes").
// Postgres is the truth about which links exist and whose they are; the link dimension in ClickHouse
// follows it through the outbox and lags. So analytics asks management once per request and keeps
// nothing in process: every instance answers the same as soon as a create or delete has answered.
// When management cannot answer, the request fails with 503, never with a guess (a wrong 200 or 404).
import {
  INTERNAL_ROUTES,
  type InternalRouteDef,
  type PathParams,
  type AnalyticsLinkRef as TAnalyticsLinkRef,
  type LinksSummary as TLinksSummary,
  type PublicAnalyticsRef as TPublicAnalyticsRef,
} from "@kurz/contracts";
import {
  createInternalClient,
  type InternalClient,
  internalHeaders,
  type Logger,
  serviceUnavailable,
} from "@kurz/service-kit";
import type * as z from "zod";

export interface ManagementLinksOptions {
  managementUrl: string;
  internalToken: string;
  /** How long deletions are listed for the summary: at least the longest expected consumer lag. */
  deletedWindowSeconds: number;
  logger: Logger;
  /** Per call; default 2000. */
  timeoutMs?: number;
}

const unavailable = () => serviceUnavailable("Analytics cannot reach link data right now; retry shortly");

/** What analytics needs to know about links; ManagementLinks asks management for it. */
export interface LinkDirectory {
  link(accountId: string, linkId: string): Promise<TAnalyticsLinkRef | null>;
  publicLink(shortCode: string): Promise<TPublicAnalyticsRef | null>;
  linksSummary(accountId: string, candidates: readonly string[]): Promise<TLinksSummary>;
}

export class ManagementLinks implements LinkDirectory {
  private readonly management: InternalClient;
  private readonly timeoutMs: number;

  constructor(private readonly opts: ManagementLinksOptions) {
    this.management = createInternalClient(
      opts.managementUrl,
      internalHeaders(opts.internalToken, "analytics"),
    );
    this.timeoutMs = opts.timeoutMs ?? 2_000;
  }

  /** The account's live link, or null when it has none with this id (another account's included). */
  link(accountId: string, linkId: string): Promise<TAnalyticsLinkRef | null> {
    return this.get(INTERNAL_ROUTES.getAnalyticsLink, { link_id: linkId }, { account_id: accountId });
  }

  /** A live link whose owner made its analytics public, or null. */
  publicLink(shortCode: string): Promise<TPublicAnalyticsRef | null> {
    return this.get(INTERNAL_ROUTES.getPublicAnalyticsLink, { short_code: shortCode });
  }

  /** Link counts, the live ones among `candidates` (with details), and the recently deleted ids. */
  async linksSummary(accountId: string, candidates: readonly string[]): Promise<TLinksSummary> {
    const summary = await this.get(
      INTERNAL_ROUTES.getLinksSummary,
      { account_id: accountId },
      { candidates: candidates.join(","), deleted_within: String(this.opts.deletedWindowSeconds) },
    );
    if (!summary) throw unavailable(); // the route always exists: a 404 means a misrouted call
    if (summary.deleted_truncated) {
      this.opts.logger.warn(
        { accountId, listed: summary.deleted_link_ids.length },
        "more recent deletions than listed; older ones count in the summary until the consumer applies them",
      );
    }
    return summary;
  }

  private async get<R extends InternalRouteDef & { response: z.ZodType }>(
    route: R,
    params: PathParams<R["path"]>,
    query?: Record<string, string>,
  ): Promise<z.infer<R["response"]> | null> {
    let res: Response;
    try {
      res = await this.management.call(route, params, {
        ...(query ? { query } : {}),
        timeoutMs: this.timeoutMs,
      });
    } catch (err) {
      this.opts.logger.warn({ err: String(err) }, "management did not answer a link lookup");
      throw unavailable();
    }
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    const parsed = res.ok ? route.response.safeParse(await res.json().catch(() => undefined)) : null;
    if (!parsed?.success) {
      if (!res.bodyUsed) await res.body?.cancel();
      this.opts.logger.warn({ status: res.status }, "management answered a link lookup unexpectedly");
      throw unavailable();
    }
    return parsed.data as z.infer<R["response"]>;
  }
}
