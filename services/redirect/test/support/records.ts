import type { ClickEvent, RedirectRecord } from "@kurz/contracts";

/** A plain active link record as management writes it to Redis; `extra` overrides members. */
export const redirectRecord = (url: string, extra: Partial<RedirectRecord> = {}): RedirectRecord => ({
  id: "0190a1b2-0000-7000-8000-000000000001",
  account_id: "0190a1b2-0000-7000-8000-0000000000aa",
  url,
  active: true,
  expires_at: null,
  password_hash: null,
  ...extra,
});

/** The record of link number `n`, each with its own id. */
export const numberedRecord = (n: number, url: string): RedirectRecord =>
  redirectRecord(url, { id: numberedId(n) });

/** Click number `n` on link 1 at the epoch, with no request details; `extra` overrides members. */
export const numberedClick = (n: number, extra: Partial<ClickEvent> = {}): ClickEvent => ({
  v: 1,
  click_id: numberedId(n),
  link_id: numberedId(1),
  account_id: "0190a1b2-0000-7000-8000-0000000000aa",
  short_code: "abc",
  ts: new Date(0).toISOString(),
  ip: null,
  user_agent: null,
  referrer: null,
  host: null,
  ...extra,
});

/** A UUID ending in `n`: ids whose order is their number's. */
const numberedId = (n: number) => `0190a1b2-0000-7000-8000-${String(n).padStart(12, "0")}`;
