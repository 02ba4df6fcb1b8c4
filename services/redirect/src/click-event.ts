import type { IncomingMessage } from "node:http";
import { CLICK_FIELD_MAX, type ClickEvent, type RedirectRecord } from "@kurz/contracts";
import { v7 as uuidv7 } from "uuid";
import { clientIp } from "./client-ip.ts";

const field = (v: string | string[] | undefined, max: number): string | null => {
  const s = Array.isArray(v) ? v[0] : v;
  if (s === undefined || s === "") return null;
  return s.length > max ? s.slice(0, max) : s;
};

/** The event for one counted click; header values are capped to the contract's field sizes. */
export function clickEvent(
  req: IncomingMessage,
  record: RedirectRecord,
  shortCode: string,
  trustedHops: number,
): ClickEvent {
  const ip = clientIp(req, trustedHops);
  return {
    v: 1,
    click_id: uuidv7(),
    link_id: record.id,
    account_id: record.account_id,
    short_code: shortCode,
    ts: new Date().toISOString(),
    ip: ip !== null && ip.length <= 64 ? ip : null,
    user_agent: field(req.headers["user-agent"], CLICK_FIELD_MAX.user_agent),
    referrer: field(req.headers.referer, CLICK_FIELD_MAX.referrer),
    host: field(req.headers.host, CLICK_FIELD_MAX.host),
  };
}
