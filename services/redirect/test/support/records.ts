import type { RedirectRecord } from "@kurz/contracts";

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
  redirectRecord(url, { id: `0190a1b2-0000-7000-8000-${String(n).padStart(12, "0")}` });
