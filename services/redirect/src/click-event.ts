import type { IncomingMessage } from "node:http";
import { CLICK_FIELD_MAX, type ClickEvent, type Destination, type RedirectRecord } from "@kurz/contracts";
import { clickId } from "./click-id.ts";
import { addressFrom } from "./client-ip.ts";
import { edgeClick } from "./edge-click.ts";
import { type ClickHeaders, clickHeaders } from "./raw-headers.ts";

const field = (s: string | undefined, max: number): string | null => {
  if (s === undefined || s === "") return null;
  return s.length > max ? s.slice(0, max) : s;
};

// Clicks arrive many per millisecond under load: format each millisecond's timestamp once.
let isoMs = 0;
let iso = "";
const timestamp = (now: number): string => {
  if (now !== isoMs) {
    isoMs = now;
    iso = new Date(now).toISOString();
  }
  return iso;
};

/**
 * The event for one counted click; header values are capped to the contract's field sizes. Behind a
 * trusted edge the id and time come from the edge's request header, so that a retry of the request on
 * another instance counts the same click (edge-click.ts); otherwise they are this process's own.
 * A smart link's click names the part of the link that sent it (`destination`, left out for the
 * link's own URL) and passes the headers and client address its visit has already read.
 */
export function clickEvent(
  req: IncomingMessage,
  record: RedirectRecord,
  shortCode: string,
  trustedHops: number,
  destination?: Destination,
  headers: ClickHeaders = clickHeaders(req.rawHeaders),
  ip: string | null = addressFrom(req.socket.remoteAddress, headers.forwardedFor, trustedHops),
): ClickEvent {
  const now = Date.now();
  const edge = trustedHops > 0 ? edgeClick(headers.edgeRequest, now) : null;
  const event: ClickEvent = {
    v: 1,
    click_id: edge === null ? clickId(now) : edge.clickId,
    link_id: record.id,
    account_id: record.account_id,
    short_code: shortCode,
    ts: timestamp(edge === null ? now : edge.ms),
    ip: ip !== null && ip.length <= 64 ? ip : null,
    user_agent: field(headers.userAgent, CLICK_FIELD_MAX.user_agent),
    referrer: field(headers.referer, CLICK_FIELD_MAX.referrer),
    host: field(headers.host, CLICK_FIELD_MAX.host),
  };
  if (destination !== undefined && destination !== "default") event.destination = destination;
  return event;
}
