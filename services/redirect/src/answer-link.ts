// A link's answer on a host: "not found" unless it is active and served there, then the expired page,
// a broken link's broken_url, the password form (or its POST), the overlay, or the redirect with its
// click.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { DomainRecord, RedirectRecord } from "@kurz/contracts";
import { failed, notFound, postNotAllowed } from "./fallbacks.ts";
import { follow, followBroken } from "./follow.ts";
import { PAGES, sendPage, wantsJson } from "./pages.ts";
import type { RedirectContext } from "./redirect-context.ts";
import { serveOverlay } from "./serve-overlay.ts";
import { answerExpired } from "./smart-visit.ts";
import { unlock } from "./unlock.ts";

/** Whether a record of this account may be served on this host (null = the public host). */
export const servedOn = (domain: DomainRecord | null, accountId: string) =>
  domain === null || domain.account_id === accountId;

/**
 * A link created on a branded domain is served only there. A link without one is served on the
 * public host and on its owner's verified branded domains, so branded URLs already handed out keep
 * working.
 */
const linkServedOn = (domain: DomainRecord | null, record: RedirectRecord) =>
  (record.domain_id == null || (domain !== null && record.domain_id === domain.id)) &&
  servedOn(domain, record.account_id);

export function answer(
  ctx: RedirectContext,
  req: IncomingMessage,
  res: ServerResponse,
  code: string,
  record: RedirectRecord | null,
  domain: DomainRecord | null,
): void {
  // Another tenant's link on a branded domain is that domain's "not found", never a click.
  if (!record?.active || !linkServedOn(domain, record)) {
    notFound(ctx, req, res, domain);
    return;
  }
  if (record.expires_at !== null && record.expires_at <= ctx.now()) {
    answerExpired(ctx, req, res, record, code, record.s, undefined);
    return;
  }
  if (record.b !== undefined) {
    if (req.method === "POST") postNotAllowed(req, res);
    else followBroken(ctx, req, res, record, code, record.b);
    return;
  }
  if (record.password_hash !== null) {
    if (req.method === "POST") {
      void unlock(ctx, req, res, code, record, record.password_hash).catch((err: unknown) =>
        failed(ctx, res, req, err),
      );
      return;
    }
    sendPage(req, res, wantsJson(req) ? PAGES.passwordRequired : PAGES.passwordForm);
    return;
  }
  // A link with a CTA overlay: one property read here is all a plain link pays (decision 0026).
  if (record.overlay_id != null) {
    serveOverlay(ctx, req, res, record, code, record.overlay_id);
    return;
  }
  if (req.method === "POST") {
    postNotAllowed(req, res);
    return;
  }
  follow(ctx, req, res, record, code);
}
