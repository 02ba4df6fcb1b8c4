// A password link's form POST: the password checked within the per-link and per-client attempt limit,
// then the link followed with a 303.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RedirectRecord } from "@kurz/contracts";
import { verify } from "@node-rs/argon2";
import { clickEvent } from "./click-event.ts";
import { clientIp } from "./client-ip.ts";
import { formRefused } from "./fallbacks.ts";
import { redirect } from "./follow.ts";
import { PAGES, sendPage } from "./pages.ts";
import { MAX_FORM_BYTES, readForm } from "./read-form.ts";
import type { RedirectContext } from "./redirect-context.ts";
import { followSmart } from "./smart-visit.ts";

export async function unlock(
  ctx: RedirectContext,
  req: IncomingMessage,
  res: ServerResponse,
  code: string,
  record: RedirectRecord,
  hash: string,
): Promise<void> {
  const form = await readForm(req, MAX_FORM_BYTES);
  if (!form.ok) return formRefused(req, res, form.reason);
  const password = form.fields.get("password") ?? "";
  if (password === "") {
    sendPage(req, res, PAGES.passwordRequired);
    return;
  }
  const ip = clientIp(req, ctx.trustProxy);
  const attempt = await ctx.limiter.attempt(code, ip);
  if (!attempt.allowed) {
    sendPage(req, res, PAGES.tooManyAttempts, { "retry-after": String(attempt.retryAfter) });
    return;
  }
  if (!(await verify(hash, password))) {
    sendPage(req, res, PAGES.wrongPassword);
    return;
  }
  await ctx.limiter.succeeded(code, ip);
  // 303: the browser follows with a GET, so the password is never re-posted to the destination
  // (a 307/308 REDIRECT_STATUS would do exactly that).
  if (record.s !== undefined) {
    followSmart(ctx, req, res, record, code, record.s, 303);
    return;
  }
  ctx.publisher.push(clickEvent(req, record, code, ctx.trustProxy));
  redirect(ctx, res, record.url, 303);
}
