// The public redirect path. Plain node:http: ENVIRONMENT.md measured Express at ~7x the cost of a
// whole bare redirect. A cached code is answered without awaiting anything and without logging.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { DomainRecord, RedirectRecord, RotatorRecord } from "@kurz/contracts";
import { verify } from "@node-rs/argon2";
import { isApiPath } from "./api-forwarder.ts";
import { clickEvent } from "./click-event.ts";
import type { ClickPublisher } from "./click-publisher.ts";
import { clientIp } from "./client-ip.ts";
import { sendMetrics } from "./metrics.ts";
import { PAGES, sendPage, wantsJson } from "./pages.ts";
import type { PasswordLimiter } from "./password-limiter.ts";
import { readForm } from "./read-form.ts";
import type { Resolver } from "./resolver.ts";
import { RotatorTurns } from "./rotator-turns.ts";
import { RedirectWrites } from "./turn-writes.ts";

export interface RedirectHandlerDeps {
  resolver: Resolver;
  publisher: ClickPublisher;
  limiter: PasswordLimiter;
  redirectStatus: number;
  /** Number of trusted proxies in front (0 = use the socket address). */
  trustProxy: number;
  /** The host of PUBLIC_BASE_URL: never a branded domain, so never looked up as one. */
  publicHost: string;
  health: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** Single-machine mode: pipes API paths to the gateway (see api-forwarder.ts). */
  forwardApi?: (req: IncomingMessage, res: ServerResponse) => void;
  logger: { error(o: object, m?: string): void };
}

const MAX_CODE_LENGTH = 64;
const MAX_FORM_BYTES = 4096;
const NOT_PLAIN_ASCII = /[^\x21-\x7e]/;

type Route = { kind: "code"; id: string } | { kind: "rotator"; id: string } | { kind: "root" } | null;

/** `/<code>`, `/r/<slug>` or `/`; null for anything else (a 404). */
function route(url: string): Route {
  const q = url.indexOf("?");
  let path = q === -1 ? url : url.slice(0, q);
  if (path === "/") return { kind: "root" };
  let kind: "code" | "rotator" = "code";
  if (path.startsWith("/r/")) {
    kind = "rotator";
    path = path.slice(2);
  }
  let id = path.slice(1);
  if (id.includes("%")) {
    try {
      id = decodeURIComponent(id);
    } catch {
      return null;
    }
  }
  if (id.length === 0 || id.length > MAX_CODE_LENGTH || id.includes("/")) return null;
  return { kind, id };
}

export function createRedirectHandler(deps: RedirectHandlerDeps) {
  const { resolver, publisher, limiter, redirectStatus, trustProxy, publicHost } = deps;
  const turns = new RotatorTurns();

  const writes = new RedirectWrites((err, res) => {
    deps.logger.error({ err: err instanceof Error ? err.message : String(err) }, "redirect write failed");
    res.destroy();
  });

  function redirect(res: ServerResponse, location: string, status = redirectStatus): void {
    // Node would send non-ASCII as Latin-1 bytes, which browsers misread: send the percent-encoded form.
    const value = NOT_PLAIN_ASCII.test(location) ? new URL(location).href : location;
    writes.send(res, status, value);
  }

  function follow(req: IncomingMessage, res: ServerResponse, record: RedirectRecord, code: string) {
    redirect(res, record.url);
    if (req.method === "GET") publisher.push(clickEvent(req, record, code, trustProxy));
  }

  /** The branded domain this request came in on, if any; lookup failures count as "none". */
  function withDomain(
    req: IncomingMessage,
    res: ServerResponse,
    then: (domain: DomainRecord | null) => void,
  ): void {
    const host = req.headers.host?.toLowerCase();
    if (!host || host === publicHost || host.length > 255) {
      then(null);
      return;
    }
    const cached = resolver.domains.peek(host);
    if (cached !== undefined) {
      then(cached);
      return;
    }
    resolver.domains
      .resolve(host)
      .catch(() => null)
      .then(then)
      .catch((err: unknown) => failed(res, req, err));
  }

  function notFound(req: IncomingMessage, res: ServerResponse): void {
    withDomain(req, res, (domain) => {
      if (domain?.redirect_404) redirect(res, domain.redirect_404);
      else sendPage(req, res, PAGES.notFound);
    });
  }

  function root(req: IncomingMessage, res: ServerResponse): void {
    withDomain(req, res, (domain) => {
      if (domain?.redirect_root) redirect(res, domain.redirect_root);
      else sendPage(req, res, PAGES.notFound);
    });
  }

  function answer(
    req: IncomingMessage,
    res: ServerResponse,
    code: string,
    record: RedirectRecord | null,
  ): void {
    if (!record?.active) {
      notFound(req, res);
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
    if (req.method === "POST") {
      req.resume();
      sendPage(req, res, PAGES.methodNotAllowed, { allow: "GET, HEAD" });
      return;
    }
    follow(req, res, record, code);
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
    await limiter.reset(code, ip);
    // 303: the browser follows with a GET, so the password is never re-posted to the destination
    // (a 307/308 REDIRECT_STATUS would do exactly that).
    redirect(res, record.url, 303);
    publisher.push(clickEvent(req, record, code, trustProxy));
  }

  /** The campaign's next link in turn that can be followed (active, not expired, no password). */
  async function rotate(req: IncomingMessage, res: ServerResponse, rotator: RotatorRecord | null) {
    if (!rotator || rotator.links.length === 0) {
      sendPage(req, res, PAGES.notFound);
      return;
    }
    const n = rotator.links.length;
    const start = turns.next(rotator.campaign_id, n);
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
    sendPage(req, res, PAGES.notFound);
  }

  function failed(res: ServerResponse, req: IncomingMessage, err: unknown): void {
    deps.logger.error({ err: err instanceof Error ? err.message : String(err) }, "redirect failed");
    if (res.headersSent) res.destroy();
    else sendPage(req, res, PAGES.unavailable, { "retry-after": "1" });
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    if (deps.forwardApi && isApiPath(req.url ?? "/")) {
      deps.forwardApi(req, res);
      return;
    }
    const method = req.method;
    if (method !== "GET" && method !== "HEAD" && method !== "POST") {
      req.resume();
      sendPage(req, res, PAGES.methodNotAllowed, { allow: "GET, HEAD, POST" });
      return;
    }
    if (method !== "POST") {
      if (deps.health(req, res)) return;
      if (req.url === "/metrics") {
        sendMetrics(res, publisher.metrics, method === "HEAD");
        return;
      }
    }
    const r = route(req.url ?? "/");
    if (r === null) {
      notFound(req, res);
      return;
    }
    if (r.kind === "root") {
      root(req, res);
      return;
    }
    if (r.kind === "rotator") {
      if (method === "POST") {
        req.resume();
        sendPage(req, res, PAGES.methodNotAllowed, { allow: "GET, HEAD" });
        return;
      }
      const cached = resolver.rotators.peek(r.id);
      const p =
        cached !== undefined
          ? rotate(req, res, cached)
          : resolver.rotators.resolve(r.id).then((rot) => rotate(req, res, rot));
      p.catch((err: unknown) => failed(res, req, err));
      return;
    }
    const cached = resolver.links.peek(r.id);
    if (cached !== undefined) {
      answer(req, res, r.id, cached);
      return;
    }
    resolver.links
      .resolve(r.id)
      .then((record) => answer(req, res, r.id, record))
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
