// What a request gets when no link answers it: the host's "not found", the 405 for a method a path
// does not take, a form that cannot be read, or the failure page when a lookup fails. None of them
// counts a click.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { DomainRecord } from "@kurz/contracts";
import { redirect } from "./follow.ts";
import { PAGES, sendPage } from "./pages.ts";
import type { FormResult } from "./read-form.ts";
import type { RedirectContext } from "./redirect-context.ts";
import { LookupRefusedError } from "./resolver.ts";

/** "Not found" as the host says: a branded domain's redirect_404 when set, else the 404 page. */
export function notFound(
  ctx: RedirectContext,
  req: IncomingMessage,
  res: ServerResponse,
  domain: DomainRecord | null,
): void {
  if (domain?.redirect_404) redirect(ctx, res, domain.redirect_404);
  else sendPage(req, res, PAGES.notFound);
}

/** A POST where only a GET or HEAD is served; its body is drained unread. */
export function postNotAllowed(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  sendPage(req, res, PAGES.methodNotAllowed, { allow: "GET, HEAD" });
}

/** A form that could not be read: the client gone, too large a body, or not a urlencoded form. */
export function formRefused(
  req: IncomingMessage,
  res: ServerResponse,
  reason: Extract<FormResult, { ok: false }>["reason"],
): void {
  if (reason === "aborted") return void res.destroy();
  const page = reason === "too_large" ? PAGES.payloadTooLarge : PAGES.unsupportedMediaType;
  sendPage(req, res, page, { connection: "close" });
}

/**
 * A lookup refused by the miss budget is a 429 with its wait; any other failure is logged and a 503.
 * Once the answer's headers are out, the connection is cut instead.
 */
export function failed(ctx: RedirectContext, res: ServerResponse, req: IncomingMessage, err: unknown): void {
  if (err instanceof LookupRefusedError) {
    if (res.headersSent) res.destroy();
    else sendPage(req, res, PAGES.tooManyLookups, { "retry-after": String(err.retryAfter) });
    return;
  }
  ctx.logger.error({ err: err instanceof Error ? err.message : String(err) }, "redirect failed");
  if (res.headersSent) res.destroy();
  else sendPage(req, res, PAGES.unavailable, { "retry-after": "1" });
}
