// A click event as stored: enriched with location, agent and visitor hash. The address itself goes
// no further than this function.
import type { ClickEvent } from "@kurz/contracts";
import type { GeoIp } from "../enrich/geoip.ts";
import { parseAgent } from "../enrich/user-agent.ts";
import type { VisitorHasher } from "../enrich/visitor-hash.ts";

export interface ClickRow {
  click_id: string;
  link_id: string;
  account_id: string;
  short_code: string;
  ts: string;
  referrer: string | null;
  country: string;
  city: string;
  device_type: string;
  browser: string;
  os: string;
  is_bot: number;
  visitor_hash: string;
  host: string;
  /** Which rule, split arm or fallback sent the click (contracts Destination); `default` when unsaid. */
  destination: string;
}

/** The columns of `clicks` a ClickRow fills, in the order inserts and rebuilds list them. */
export const CLICK_COLUMNS = [
  "click_id",
  "link_id",
  "account_id",
  "short_code",
  "ts",
  "referrer",
  "country",
  "city",
  "device_type",
  "browser",
  "os",
  "is_bot",
  "visitor_hash",
  "host",
  "destination",
] as const satisfies readonly (keyof ClickRow)[];

export interface Enrichers {
  geo: GeoIp;
  visitors: VisitorHasher;
}

/** An ISO time in ClickHouse's DateTime64 text form: ISO 'Z' strings parse too, but this is unambiguous everywhere. */
export const chTime = (iso: string) => iso.replace("T", " ").replace("Z", "");

export function toClickRow(e: ClickEvent, enrich: Enrichers): ClickRow {
  const agent = parseAgent(e.user_agent);
  const location = enrich.geo.lookup(e.ip);
  return {
    click_id: e.click_id,
    link_id: e.link_id,
    account_id: e.account_id,
    short_code: e.short_code,
    ts: chTime(e.ts),
    // An empty Referer is direct traffic too; the rollups rely on '' never being a real referrer.
    referrer: e.referrer === "" ? null : e.referrer,
    country: location.country,
    city: location.city,
    device_type: agent.device_type,
    browser: agent.browser,
    os: agent.os,
    is_bot: agent.is_bot,
    visitor_hash: enrich.visitors.hash(e.ts.slice(0, 10), e.ip, e.user_agent),
    host: e.host ?? "",
    destination: e.destination ?? "default",
  };
}
