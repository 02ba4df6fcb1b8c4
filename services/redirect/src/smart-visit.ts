// A visit to a smart link (a record with `s`, docs/redirect.md "Smart links"): its click limit
// checked when it has one, then its destination decided from the cached record (@kurz/link-rules) and
// the redirect, the click carrying that destination; a link-preview fetcher gets the link's preview
// page instead. Plain links never come here (follow.ts reads `s` once).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Destination, RedirectRecord, SmartRecord } from "@kurz/contracts";
import { decide, expiredDestination, preferredLanguage, type Visitor } from "@kurz/link-rules";
import { clientNetwork } from "@kurz/service-kit";
import { clickEvent } from "./click-event.ts";
import { addressFrom } from "./client-ip.ts";
import { failed } from "./fallbacks.ts";
import { redirect, redirectJoined } from "./follow.ts";
import { PAGES, sendPage } from "./pages.ts";
import { renderPreviewPage, sendPreviewPage } from "./preview-page.ts";
import { type ClickHeaders, clickHeaders } from "./raw-headers.ts";
import type { RedirectContext } from "./redirect-context.ts";
import { type Agent, agentOf } from "./user-agent.ts";

/**
 * What rules may ask of one request, each part worked out on first use: a link whose rules never name
 * a country never looks the address up, the User-Agent is parsed only when a rule, an app link or
 * a preview needs it, and the clock is read only for a schedule.
 */
export class RequestVisitor implements Visitor {
  readonly headers: ClickHeaders;
  readonly query: string;
  private nowMemo: number | undefined;
  private agentMemo: Agent | undefined;
  private ipMemo: string | null | undefined;
  private countryMemo: string | null | undefined;
  private languageMemo: string | null | undefined;
  private keyMemo: number | undefined;

  constructor(
    private readonly ctx: RedirectContext,
    private readonly req: IncomingMessage,
    private readonly linkId: string,
  ) {
    this.headers = clickHeaders(req.rawHeaders);
    const url = req.url ?? "";
    const q = url.indexOf("?");
    this.query = q === -1 ? "" : url.slice(q + 1);
  }

  /** The clock when the decision first asks for it: read only for a rule with a schedule. */
  get now(): number {
    if (this.nowMemo === undefined) this.nowMemo = this.ctx.now();
    return this.nowMemo;
  }

  get agent(): Agent {
    if (this.agentMemo === undefined) this.agentMemo = agentOf(this.headers.userAgent);
    return this.agentMemo;
  }
  get device() {
    return this.agent.device;
  }
  get os() {
    return this.agent.os;
  }
  get browser() {
    return this.agent.browser;
  }
  /** The client address as its click records it (client-ip.ts). */
  get ip(): string | null {
    if (this.ipMemo === undefined)
      this.ipMemo = addressFrom(
        this.req.socket.remoteAddress,
        this.headers.forwardedFor,
        this.ctx.trustProxy,
      );
    return this.ipMemo;
  }
  get country(): string | null {
    if (this.countryMemo === undefined) this.countryMemo = this.ctx.geo.country(this.ip);
    return this.countryMemo;
  }
  get language(): string | null {
    if (this.languageMemo === undefined) this.languageMemo = languageOf(this.headers.acceptLanguage);
    return this.languageMemo;
  }
  /**
   * The visitor's network (an IPv6 client by its /64, as the per-client budgets count it), agent and
   * the link: the same person on the same link lands in the same split arm on every instance.
   */
  get key(): number {
    if (this.keyMemo === undefined)
      this.keyMemo = visitorKey(clientNetwork(this.ip), this.headers.userAgent ?? "", this.linkId);
    return this.keyMemo;
  }
}

// Browsers send one Accept-Language per configured locale list, so a handful of distinct values make
// up nearly all traffic: each is parsed once. Emptied when full, so random values cannot grow it.
const LANGUAGES_MAX = 1024;
const LANGUAGE_KEY_MAX = 256;
const languages = new Map<string, string | null>();

function languageOf(header: string | undefined): string | null {
  if (header === undefined || header.length > LANGUAGE_KEY_MAX) return preferredLanguage(header);
  let lang = languages.get(header);
  if (lang === undefined) {
    lang = preferredLanguage(header);
    if (languages.size >= LANGUAGES_MAX) languages.clear();
    languages.set(header, lang);
  }
  return lang;
}

/** FNV-1a (32-bit) over the three parts, then a final mix so that every bit of the key varies. */
export function visitorKey(network: string, userAgent: string, linkId: string): number {
  let h = 0x811c9dc5;
  const feed = (s: string) => {
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0x0a;
    h = Math.imul(h, 0x01000193);
  };
  feed(network);
  feed(userAgent);
  feed(linkId);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A GET counts against the limit, unless a bot made it (analytics records bots but counts people). */
const counts = (req: IncomingMessage, v: RequestVisitor) => req.method !== "HEAD" && !v.agent.bot;

const publish = (
  ctx: RedirectContext,
  req: IncomingMessage,
  record: RedirectRecord,
  code: string,
  v: RequestVisitor,
  destination: Destination,
) => {
  if (req.method !== "HEAD")
    ctx.publisher.push(clickEvent(req, record, code, ctx.trustProxy, destination, v.headers, v.ip));
};

/**
 * Runs `then` once the visit is within the link's click limit, else answers as an expired link; a
 * link without a limit goes straight on. While Redis cannot say, the visit gets a 503: the limit is
 * exact, and only links that have one depend on Redis here.
 */
export function withinClickLimit(
  ctx: RedirectContext,
  req: IncomingMessage,
  res: ServerResponse,
  record: RedirectRecord,
  code: string,
  s: SmartRecord,
  v: RequestVisitor,
  then: () => void,
  status = ctx.redirectStatus,
): void {
  const max = s.m;
  if (max === undefined) {
    then();
    return;
  }
  ctx.clickLimit
    .admit(record.id, max, req.method === "POST" || counts(req, v))
    .then(
      (within) => (within ? then() : answerExpired(ctx, req, res, record, code, s, v, status)),
      (err: unknown) => {
        ctx.logger.warn(
          { err: err instanceof Error ? err.message : String(err), link: record.id },
          "click limit unavailable; visit refused",
        );
        if (!res.headersSent) sendPage(req, res, PAGES.unavailable, { "retry-after": "1" });
      },
    )
    .catch((err: unknown) => failed(ctx, res, req, err));
}

/** A link past its expiry or its click limit: its expired_url (a click tagged `expired`), else 410. */
export function answerExpired(
  ctx: RedirectContext,
  req: IncomingMessage,
  res: ServerResponse,
  record: RedirectRecord,
  code: string,
  s: SmartRecord | undefined,
  v: RequestVisitor | undefined,
  status = ctx.redirectStatus,
): void {
  if (s?.x === undefined) {
    sendPage(req, res, PAGES.gone);
    return;
  }
  const visitor = v ?? new RequestVisitor(ctx, req, record.id);
  const to = expiredDestination(s, visitor)!;
  publish(ctx, req, record, code, visitor, "expired");
  redirect(ctx, res, to, status);
}

/** A smart link followed (GET, HEAD, or a password form's POST with `status` 303). */
export function followSmart(
  ctx: RedirectContext,
  req: IncomingMessage,
  res: ServerResponse,
  record: RedirectRecord,
  code: string,
  s: SmartRecord,
  status = ctx.redirectStatus,
): void {
  const v = new RequestVisitor(ctx, req, record.id);
  if (s.m === undefined) land(ctx, req, res, record, code, s, v, status);
  else
    withinClickLimit(
      ctx,
      req,
      res,
      record,
      code,
      s,
      v,
      () => land(ctx, req, res, record, code, s, v, status),
      status,
    );
}

function land(
  ctx: RedirectContext,
  req: IncomingMessage,
  res: ServerResponse,
  record: RedirectRecord,
  code: string,
  s: SmartRecord,
  v: RequestVisitor,
  status: number,
): void {
  const d = decide(record.url, s, v);
  publish(ctx, req, record, code, v, d.destination);
  const og = s.g;
  if (og !== undefined && req.method !== "POST" && v.agent.bot) {
    ctx.journal?.writeTurn(); // the click is durable before its answer, as for a redirect
    sendPreviewPage(req, res, renderPreviewPage(og, shortUrl(ctx, req, v), d.url));
    return;
  }
  redirectJoined(ctx, res, d.url, d.chosen, v.query, status);
}

/**
 * The short URL as the fetcher asked for it, on this host, for og:url: on a branded domain in that
 * domain's scheme (its record was just resolved, so it is cached), else PUBLIC_BASE_URL's.
 */
function shortUrl(ctx: RedirectContext, req: IncomingMessage, v: RequestVisitor): string {
  const host = v.headers.host ?? ctx.hosts.exact;
  const name = ctx.hosts.classify(host);
  const https = typeof name === "string" ? ctx.resolver.domains.peek(name)?.https : undefined;
  const protocol = https === undefined ? ctx.hosts.protocol : https ? "https:" : "http:";
  return `${protocol}//${host}${req.url ?? "/"}`;
}
