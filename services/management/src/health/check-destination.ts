// One health check of a link's destination (docs/health.md). The destination is chosen by an API client,
// so the check goes through the same SSRF guard as the title fetch (PublicAddressGuard: public addresses
// only, checked after DNS and on every hop, the socket pinned to the checked address), follows redirects
// by hand so every hop is checked and recorded, and is bounded in time (one deadline for the whole chain)
// and in bytes (a GET fallback reads a few KB at most, never the whole body).
import type { HealthState } from "@kurz/contracts";
import pLimit, { type LimitFunction } from "p-limit";
import { Agent, fetch, type Response } from "undici";
import { OutboundRefused, PublicAddressGuard, type Resolve } from "../security/public-address-guard.ts";
import { siteOf } from "../titles/title-fetcher.ts";

// What one check can find is contracts' HealthState (docs/health.md). `redirected` is never returned
// by a check alone: it needs the previous state (classify()). `connection_error`, `redirect_loop` and
// `refused` give every failure a name: a refused/reset connection, a chain that loops or exceeds the
// hop bound, and a destination the SSRF guard will not fetch (a non-public address, a non-http(s) scheme).
export type { HealthState };

export interface Hop {
  url: string;
  /** null when this hop got no answer (the error is the outcome). */
  status: number | null;
  method: "HEAD" | "GET";
}

export interface CheckResult {
  /** Everything but `redirected` (see classify). */
  outcome: Exclude<HealthState, "redirected">;
  /** The last answer's status; null when no answer came. */
  statusCode: number | null;
  /** The URL of the last hop requested. */
  finalUrl: string;
  hops: Hop[];
  durationMs: number;
  checkedAt: Date;
  /** Why, for the failures (a short technical message). */
  detail: string | null;
}

export interface DestinationCheckerOptions {
  /** Host names whose addresses are not checked (the title fetch's allow-list; tests serve locally). */
  allowHosts?: readonly string[];
  resolve?: Resolve;
  /** For the whole check, every hop included. */
  timeoutMs?: number;
  maxRedirects?: number;
  /** The GET fallback reads at most this many bytes. */
  maxBytes?: number;
  /** Milliseconds; timing and checked_at come from here, so tests pass their own. */
  now?: () => number;
}

const TLS_CODES = /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;
const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "ENODATA", "ESERVFAIL", "ENOTIMP", "EREFUSED"]);

/** The innermost error of undici's "fetch failed" wrapping. */
function rootCause(err: unknown): unknown {
  let e = err;
  for (let i = 0; i < 5; i++) {
    const cause = (e as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) break;
    e = cause;
  }
  return e;
}

function failureOf(err: unknown, timedOut: boolean): { outcome: CheckResult["outcome"]; detail: string } {
  const root = rootCause(err);
  const code = String((root as { code?: unknown } | null)?.code ?? "");
  const message = root instanceof Error ? root.message : String(root);
  if (root instanceof OutboundRefused) return { outcome: "refused", detail: message };
  if (
    timedOut ||
    (root as { name?: string } | null)?.name === "TimeoutError" ||
    code.endsWith("_TIMEOUT") ||
    code === "ETIMEDOUT"
  ) {
    return { outcome: "timeout", detail: message };
  }
  if (DNS_CODES.has(code)) return { outcome: "dns_error", detail: `${code}: ${message}` };
  if (TLS_CODES.test(code)) return { outcome: "tls_error", detail: `${code}: ${message}` };
  return { outcome: "connection_error", detail: code ? `${code}: ${message}` : message };
}

class CheckFailed extends Error {
  constructor(
    readonly outcome: CheckResult["outcome"],
    message: string,
  ) {
    super(message);
  }
}

export class DestinationChecker {
  private readonly guard: PublicAddressGuard;
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly maxRedirects: number;
  private readonly maxBytes: number;
  private readonly now: () => number;

  constructor(opts: DestinationCheckerOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.maxRedirects = opts.maxRedirects ?? 10;
    this.maxBytes = opts.maxBytes ?? 4 * 1024;
    this.now = opts.now ?? Date.now;
    this.guard = new PublicAddressGuard(opts.allowHosts ?? [], opts.resolve);
    this.agent = new Agent({
      connect: { lookup: this.guard.lookup, timeout: this.timeoutMs },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      keepAliveTimeout: 1_000,
    });
  }

  /** Checks `url`; never throws (every failure is an outcome). */
  async check(url: string): Promise<CheckResult> {
    const started = this.now();
    const hops: Hop[] = [];
    const signal = AbortSignal.timeout(this.timeoutMs);
    let current: URL;
    try {
      current = new URL(url);
    } catch {
      return this.result("refused", null, url, hops, started, "not a URL");
    }
    const seen = new Set<string>();
    try {
      for (;;) {
        if (seen.has(current.href)) {
          return this.result("redirect_loop", null, current.href, hops, started, "the chain loops");
        }
        seen.add(current.href);
        const res = await this.request(current, signal, hops);
        const location = res.headers.get("location");
        if (res.status >= 300 && res.status < 400 && location !== null) {
          if (hops.length > this.maxRedirects) {
            return this.result(
              "redirect_loop",
              res.status,
              current.href,
              hops,
              started,
              `more than ${this.maxRedirects} redirects`,
            );
          }
          current = new URL(location, current);
          continue;
        }
        const outcome = res.status >= 500 ? "server_error" : res.status >= 400 ? "client_error" : "ok";
        return this.result(outcome, res.status, current.href, hops, started, null);
      }
    } catch (err) {
      const { outcome, detail } =
        err instanceof CheckFailed
          ? { outcome: err.outcome, detail: err.message }
          : failureOf(err, signal.aborted);
      return this.result(outcome, null, current.href, hops, started, detail);
    }
  }

  /** HEAD; GET of the first bytes when HEAD is refused (405, 501) or fails other than DNS/TLS/timeout. */
  private async request(url: URL, signal: AbortSignal, hops: Hop[]): Promise<Response> {
    try {
      this.guard.assertUrl(url);
    } catch (err) {
      hops.push({ url: url.href, status: null, method: "HEAD" });
      throw err instanceof OutboundRefused ? new CheckFailed("refused", err.message) : err;
    }
    try {
      const res = await this.send(url, "HEAD", signal);
      if (res.status !== 405 && res.status !== 501) {
        hops.push({ url: url.href, status: res.status, method: "HEAD" });
        return res;
      }
    } catch (err) {
      const { outcome } = failureOf(err, signal.aborted);
      // A reset or refused HEAD may be a server that mishandles HEAD: GET decides.
      if (outcome !== "connection_error") {
        hops.push({ url: url.href, status: null, method: "HEAD" });
        throw err;
      }
    }
    try {
      const res = await this.send(url, "GET", signal);
      hops.push({ url: url.href, status: res.status, method: "GET" });
      await this.readSome(res);
      return res;
    } catch (err) {
      hops.push({ url: url.href, status: null, method: "GET" });
      throw err;
    }
  }

  private async send(url: URL, method: "HEAD" | "GET", signal: AbortSignal): Promise<Response> {
    const res = await fetch(url, {
      method,
      dispatcher: this.agent,
      redirect: "manual",
      signal,
      headers: {
        accept: "*/*",
        "user-agent": "Mozilla/5.0 (compatible; KurzLinkChecker/1.0)",
        ...(method === "GET" ? { range: `bytes=0-${this.maxBytes - 1}` } : {}),
      },
    });
    if (method === "HEAD") await res.body?.cancel();
    return res;
  }

  /** Reads at most maxBytes and drops the connection's rest: a huge body is never read whole. */
  private async readSome(res: Response): Promise<void> {
    if (!res.body) return;
    const reader = res.body.getReader();
    let size = 0;
    try {
      while (size < this.maxBytes) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.length;
      }
    } finally {
      await reader.cancel().catch(() => {});
    }
  }

  private result(
    outcome: CheckResult["outcome"],
    statusCode: number | null,
    finalUrl: string,
    hops: Hop[],
    started: number,
    detail: string | null,
  ): CheckResult {
    const end = this.now();
    return {
      outcome,
      statusCode,
      finalUrl,
      hops,
      durationMs: Math.max(0, end - started),
      checkedAt: new Date(end),
      detail,
    };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/**
 * The state a check puts a link in, given its previous state: `redirected` when the check succeeded
 * and its final URL differs from the previous check's final URL (the chain now ends elsewhere); the
 * first check has nothing to compare with, so a link that has always redirected is `ok`.
 */
export function classify(
  result: Pick<CheckResult, "outcome" | "finalUrl">,
  previous: { finalUrl: string | null } | null,
): HealthState {
  if (
    result.outcome === "ok" &&
    previous !== null &&
    previous.finalUrl !== null &&
    previous.finalUrl !== result.finalUrl
  ) {
    return "redirected";
  }
  return result.outcome;
}

/**
 * Politeness towards destination sites (registrable domains, as the title budget counts them): at most
 * one check in flight per site and starts at least `intervalMs` apart. In process, like HostBudget.
 */
export class SiteLimiter {
  private readonly queues = new Map<string, LimitFunction>();
  private readonly lastStart = new Map<string, number>();

  constructor(
    private readonly intervalMs = 1_000,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  async run<T>(hostname: string, task: () => Promise<T>): Promise<T> {
    const site = siteOf(hostname);
    let queue = this.queues.get(site);
    if (!queue) {
      queue = pLimit(1);
      this.queues.set(site, queue);
    }
    try {
      return await queue(async () => {
        const last = this.lastStart.get(site);
        if (last !== undefined) {
          const wait = last + this.intervalMs - this.now();
          if (wait > 0) await this.sleep(wait);
        }
        this.lastStart.set(site, this.now());
        return task();
      });
    } finally {
      if (queue.activeCount === 0 && queue.pendingCount === 0) {
        this.queues.delete(site);
        // A start older than the interval cannot delay anyone; dropping it bounds the map.
        const last = this.lastStart.get(site);
        if (last !== undefined && this.now() - last >= this.intervalMs) this.lastStart.delete(site);
      }
    }
  }
}
