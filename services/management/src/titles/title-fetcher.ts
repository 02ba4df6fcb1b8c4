// Title auto-fetch for links created without a title. The destination is chosen by an API
// client, so every fetch is treated as hostile: only public addresses (checked after DNS resolution and
// on every redirect hop, with the connection pinned to the address that was checked, so a second DNS
// answer cannot swap in a private one), bounded time and bytes, a few redirects, http(s) only.
// Every destination site also has a budget (HostBudget): a few fetches at a time and a number per
// minute, so clients cannot aim Kurz's fetches at one site as a request amplifier. A site is the
// registrable domain (tldts, the Public Suffix List's ICANN section): a.victim.example and
// b.victim.example share victim.example's budget, so fresh subdomains do not buy fresh fetches.
import { Parser } from "htmlparser2";
import pLimit, { type LimitFunction } from "p-limit";
import { getDomain } from "tldts";
import { Agent, fetch, type Response } from "undici";
import type { ManagementConfig } from "../config.ts";
import { allowsFraming } from "../overlays/frame-policy.ts";
import {
  OutboundRefused,
  PublicAddressGuard,
  type Resolve,
  serversResolve,
} from "../security/public-address-guard.ts";

export { isPublicAddress } from "../security/public-address-guard.ts";

export const FETCHED_TITLE_MAX_LENGTH = 255;

export interface TitleFetcherOptions {
  /** false: never fetch, the title is always the host name. */
  enabled?: boolean;
  /** Host names (no port) whose addresses are not checked, for tests that serve a page locally. */
  allowHosts?: readonly string[];
  /** For the whole fetch, every hop and the body included. */
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** Who answers DNS for the fetches (the system's resolver by default; tests name their own). */
  resolve?: Resolve;
  /** Fetches in flight to one site (registrable domain; more wait their turn). */
  perHostConcurrency?: number;
  /** Fetches started per site per clock minute, redirect hops included; beyond it: the fallback title. */
  perHostPerMinute?: number;
}

/** The title used when none is fetched: the destination's host name (lower case, as URL gives it). */
export const fallbackTitle = (url: string): string => new URL(url).hostname;

/**
 * The site a host belongs to, as budgets count it: its registrable domain (`a.b.example.co.uk` →
 * `example.co.uk`); an address, a bare suffix or a single label counts as itself.
 */
export const siteOf = (hostname: string): string => getDomain(hostname) ?? hostname.toLowerCase();

/**
 * Per-site limits of this process (callers pass siteOf(host)). In process rather than in Redis: concurrency is a property of one
 * process anyway, a minute budget needs no round trip per fetch, and with N instances a host sees at
 * most N times the budget, a bound that is still fixed and small (docs/security.md).
 */
export class HostBudget {
  private minute = -1;
  private started = new Map<string, number>();
  private readonly queues = new Map<string, LimitFunction>();

  constructor(
    private readonly concurrency: number,
    private readonly perMinute: number,
  ) {}

  /** Counts one fetch started towards `host` (a site); false once this minute's budget is spent. */
  take(host: string, now = Date.now()): boolean {
    const minute = Math.floor(now / 60_000);
    if (minute !== this.minute) {
      // A fixed window: the map holds only this minute's hosts, so it cannot grow without bound.
      this.minute = minute;
      this.started = new Map();
    }
    const n = this.started.get(host) ?? 0;
    if (n >= this.perMinute) return false;
    this.started.set(host, n + 1);
    return true;
  }

  /** Runs `task` when fewer than `concurrency` fetches to `host` are in flight. */
  async run<T>(host: string, task: () => Promise<T>): Promise<T> {
    let queue = this.queues.get(host);
    if (!queue) {
      queue = pLimit(this.concurrency);
      this.queues.set(host, queue);
    }
    try {
      return await queue(task);
    } finally {
      if (queue.activeCount === 0 && queue.pendingCount === 0) this.queues.delete(host);
    }
  }
}

/** Why a fetch gave no title; the caller falls back to the host name in every case. */
export class TitleFetchRefused extends Error {
  override name = "TitleFetchRefused";
}

/** Collapses whitespace, drops control characters and caps the length without splitting a character. */
export function cleanTitle(raw: string): string | null {
  const text = raw
    .replace(/\p{Cc}/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (text === "") return null;
  return Array.from(text).slice(0, FETCHED_TITLE_MAX_LENGTH).join("").trim();
}

/** `<title>` first, then `og:title`; entities decoded by the parser. */
export function extractTitle(html: string): string | null {
  let title = "";
  let inTitle = false;
  let titleSeen = false;
  let ogTitle: string | null = null;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === "title" && !titleSeen) inTitle = true;
        if (name === "meta" && ogTitle === null) {
          const key = (attribs.property ?? attribs.name ?? "").toLowerCase();
          if (key === "og:title" && attribs.content !== undefined) ogTitle = attribs.content;
        }
      },
      ontext(text) {
        if (inTitle) title += text;
      },
      onclosetag(name) {
        if (name === "title" && inTitle) {
          inTitle = false;
          titleSeen = true;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return cleanTitle(title) ?? (ogTitle === null ? null : cleanTitle(ogTitle));
}

const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;
const END_OF_HEAD = /<\/head\s*>|<body[\s>]/i;

function charsetOf(contentType: string | null, head: Buffer): string {
  const fromHeader = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? "")?.[1];
  const fromMeta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head.toString("latin1"))?.[1];
  return fromHeader ?? fromMeta ?? "utf-8";
}

function decode(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes); // unknown label
  }
}

/** The fetcher the service and the import CLI build from the same settings. */
export const titleFetcherFrom = (
  config: Pick<
    ManagementConfig,
    | "TITLE_FETCH_ENABLED"
    | "TITLE_FETCH_ALLOW_HOSTS"
    | "TITLE_FETCH_HOST_PER_MINUTE"
    | "TITLE_FETCH_DNS_SERVERS"
  >,
) =>
  new TitleFetcher({
    enabled: config.TITLE_FETCH_ENABLED,
    allowHosts: config.TITLE_FETCH_ALLOW_HOSTS,
    perHostPerMinute: config.TITLE_FETCH_HOST_PER_MINUTE,
    ...(config.TITLE_FETCH_DNS_SERVERS.length > 0
      ? { resolve: serversResolve(config.TITLE_FETCH_DNS_SERVERS) }
      : {}),
  });

export class TitleFetcher {
  /** false: titleFor never fetches (callers need not budget for fetches). */
  readonly enabled: boolean;
  private readonly guard: PublicAddressGuard;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  private readonly hosts: HostBudget;
  private readonly agent: Agent;

  constructor(opts: TitleFetcherOptions = {}) {
    this.enabled = opts.enabled ?? true;
    this.hosts = new HostBudget(opts.perHostConcurrency ?? 4, opts.perHostPerMinute ?? 60);
    this.timeoutMs = opts.timeoutMs ?? 3_000;
    this.maxBytes = opts.maxBytes ?? 256 * 1024;
    this.maxRedirects = opts.maxRedirects ?? 3;
    // The socket connects to whatever the guard's lookup answers, so the check and the connection
    // cannot disagree (no DNS-rebinding window between them).
    this.guard = new PublicAddressGuard(opts.allowHosts ?? [], opts.resolve);
    const lookup = this.guard.lookup;
    this.agent = new Agent({
      connect: { lookup, timeout: this.timeoutMs },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      // Each title is a one-off request; pooled sockets would only pin file descriptors.
      keepAliveTimeout: 1_000,
    });
  }

  /**
   * The destination's title, or its host name when there is none, it cannot be fetched, or the host's
   * budget is spent (then without a fetch). Never throws.
   */
  async titleFor(url: string): Promise<string> {
    const host = fallbackTitle(url);
    const site = siteOf(host);
    if (!this.enabled || !this.hosts.take(site)) return host;
    try {
      return (await this.hosts.run(site, () => this.fetchTitle(url))) ?? host;
    } catch {
      return host;
    }
  }

  /** The page's title, null when it has none; throws on refusal, timeout, or a network error. */
  async fetchTitle(url: string): Promise<string | null> {
    try {
      return await this.fetchFollowing(url);
    } catch (err) {
      // undici wraps a refusal from the lookup in "fetch failed"; surface the reason itself.
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof OutboundRefused) throw new TitleFetchRefused(cause.message);
      throw cause instanceof TitleFetchRefused ? cause : err;
    }
  }

  /**
   * Whether the destination may be framed under an overlay (frame-policy.ts), with the same guards and
   * host budget as a title fetch; null when it could not be checked (then the overlay is an interstitial).
   * Never throws.
   */
  async framingAllowed(url: string): Promise<boolean | null> {
    const site = siteOf(fallbackTitle(url));
    if (!this.enabled || !this.hosts.take(site)) return null;
    try {
      return await this.hosts.run(site, async () => {
        const res = await this.fetchFinal(url, AbortSignal.timeout(this.timeoutMs));
        await res.body?.cancel();
        return res.ok ? allowsFraming(res.headers) : null;
      });
    } catch {
      return null;
    }
  }

  private async fetchFollowing(url: string): Promise<string | null> {
    const res = await this.fetchFinal(url, AbortSignal.timeout(this.timeoutMs));
    if (!res.ok || !HTML_TYPES.test(res.headers.get("content-type") ?? "text/html")) {
      await res.body?.cancel();
      return null;
    }
    const bytes = await this.readHead(res.body);
    return extractTitle(decode(bytes, charsetOf(res.headers.get("content-type"), bytes.subarray(0, 1024))));
  }

  /** The answer at the end of the redirects (at most maxRedirects), every hop checked and budgeted. */
  private async fetchFinal(url: string, signal: AbortSignal): Promise<Response> {
    let current = new URL(url);
    for (let hop = 0; ; hop++) {
      this.assertAllowed(current);
      const res = await fetch(current, {
        dispatcher: this.agent,
        redirect: "manual",
        signal,
        headers: {
          accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1",
          "user-agent": "Mozilla/5.0 (compatible; KurzTitleFetcher/1.0)",
        },
      });
      const location = res.headers.get("location");
      if (res.status >= 300 && res.status < 400 && location !== null) {
        await res.body?.cancel();
        if (hop >= this.maxRedirects) throw new TitleFetchRefused("too many redirects");
        const next = new URL(location, current);
        // A hop to another site is a fetch of that site too: redirects must not launder the budget.
        const nextSite = siteOf(next.hostname);
        if (nextSite !== siteOf(current.hostname) && !this.hosts.take(nextSite)) {
          throw new TitleFetchRefused(`${nextSite} has no title fetches left this minute`);
        }
        current = next;
        continue;
      }
      return res;
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private assertAllowed(url: URL): void {
    try {
      this.guard.assertUrl(url);
    } catch (err) {
      throw err instanceof OutboundRefused ? new TitleFetchRefused(err.message) : err;
    }
  }

  /** Reads until the head is complete or maxBytes, whichever comes first. */
  private async readHead(body: ReadableStream<Uint8Array> | null): Promise<Buffer> {
    if (!body) return Buffer.alloc(0);
    const chunks: Buffer[] = [];
    let size = 0;
    const reader = body.getReader();
    try {
      while (size < this.maxBytes) {
        const { done, value } = await reader.read();
        if (done) break;
        const chunk = Buffer.from(value);
        chunks.push(chunk);
        size += chunk.length;
        // Look at the new chunk plus a little overlap so a tag split across chunks is still seen.
        const tail = Buffer.concat(chunks.slice(-2)).toString("latin1");
        if (END_OF_HEAD.test(tail)) break;
      }
    } finally {
      await reader.cancel().catch(() => {});
    }
    return Buffer.concat(chunks).subarray(0, this.maxBytes);
  }
}
