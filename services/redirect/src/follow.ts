// Sending a redirect, and following a link: its click published, then its redirect queued.
import type { IncomingMessage, ServerResponse } from "node:http";
import { type RedirectRecord, toLocation } from "@kurz/contracts";
import { clickEvent } from "./click-event.ts";
import type { RedirectContext } from "./redirect-context.ts";
import { followSmart } from "./smart-visit.ts";

// A character no URI holds. Records reach the cache already in their Location form (resolver.ts), so
// this one scan per redirect only guards: whatever slips past goes out percent-encoded, never raw.
const NOT_URI_CHAR = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/?#%[\]]/;

/** Queues a redirect to `location` for the end of this turn (turn-writes.ts), never with a raw non-URI character. */
export function redirect(
  ctx: RedirectContext,
  res: ServerResponse,
  location: string,
  status = ctx.redirectStatus,
): void {
  const value = NOT_URI_CHAR.test(location) ? toLocation(location) : location;
  ctx.writes.send(res, status, value);
}

/**
 * As redirect, for a `location` joined from the flat strings `chosen` and `query` with `?` and `&`
 * only (a smart link forwarding the visit's query, Decision in @kurz/link-rules). V8 runs a regular
 * expression on a joined string only after flattening it in its runtime, which costs several times
 * the test itself, so the two parts are tested instead: `location` holds a non-URI character only if
 * one of them does, and then it takes redirect's way.
 */
export function redirectJoined(
  ctx: RedirectContext,
  res: ServerResponse,
  location: string,
  chosen: string,
  query: string,
  status = ctx.redirectStatus,
): void {
  if (location !== chosen && !NOT_URI_CHAR.test(chosen) && !NOT_URI_CHAR.test(query))
    ctx.writes.send(res, status, location);
  else redirect(ctx, res, location, status);
}

/**
 * A broken link's visit (docs/health.md: `b` is its broken_url, present only while it is broken): a
 * temporary redirect there whatever the configured status, since the link recovers on its own, and a
 * GET's click tagged `broken`. Password, overlay, smart rules and click limit are not consulted: none of
 * them leads anywhere while the destination is down.
 */
export function followBroken(
  ctx: RedirectContext,
  req: IncomingMessage,
  res: ServerResponse,
  record: RedirectRecord,
  code: string,
  to: string,
): void {
  if (req.method === "GET") ctx.publisher.push(clickEvent(req, record, code, ctx.trustProxy, "broken"));
  redirect(ctx, res, to, 302);
}

/**
 * A GET counts one click; a HEAD only answers. The click is pushed before its answer is queued: a full
 * queue writes at once (turn-writes.ts), and the journal must hold the click by then. A smart link
 * (`s`) decides its destination first (smart-visit.ts); a plain one pays this one read of `s`.
 */
export function follow(
  ctx: RedirectContext,
  req: IncomingMessage,
  res: ServerResponse,
  record: RedirectRecord,
  code: string,
): void {
  const s = record.s;
  if (s !== undefined) {
    followSmart(ctx, req, res, record, code, s);
    return;
  }
  if (req.method === "GET") ctx.publisher.push(clickEvent(req, record, code, ctx.trustProxy));
  redirect(ctx, res, record.url);
}
