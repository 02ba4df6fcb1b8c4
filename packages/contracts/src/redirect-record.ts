import * as z from "zod";
import { SmartRecord } from "./smart-link.ts";

/**
 * A redirect record's version (decision 0052): a link's from its row, a domain's, rotator's or
 * overlay's from one Postgres sequence; Redis keeps the highest written. Absent in records written
 * before versions: read as 0, so any versioned write wins.
 */
export const RecordVersion = z.int().nonnegative().optional();

/**
 * What management writes to Redis for the redirect (write-through; Redis is a cache, never the only copy).
 * Read on every cache miss of the redirect hot path, so it is flat JSON with short members.
 */
export const RedirectRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  url: z.string(),
  active: z.boolean(),
  expires_at: z.int().nullable().meta({ description: "Epoch milliseconds; null means no expiry" }),
  password_hash: z
    .string()
    .nullable()
    .meta({ description: "argon2id encoded hash; null without a password" }),
  // Optional members: records written before them still parse, and a link without them is
  // the plain redirect, so the hot path pays one property read.
  overlay_id: z
    .int()
    .nullable()
    .optional()
    .meta({ description: "CTA overlay shown first; null/absent: none" }),
  frameable: z
    .boolean()
    .nullable()
    .optional()
    .meta({ description: "The destination allows framing (overlay over the page); else an interstitial" }),
  domain_id: z.int().nullable().optional().meta({
    description: "Branded domain the link lives on (served only there); null/absent: the public host",
  }),
  s: SmartRecord.optional().meta({
    description:
      "Rules, split, forwarding, click limit, previews (docs/smart-links.md); absent: a plain link",
  }),
  b: z.string().optional().meta({
    description:
      "broken_url in Location form, present only while the link is broken and has one: every visit goes there (docs/health.md)",
  }),
  v: RecordVersion.meta({
    description: "The link row's version; Redis keeps the highest written (decision 0052)",
  }),
  c: z.int().nonnegative().optional().meta({
    description:
      "When the link was created (epoch ms): of two links that held the code, the later one's writes win (decision 0052)",
  }),
});
export type RedirectRecord = z.infer<typeof RedirectRecord>;

/**
 * What a removed record's key holds for a while instead of it (decision 0052), written by management
 * and read by the redirect as "no such record", without asking management. A deleted link's names it
 * (`id`, and its creation as `c`) and refuses every later write of that link; a branded domain's,
 * rotator's or overlay's names the row (`id`) only when the row was deleted for good, and carries the
 * version (`v`) of the removal when the row may come back (decision 0052).
 */
export interface RecordTombstone {
  deleted: true;
  id?: string | number;
  c?: number;
  v?: number;
}

/** Whether a value read from any key the redirect reads is a tombstone. */
export function isRecordTombstone(value: unknown): boolean {
  return (value as Partial<RecordTombstone> | null)?.deleted === true;
}

export const REDIRECT_KEY_PREFIX = "link:";

export function redirectKey(code: string): string {
  return REDIRECT_KEY_PREFIX + code;
}

/**
 * "No link has this code", shared by every redirect instance: the redirect sets it with a
 * short TTL when management answers 404, and management deletes it in the same transaction as every
 * write of the code's record, so a code created after a miss redirects at once. A `link:` record, when
 * present, always wins over it.
 */
export function redirectMissKey(code: string): string {
  return `miss:${code}`;
}

/**
 * Redis pub/sub channel on which management announces a changed or deleted short code (the message is
 * the code), so every redirect instance drops it from its in-process cache. Channels are not covered by
 * ioredis' keyPrefix: tests sharing a Redis see each other's messages (harmless: only cache drops).
 */
export const INVALIDATION_CHANNEL = "kurz:link-invalidated";

export function encodeRedirectRecord(record: RedirectRecord): string {
  return JSON.stringify(record);
}

/** Throws on malformed JSON or a record of another shape (a stale writer): callers treat it as a miss. */
export function decodeRedirectRecord(json: string): RedirectRecord {
  return RedirectRecord.parse(JSON.parse(json));
}

/**
 * A branded domain (legacy API §2.8) as the redirect service reads it, keyed by the lower-case host
 * (with port when not default). `/` on that host goes to redirect_root and an unknown code to
 * redirect_404, when set. Written by management on add/update/delete; a miss asks management's
 * internal `GET /internal/domains/resolve/:host` (404 = not a branded domain).
 */
export const DomainRecord = z.object({
  id: z.int(),
  account_id: z.string(),
  redirect_root: z.string().nullable(),
  redirect_404: z.string().nullable(),
  /**
   * The domain's scheme (`https://` in its origin), for the short URLs the redirect writes into pages
   * on this host (a preview page's og:url); absent: PUBLIC_BASE_URL's scheme.
   */
  https: z.boolean().optional(),
  v: RecordVersion,
});
export type DomainRecord = z.infer<typeof DomainRecord>;

export function domainKey(host: string): string {
  return `domain:${host.toLowerCase()}`;
}

/**
 * A campaign rotator (`{base_url}/r/<slug>`): the campaign's links in assignment order. The redirect
 * service resolves each through the ordinary link record (so inactive, expired and password links
 * are skipped) and sends each visitor to the next one in turn, counting the click on that link.
 * Written by management whenever the campaign or its links change; a miss asks management's internal
 * `GET /internal/rotators/resolve/:slug` (404 = no such rotator).
 */
export const RotatorRecord = z.object({
  campaign_id: z.int(),
  account_id: z.string(),
  links: z.array(
    z.object({
      id: z.string(),
      short_code: z.string(),
      // Absent in records written before weights (decision 0024): every link then weighs 1.
      weight: z.int().positive().optional(),
    }),
  ),
  v: RecordVersion,
});
export type RotatorRecord = z.infer<typeof RotatorRecord>;

export function rotatorKey(slug: string): string {
  return `rotator:${slug}`;
}

/**
 * Messages on INVALIDATION_CHANNEL: a bare short code (codes never contain ':'), or `domain:<host>`,
 * or `rotator:<slug>` — the same strings as the Redis keys without the `link:` prefix for codes.
 */
export function invalidationMessage(kind: "link" | "domain" | "rotator" | "overlay", id: string): string {
  if (kind === "overlay") return `overlay:${id}`;
  return kind === "link" ? id : kind === "domain" ? domainKey(id) : rotatorKey(id);
}

/**
 * Several invalidations in one message, separated by spaces (no short code, host, slug or id holds
 * one): management announces the creates that finish together once (decision 0052). A message of
 * one entry is the message alone, as before.
 */
export function invalidationMessages(entries: readonly string[]): string {
  return entries.join(" ");
}

/** The entries of a message on INVALIDATION_CHANNEL (invalidationMessages), in order. */
export function invalidationEntries(message: string): string[] {
  return message.split(" ");
}
