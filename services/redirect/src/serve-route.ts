// The path checked against the code grammar (code-grammar.ts) before any lookup, then served: the
// host's root, a rotator, or a link, from the in-process cache when it holds the record. A cached
// link is answered without awaiting anything.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { DomainRecord } from "@kurz/contracts";
import { answer } from "./answer-link.ts";
import { clientIp } from "./client-ip.ts";
import { isCodeShaped, isSlugShaped } from "./code-grammar.ts";
import { failed, postNotAllowed } from "./fallbacks.ts";
import { redirect } from "./follow.ts";
import { PAGES, sendPage } from "./pages.ts";
import type { RedirectContext } from "./redirect-context.ts";
import type { ManagementGate } from "./resolver.ts";
import { rotate } from "./rotate.ts";

export type Route = { kind: "code"; id: string } | { kind: "rotator"; id: string } | { kind: "root" };
const ROOT: Route = { kind: "root" };

/** `/<code>`, `/r/<slug>` or `/`; null for any path that cannot name one (a 404 without lookup). */
export function route(url: string): Route | null {
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

/** Lookups that would reach management count against the client's miss budget. */
export const gateOf = (ctx: RedirectContext, req: IncomingMessage): ManagementGate =>
  ctx.missBudget.gate(clientIp(req, ctx.trustProxy));

/** Serves a route on a host: `domain` is the branded domain, null on the public host. */
export function serve(
  ctx: RedirectContext,
  req: IncomingMessage,
  res: ServerResponse,
  r: Route,
  domain: DomainRecord | null,
): void {
  if (r.kind === "root") {
    if (domain?.redirect_root) redirect(ctx, res, domain.redirect_root);
    else sendPage(req, res, PAGES.notFound);
    return;
  }
  if (r.kind === "rotator") {
    if (req.method === "POST") {
      postNotAllowed(req, res);
      return;
    }
    const rotators = ctx.resolver.rotators;
    const cached = rotators.peek(r.id);
    const p =
      cached !== undefined
        ? rotate(ctx, req, res, cached, domain)
        : rotators.resolve(r.id, gateOf(ctx, req)).then((rot) => rotate(ctx, req, res, rot, domain));
    p.catch((err: unknown) => failed(ctx, res, req, err));
    return;
  }
  const cached = ctx.resolver.links.peek(r.id);
  if (cached !== undefined) {
    answer(ctx, req, res, r.id, cached, domain);
    return;
  }
  ctx.resolver.links
    .resolve(r.id, gateOf(ctx, req))
    .then((record) => answer(ctx, req, res, r.id, record, domain))
    .catch((err: unknown) => failed(ctx, res, req, err));
}
