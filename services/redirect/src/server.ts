// The public redirect path. Plain node:http: Express's own per-request work costs ~7x a whole bare
// redirect. A cached code on the public host is answered without awaiting anything and
// without logging. Operational endpoints are not served here (ops.ts).
//
// Tenancy: on the public host every link and rotator resolves; on a branded domain
// only its owner's, and anything else is that domain's "not found"; on any other host nothing
// (request-host.ts). Paths that cannot name a code are a 404 before any lookup (code-grammar.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type DomainRecord,
  type OverlayRecord,
  type RedirectRecord,
  type RotatorRecord,
  toLocation,
} from "@kurz/contracts";
import { isCampaignPagePath } from "@kurz/service-kit";
import { verify } from "@node-rs/argon2";
import { isbot } from "isbot";
import { isApiPath, isWebAppPath } from "./api-forwarder.ts";
import { clickEvent } from "./click-event.ts";
import type { ClickJournal } from "./click-journal.ts";
import type { ClickPublisher } from "./click-publisher.ts";
import { clientIp } from "./client-ip.ts";
import { isCodeShaped, isSlugShaped } from "./code-grammar.ts";
import type { MissBudget } from "./miss-budget.ts";
import { type OverlayState, renderOverlayPage } from "./overlay-page.ts";
import type { OverlaySubmissions } from "./overlay-submissions.ts";
import { PAGES, sendPage, wantsJson } from "./pages.ts";
import type { PasswordLimiter } from "./password-limiter.ts";
import { clickHeaders, rawHost } from "./raw-headers.ts";
import { readForm } from "./read-form.ts";
import { type HostClassifier, PUBLIC_HOST } from "./request-host.ts";
import { LookupRefusedError, type ManagementGate, type Resolver } from "./resolver.ts";
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
  logger: { error(o: object, m?: string): void };
}

const MAX_FORM_BYTES = 4096;
// A character no URI holds. Records reach the cache already in their Location form (resolver.ts), so
// this one scan per redirect only guards: whatever slips past goes out percent-encoded, never raw.
const NOT_URI_CHAR = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/?#%[\]]/;

type Route = { kind: "code"; id: string } | { kind: "rotator"; id: string } | { kind: "root" };
const ROOT: Route = { kind: "root" };

/** `/<code>`, `/r/<slug>` or `/`; null for any path that cannot name one (a 404 without lookup). */
function route(url: string): Route | null {
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  if (path === "/") return ROOT;
  if (path.startsWith("/r/")) {
    const slug = path.slice(3);
    return isSlugShaped(slug) ? { kind: "rotator", id: slug } : null;
  }
  const code = path.slice(1);
  return path.charCodeAt(0) === 47 /* / */ && isCodeShaped(code) ? { kind: "code", id: code } : null;
}

export function createRedirectHandler(deps: RedirectHandlerDeps) {
  const { resolver, publisher, limiter, missBudget, redirectStatus, trustProxy, hosts } = deps;
  const turns = deps.turns ?? new RotatorTurns();

  // A click is journaled before its answer is written: the turn's clicks first, then its answers.
  const writes = new RedirectWrites(
    (err, res) => {
      deps.logger.error({ err: err instanceof Error ? err.message : String(err) }, "redirect write failed");
      res.destroy();
    },
    () => deps.journal?.writeTurn(),
  );

  function redirect(res: ServerResponse, location: string, status = redirectStatus): void {
    const value = NOT_URI_CHAR.test(location) ? toLocation(location) : location;
    writes.send(res, status, value);
  }

  // The click is pushed before its answer is queued: a full queue writes at once (turn-writes.ts),
  // and the journal must hold the click by then.
  function follow(req: IncomingMessage, res: ServerResponse, record: RedirectRecord, code: string) {
    if (req.method === "GET") publisher.push(clickEvent(req, record, code, trustProxy));
    redirect(res, record.url);
  }

  /** Lookups that would reach management count against the client's miss budget. */
  const gateOf = (req: IncomingMessage): ManagementGate => missBudget.gate(clientIp(req, trustProxy));

  /** "Not found" as the host says: a branded domain's redirect_404 when set, else the 404 page. */
  function notFound(req: IncomingMessage, res: ServerResponse, domain: DomainRecord | null): void {
    if (domain?.redirect_404) redirect(res, domain.redirect_404);
    else sendPage(req, res, PAGES.notFound);
  }

  /** Whether a record of this account may be served on this host (null = the public host). */
  const servedOn = (domain: DomainRecord | null, accountId: string) =>
    domain === null || domain.account_id === accountId;

  /**
   * A link created on a branded domain is served only there. A link without one is served on the
   * public host and on its owner's verified branded domains, so branded URLs already handed out keep
   * working.
   */
  const linkServedOn = (domain: DomainRecord | null, record: RedirectRecord) =>
    (record.domain_id == null || (domain !== null && record.domain_id === domain.id)) &&
    servedOn(domain, record.account_id);

  function answer(
    req: IncomingMessage,
    res: ServerResponse,
    code: string,
    record: RedirectRecord | null,
    domain: DomainRecord | null,
  ): void {
    // Another tenant's link on a branded domain is that domain's "not found", never a click.
    if (!record?.active || !linkServedOn(domain, record)) {
      notFound(req, res, domain);
      return;
    }
    if (record.expires_at !== null && record.expires_at <= Date.now()) {
      sendPage(req, res, PAGES.gone);
      return;
    }
    if (record.password_hash !== null) {
      if (req.method === "POST") {
        void unlock(req, res, code, record, record.password_hash).catch((err: unknown) =>
          failed(res, req, err),
        );
        return;
      }
      sendPage(req, res, wantsJson(req) ? PAGES.passwordRequired : PAGES.passwordForm);
      return;
    }
    // A link with a CTA overlay: one property read here is all a plain link pays (decision 0026).
    if (record.overlay_id != null) {
      withOverlay(req, res, record, code, record.overlay_id);
      return;
    }
    if (req.method === "POST") {
      req.resume();
      sendPage(req, res, PAGES.methodNotAllowed, { allow: "GET, HEAD" });
      return;
    }
    follow(req, res, record, code);
  }

  /**
   * The overlay page for browsers (its GET counts the click, once: "Continue" and the frame go
   * straight to the destination), the plain redirect for bots and link-preview fetchers, and the
   * contact form's POST. An overlay that is gone or another account's is no overlay.
   */
  function withOverlay(
    req: IncomingMessage,
    res: ServerResponse,
    record: RedirectRecord,
    code: string,
    overlayId: number,
  ): void {
    if (req.method !== "POST" && isbot(clickHeaders(req.rawHeaders).userAgent ?? "")) {
      follow(req, res, record, code);
      return;
    }
    const id = String(overlayId);
    const show = (overlay: OverlayRecord | null) => {
      const own = overlay !== null && overlay.account_id === record.account_id ? overlay : null;
      if (req.method === "POST") return void submit(req, res, record, code, own);
      if (own === null) return follow(req, res, record, code);
      if (req.method === "GET") {
        publisher.push(clickEvent(req, record, code, trustProxy));
        deps.journal?.writeTurn(); // the click is durable before its answer, as for a redirect
      }
      sendOverlay(req, res, own, record, { kind: "show" });
    };
    const cached = resolver.overlays.peek(id);
    if (cached !== undefined) show(cached);
    else
      resolver.overlays
        .resolve(id)
        .then(show)
        .catch((err: unknown) => failed(res, req, err));
  }

  function sendOverlay(
    req: IncomingMessage,
    res: ServerResponse,
    overlay: OverlayRecord,
    record: RedirectRecord,
    state: OverlayState,
  ): void {
    const page = renderOverlayPage(overlay, record.url, record.frameable === true, state);
    const body = Buffer.from(page.html);
    res.writeHead(page.status, { ...page.headers, "content-length": body.length });
    res.end(req.method === "HEAD" ? undefined : body);
  }

  function submit(
    req: IncomingMessage,
    res: ServerResponse,
    record: RedirectRecord,
    code: string,
    overlay: OverlayRecord | null,
  ): void {
    if (overlay?.type !== "contact" || !deps.submissions) {
      req.resume();
      sendPage(req, res, PAGES.methodNotAllowed, { allow: "GET, HEAD" });
      return;
    }
    const submissions = deps.submissions;
    void (async () => {
      const form = await readForm(req, MAX_FORM_BYTES);
      if (!form.ok) {
        if (form.reason === "aborted") return void res.destroy();
        const page = form.reason === "too_large" ? PAGES.payloadTooLarge : PAGES.unsupportedMediaType;
        sendPage(req, res, page, { connection: "close" });
        return;
      }
      const outcome = await submissions.submit(code, clientIp(req, trustProxy), form.fields);
      if (outcome.kind === "gone") sendPage(req, res, PAGES.notFound);
      else if (outcome.kind === "unavailable") sendPage(req, res, PAGES.unavailable, { "retry-after": "1" });
      else sendOverlay(req, res, overlay, record, outcome);
    })().catch((err: unknown) => failed(res, req, err));
  }

  async function unlock(
    req: IncomingMessage,
    res: ServerResponse,
    code: string,
    record: RedirectRecord,
    hash: string,
  ): Promise<void> {
    const form = await readForm(req, MAX_FORM_BYTES);
    if (!form.ok) {
      if (form.reason === "aborted") return void res.destroy();
      const page = form.reason === "too_large" ? PAGES.payloadTooLarge : PAGES.unsupportedMediaType;
      sendPage(req, res, page, { connection: "close" });
      return;
    }
    const password = form.fields.get("password") ?? "";
    if (password === "") {
      sendPage(req, res, PAGES.passwordRequired);
      return;
    }
    const ip = clientIp(req, trustProxy);
    const attempt = await limiter.attempt(code, ip);
    if (!attempt.allowed) {
      sendPage(req, res, PAGES.tooManyAttempts, { "retry-after": String(attempt.retryAfter) });
      return;
    }
    if (!(await verify(hash, password))) {
      sendPage(req, res, PAGES.wrongPassword);
      return;
    }
    await limiter.succeeded(code, ip);
    // 303: the browser follows with a GET, so the password is never re-posted to the destination
    // (a 307/308 REDIRECT_STATUS would do exactly that).
    publisher.push(clickEvent(req, record, code, trustProxy));
    redirect(res, record.url, 303);
  }

  /** The campaign's next link in turn that can be followed (active, not expired, no password). */
  async function rotate(
    req: IncomingMessage,
    res: ServerResponse,
    rotator: RotatorRecord | null,
    domain: DomainRecord | null,
  ) {
    if (!rotator || rotator.links.length === 0 || !servedOn(domain, rotator.account_id)) {
      notFound(req, res, domain);
      return;
    }
    const n = rotator.links.length;
    const start = turns.next(rotator.campaign_id, rotator.links);
    const now = Date.now();
    for (let i = 0; i < n; i++) {
      const { short_code } = rotator.links[(start + i) % n]!;
      const record = resolver.links.peek(short_code) ?? (await resolver.links.resolve(short_code));
      if (
        record?.active &&
        record.account_id === rotator.account_id &&
        record.password_hash === null &&
        (record.expires_at === null || record.expires_at > now)
      ) {
        follow(req, res, record, short_code);
        return;
      }
    }
    notFound(req, res, domain);
  }

  function failed(res: ServerResponse, req: IncomingMessage, err: unknown): void {
    if (err instanceof LookupRefusedError) {
      if (res.headersSent) res.destroy();
      else sendPage(req, res, PAGES.tooManyLookups, { "retry-after": String(err.retryAfter) });
      return;
    }
    deps.logger.error({ err: err instanceof Error ? err.message : String(err) }, "redirect failed");
    if (res.headersSent) res.destroy();
    else sendPage(req, res, PAGES.unavailable, { "retry-after": "1" });
  }

  /** Serves a route on a host: `domain` is the branded domain, null on the public host. */
  function serve(req: IncomingMessage, res: ServerResponse, r: Route, domain: DomainRecord | null): void {
    if (r.kind === "root") {
      if (domain?.redirect_root) redirect(res, domain.redirect_root);
      else sendPage(req, res, PAGES.notFound);
      return;
    }
    if (r.kind === "rotator") {
      if (req.method === "POST") {
        req.resume();
        sendPage(req, res, PAGES.methodNotAllowed, { allow: "GET, HEAD" });
        return;
      }
      const cached = resolver.rotators.peek(r.id);
      const p =
        cached !== undefined
          ? rotate(req, res, cached, domain)
          : resolver.rotators.resolve(r.id, gateOf(req)).then((rot) => rotate(req, res, rot, domain));
      p.catch((err: unknown) => failed(res, req, err));
      return;
    }
    const cached = resolver.links.peek(r.id);
    if (cached !== undefined) {
      answer(req, res, r.id, cached, domain);
      return;
    }
    resolver.links
      .resolve(r.id, gateOf(req))
      .then((record) => answer(req, res, r.id, record, domain))
      .catch((err: unknown) => failed(res, req, err));
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const host = hosts.classify(rawHost(req.rawHeaders));
    // The API, the docs page and the dashboard live on the origin's own hosts only; on a branded
    // domain (or a host that is none) their paths are the domain's, here. Campaign pages go to the
    // gateway on any named host: management serves one on a branded domain only to the domain's owner.
    const url = req.url ?? "/";
    if (
      deps.forwardApi &&
      host !== null &&
      (host === PUBLIC_HOST ? isApiPath(url) : isCampaignPagePath(url))
    ) {
      deps.forwardApi(req, res);
      return;
    }
    const method = req.method;
    if (method !== "GET" && method !== "HEAD" && method !== "POST") {
      req.resume();
      sendPage(req, res, PAGES.methodNotAllowed, { allow: "GET, HEAD, POST" });
      return;
    }
    if (host === PUBLIC_HOST && deps.forwardApi && isWebAppPath(url)) {
      deps.forwardApi(req, res);
      return;
    }
    const r = route(url);
    if (host === null || (host === PUBLIC_HOST && r === null)) {
      req.resume();
      sendPage(req, res, PAGES.notFound);
      return;
    }
    if (host === PUBLIC_HOST) {
      serve(req, res, r!, null);
      return;
    }
    // A branded domain: only its owner's links, and any path that names none goes to its redirect_404
    // (the domain's "where unknown paths are sent"). A host that is not a verified domain serves nothing.
    const onDomain = (domain: DomainRecord | null) => {
      if (domain === null || r === null) {
        req.resume();
        notFound(req, res, domain);
      } else serve(req, res, r, domain);
    };
    const cached = resolver.domains.peek(host);
    if (cached !== undefined) {
      onDomain(cached);
      return;
    }
    resolver.domains
      .resolve(host, gateOf(req))
      .then(onDomain)
      .catch((err: unknown) => failed(res, req, err));
  }

  return function safeHandle(req: IncomingMessage, res: ServerResponse): void {
    try {
      handle(req, res);
    } catch (err) {
      failed(res, req, err);
    }
  };
}
