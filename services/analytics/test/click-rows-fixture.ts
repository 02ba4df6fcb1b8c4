// Enriched click rows as the click consumer hands them to writeClicks, for the writer's tests.
import { randomUUID } from "node:crypto";
import type { ClickRow } from "../src/ingest/click-rows.ts";

// One visitor a click, so that unique visitors count clicks too.
let visitors = 1000;

/**
 * `n` human clicks of `link` from now back, a millisecond apart; every other one with a referrer, every
 * third one sent by a split arm.
 */
export function clickRows(link: string, account: string, n: number): ClickRow[] {
  return Array.from({ length: n }, (_, i) => ({
    click_id: randomUUID(),
    link_id: link,
    account_id: account,
    short_code: "writer",
    ts: new Date(Date.now() - i).toISOString().replace("T", " ").replace("Z", ""),
    referrer: i % 2 === 0 ? "https://ref.example/" : null,
    country: "DE",
    city: "",
    device_type: "desktop",
    browser: "Firefox",
    os: "Linux",
    is_bot: 0,
    visitor_hash: String(visitors++),
    host: "kurz.test",
    destination: i % 3 === 0 ? "split:2" : "default",
  }));
}
