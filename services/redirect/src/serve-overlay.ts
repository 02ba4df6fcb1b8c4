// A link with a call-to-action overlay (decision 0026): the overlay page for browsers (its GET counts
// the click, once: "Continue" and the frame go straight to the destination), the plain redirect for
// bots and link-preview fetchers, and the contact form's POST. An overlay that is gone or another
// account's is no overlay.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { OverlayRecord, RedirectRecord, SmartRecord } from "@kurz/contracts";
import { type Decision, decide } from "@kurz/link-rules";
import { isbot } from "isbot";
import { clickEvent } from "./click-event.ts";
import { clientIp } from "./client-ip.ts";
import { failed, formRefused, postNotAllowed } from "./fallbacks.ts";
import { follow } from "./follow.ts";
import { type OverlayState, renderOverlayPage } from "./overlay-page.ts";
import { PAGES, sendPage } from "./pages.ts";
import { clickHeaders } from "./raw-headers.ts";
import { MAX_FORM_BYTES, readForm } from "./read-form.ts";
import type { RedirectContext } from "./redirect-context.ts";
import { RequestVisitor, withinClickLimit } from "./smart-visit.ts";

export function serveOverlay(
  ctx: RedirectContext,
  req: IncomingMessage,
  res: ServerResponse,
  record: RedirectRecord,
  code: string,
  overlayId: number,
): void {
  if (req.method !== "POST" && isbot(clickHeaders(req.rawHeaders).userAgent ?? "")) {
    follow(ctx, req, res, record, code);
    return;
  }
  const id = String(overlayId);
  const show = (overlay: OverlayRecord | null) => {
    const own = overlay !== null && overlay.account_id === record.account_id ? overlay : null;
    if (req.method === "POST") return void submit(ctx, req, res, record, code, own);
    if (own === null) return follow(ctx, req, res, record, code);
    const s = record.s;
    if (s !== undefined) return showSmart(ctx, req, res, record, code, s, own);
    if (req.method === "GET") {
      ctx.publisher.push(clickEvent(req, record, code, ctx.trustProxy));
      ctx.journal?.writeTurn(); // the click is durable before its answer, as for a redirect
    }
    sendOverlay(req, res, own, target(record), { kind: "show" });
  };
  const cached = ctx.resolver.overlays.peek(id);
  if (cached !== undefined) show(cached);
  else
    ctx.resolver.overlays
      .resolve(id)
      .then(show)
      .catch((err: unknown) => failed(ctx, res, req, err));
}

/** Where the overlay sends its visitor; `frameable` was checked for the link's own URL only. */
interface Target {
  url: string;
  frameable: boolean;
}
const target = (record: RedirectRecord): Target => ({
  url: record.url,
  frameable: record.frameable === true,
});

/** A smart link's overlay: within its click limit, over the destination its visitor gets. */
function showSmart(
  ctx: RedirectContext,
  req: IncomingMessage,
  res: ServerResponse,
  record: RedirectRecord,
  code: string,
  s: SmartRecord,
  overlay: OverlayRecord,
): void {
  const v = new RequestVisitor(ctx, req, record.id);
  withinClickLimit(ctx, req, res, record, code, s, v, () => {
    const d = decide(record.url, s, v);
    if (req.method === "GET") {
      ctx.publisher.push(clickEvent(req, record, code, ctx.trustProxy, d.destination, v.headers));
      ctx.journal?.writeTurn();
    }
    sendOverlay(req, res, overlay, smartTarget(record, d), { kind: "show" });
  });
}

const smartTarget = (record: RedirectRecord, d: Decision): Target => ({
  url: d.url,
  frameable: record.frameable === true && d.destination === "default",
});

function sendOverlay(
  req: IncomingMessage,
  res: ServerResponse,
  overlay: OverlayRecord,
  to: Target,
  state: OverlayState,
): void {
  const page = renderOverlayPage(overlay, to.url, to.frameable, state);
  const body = Buffer.from(page.html);
  res.writeHead(page.status, { ...page.headers, "content-length": body.length });
  res.end(req.method === "HEAD" ? undefined : body);
}

/** The contact form's POST; any other overlay (or none) takes no POST. */
function submit(
  ctx: RedirectContext,
  req: IncomingMessage,
  res: ServerResponse,
  record: RedirectRecord,
  code: string,
  overlay: OverlayRecord | null,
): void {
  const submissions = ctx.submissions;
  if (overlay?.type !== "contact" || !submissions) {
    postNotAllowed(req, res);
    return;
  }
  void (async () => {
    const form = await readForm(req, MAX_FORM_BYTES);
    if (!form.ok) return formRefused(req, res, form.reason);
    const outcome = await submissions.submit(code, clientIp(req, ctx.trustProxy), form.fields);
    if (outcome.kind === "gone") sendPage(req, res, PAGES.notFound);
    else if (outcome.kind === "unavailable") sendPage(req, res, PAGES.unavailable, { "retry-after": "1" });
    else {
      const s = record.s;
      const to =
        s === undefined
          ? target(record)
          : smartTarget(record, decide(record.url, s, new RequestVisitor(ctx, req, record.id)));
      sendOverlay(req, res, overlay, to, outcome);
    }
  })().catch((err: unknown) => failed(ctx, res, req, err));
}
