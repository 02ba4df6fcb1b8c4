// The public redirect path. Plain node:http: Express's own per-request work costs ~7x a whole bare
// redirect. A cached code on the public host is answered without awaiting anything and
// without logging. Operational endpoints are not served here (ops.ts).
//
// Tenancy: on the public host every link and rotator resolves; on a branded domain only its owner's,
// and anything else is that domain's "not found"; on any other host nothing (request-host.ts). The
// parts, each a function of one RedirectContext built per listener: the host classified here, the path
// checked and served (serve-route.ts), a link answered (answer-link.ts: expired, password in unlock.ts,
// overlay in serve-overlay.ts), a campaign rotated (rotate.ts), and a link followed (follow.ts: its
// click published, then its redirect written).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { DomainRecord } from "@kurz/contracts";
import { isCampaignPagePath } from "@kurz/service-kit";
import { isApiPath, isWebAppPath } from "./api-forwarder.ts";
import { failed, notFound } from "./fallbacks.ts";
import { PAGES, sendPage } from "./pages.ts";
import { rawHost } from "./raw-headers.ts";
import { createRedirectContext, type RedirectContext, type RedirectHandlerDeps } from "./redirect-context.ts";
import { PUBLIC_HOST } from "./request-host.ts";
import { gateOf, type Route, route, serve } from "./serve-route.ts";

export type { RedirectHandlerDeps } from "./redirect-context.ts";

export function createRedirectHandler(deps: RedirectHandlerDeps) {
  const ctx = createRedirectContext(deps);
  return function safeHandle(req: IncomingMessage, res: ServerResponse): void {
    try {
      handle(ctx, req, res);
    } catch (err) {
      failed(ctx, res, req, err);
    }
  };
}

function handle(ctx: RedirectContext, req: IncomingMessage, res: ServerResponse): void {
  const host = ctx.hosts.classify(rawHost(req.rawHeaders));
  // The API, the docs page and the dashboard live on the origin's own hosts only; on a branded
  // domain (or a host that is none) their paths are the domain's, here. Campaign pages go to the
  // gateway on any named host: management serves one on a branded domain only to the domain's owner.
  const url = req.url ?? "/";
  const forwardApi = ctx.forwardApi;
  if (forwardApi && host !== null && (host === PUBLIC_HOST ? isApiPath(url) : isCampaignPagePath(url))) {
    forwardApi(req, res);
    return;
  }
  const method = req.method;
  if (method !== "GET" && method !== "HEAD" && method !== "POST") {
    req.resume();
    sendPage(req, res, PAGES.methodNotAllowed, { allow: "GET, HEAD, POST" });
    return;
  }
  if (host === PUBLIC_HOST && forwardApi && isWebAppPath(url)) {
    forwardApi(req, res);
    return;
  }
  const r = route(url);
  if (host === null || (host === PUBLIC_HOST && r === null)) {
    req.resume();
    sendPage(req, res, PAGES.notFound);
    return;
  }
  if (host === PUBLIC_HOST) {
    serve(ctx, req, res, r!, null);
    return;
  }
  onBrandedDomain(ctx, req, res, host, r);
}

/**
 * A branded domain: only its owner's links, and any path that names none goes to its redirect_404
 * (the domain's "where unknown paths are sent"). A host that is not a verified domain serves nothing.
 */
function onBrandedDomain(
  ctx: RedirectContext,
  req: IncomingMessage,
  res: ServerResponse,
  host: string,
  r: Route | null,
): void {
  const onDomain = (domain: DomainRecord | null) => {
    if (domain === null || r === null) {
      req.resume();
      notFound(ctx, req, res, domain);
    } else serve(ctx, req, res, r, domain);
  };
  const cached = ctx.resolver.domains.peek(host);
  if (cached !== undefined) {
    onDomain(cached);
    return;
  }
  ctx.resolver.domains
    .resolve(host, gateOf(ctx, req))
    .then(onDomain)
    .catch((err: unknown) => failed(ctx, res, req, err));
}
