// A campaign's rotator, `/r/<slug>`: its next link in turn that can be followed (active, not expired,
// no password, the campaign owner's), else the host's "not found".
import type { IncomingMessage, ServerResponse } from "node:http";
import type { DomainRecord, RotatorRecord } from "@kurz/contracts";
import { servedOn } from "./answer-link.ts";
import { notFound } from "./fallbacks.ts";
import { follow, followBroken } from "./follow.ts";
import type { RedirectContext } from "./redirect-context.ts";

export async function rotate(
  ctx: RedirectContext,
  req: IncomingMessage,
  res: ServerResponse,
  rotator: RotatorRecord | null,
  domain: DomainRecord | null,
): Promise<void> {
  if (!rotator || rotator.links.length === 0 || !servedOn(domain, rotator.account_id)) {
    notFound(ctx, req, res, domain);
    return;
  }
  const n = rotator.links.length;
  const start = ctx.turns.next(rotator.campaign_id, rotator.links);
  const now = ctx.now();
  for (let i = 0; i < n; i++) {
    const { short_code } = rotator.links[(start + i) % n]!;
    const record = ctx.resolver.links.peek(short_code) ?? (await ctx.resolver.links.resolve(short_code));
    if (
      record?.active &&
      record.account_id === rotator.account_id &&
      record.password_hash === null &&
      (record.expires_at === null || record.expires_at > now)
    ) {
      if (record.b !== undefined) followBroken(ctx, req, res, record, short_code, record.b);
      else follow(ctx, req, res, record, short_code);
      return;
    }
  }
  notFound(ctx, req, res, domain);
}
