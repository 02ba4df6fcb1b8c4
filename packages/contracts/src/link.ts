import * as z from "zod";
import { HealthState } from "./health-state.ts";
import {
  Count,
  ExpiresAtInput,
  HttpUrl,
  queryInt,
  StoredText,
  Timestamp,
  Uuid,
  withQueryDefault,
} from "./primitives.ts";
import { isReservedAlias } from "./reserved-aliases.ts";
import { SmartLinkFields, SmartLinkInput } from "./smart-link.ts";
import { AnyUrl } from "./url.ts";

export const ALIAS_MIN_LENGTH = 3;
export const ALIAS_MAX_LENGTH = 50;
/** Letters, digits and hyphens; no leading or trailing hyphen. */
export const ALIAS_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;
export const BULK_MAX_ITEMS = 50;
export const PER_PAGE_MAX = 100;
export const PER_PAGE_DEFAULT = 20;
export const TITLE_MAX_LENGTH = 500;
/**
 * A link password is any non-empty string (the API documents only "an optional password"); its owner chooses
 * how strong it is, and the redirect's attempt budgets are what stop online guessing (docs/security.md). The
 * cap bounds what one hash or one verification costs: argon2 reads the whole password into its first block
 * hash, and the redirect verifies every allowed attempt on the public path. 128 characters hold a long
 * passphrase or a 64-hex-digit generated secret with room to spare.
 */
export const LINK_PASSWORD_MAX_LENGTH = 128;

export const AnalyticsSharedField = z.enum(["overview", "locations", "devices", "referrers", "browsers"]);
export type AnalyticsSharedField = z.infer<typeof AnalyticsSharedField>;

/**
 * The code rule of imports: the code a peer made (YOURLS' 1-character keywords, Kutt's `_` and edge
 * hyphens, aliases longer than 50) is kept as it is, so a short link already printed keeps working.
 * Letters, digits, `_` and `-`, 1 to 100 characters, at least one of them a letter or a digit (`-` or
 * `__` alone names nothing). Every API alias (CustomAlias) and every generated code follows it too, so it
 * is also the shape of every code the redirect serves. ASCII only: no letter of another script that
 * looks like a Latin one.
 */
export const CODE_MAX_LENGTH = 100;
export const CODE_PATTERN = /^[A-Za-z0-9_-]*[A-Za-z0-9][A-Za-z0-9_-]*$/;
export const CODE_RULE = `letters, digits, _ and -, 1 to ${CODE_MAX_LENGTH} characters, at least one a letter or digit`;

/** Whether `code` can name a link at all (the import rule above; case is significant). */
export function isCodeShaped(code: string): boolean {
  return code.length >= 1 && code.length <= CODE_MAX_LENGTH && CODE_PATTERN.test(code);
}

/** A code an import keeps (CODE_PATTERN); whether it collides with Kurz's own paths is isReservedAlias. */
export const ImportCode = z
  .string()
  .refine(isCodeShaped, `Only ${CODE_RULE}`)
  .meta({ pattern: CODE_PATTERN.source, minLength: 1, maxLength: CODE_MAX_LENGTH });

/** Any short code in a path (QR, public statistics): an alias, a generated code or an imported one. */
export const ShortCode = ImportCode;

export const CustomAlias = z
  .string()
  .min(ALIAS_MIN_LENGTH)
  .max(ALIAS_MAX_LENGTH)
  .regex(ALIAS_PATTERN, "Only letters, digits and hyphens, not starting or ending with a hyphen")
  .refine((alias) => !isReservedAlias(alias), "This alias is reserved");

const Title = StoredText().trim().min(1).max(TITLE_MAX_LENGTH);
/** The one rule for a link password, wherever one is accepted (create, update, bulk items, imports). */
export const LinkPassword = z
  .string()
  .min(1, "A link password must not be empty")
  .max(LINK_PASSWORD_MAX_LENGTH, `A link password has at most ${LINK_PASSWORD_MAX_LENGTH} characters`);

/** The list's health filter: a check's state, or `broken` (two failing checks in a row, not yet recovered). */
export const HealthFilter = z.enum([...HealthState.options, "broken"]);
export type HealthFilter = z.infer<typeof HealthFilter>;

// ---- responses ----

export const Link = z
  .object({
    id: Uuid,
    short_code: z.string(),
    short_url: AnyUrl(),
    original_url: AnyUrl(),
    title: z.string(),
    is_active: z.boolean(),
    has_password: z.boolean(),
    expires_at: Timestamp.nullable(),
    clicks_count: Count,
    analytics_public: z.boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
    // Beyond SnipURL's link object; Kurz always sends them, optional so that its documented samples parse.
    overlay_id: z
      .int()
      .positive()
      .nullable()
      .optional()
      .meta({ description: "CTA overlay shown before the destination" }),
    domain: z
      .string()
      .nullable()
      .optional()
      .meta({ description: "Branded domain (host) the link lives on; null for the service's own host" }),
    // Smart links (docs/smart-links.md): always sent, optional for the same reason.
    rules: SmartLinkFields.rules.optional(),
    split: SmartLinkFields.split.optional(),
    forward_query: SmartLinkFields.forward_query.optional(),
    max_clicks: SmartLinkFields.max_clicks.optional(),
    expired_url: SmartLinkFields.expired_url.optional(),
    og: SmartLinkFields.og.optional(),
    ios_url: SmartLinkFields.ios_url.optional(),
    android_url: SmartLinkFields.android_url.optional(),
    // Link health (docs/health.md): always sent, optional for the same reason.
    broken_url: z.string().nullable().optional().meta({
      description: "Where visitors go while the link is broken; null: the destination as usual",
    }),
    broken_since: Timestamp.nullable().optional().meta({
      description: "Since when the destination has failed two health checks in a row; null: not broken",
    }),
  })
  .meta({ id: "Link" });
export type Link = z.infer<typeof Link>;

export const SharedFieldsList = z
  .array(AnalyticsSharedField)
  .nullable()
  .meta({ description: "Sections shown on public analytics; null shares all" });

/** The single-link read (GET /links/:id) adds analytics_shared_fields. */
export const LinkWithSharedFields = Link.extend({ analytics_shared_fields: SharedFieldsList }).meta({
  id: "LinkWithSharedFields",
});
export type LinkWithSharedFields = z.infer<typeof LinkWithSharedFields>;

export const DeleteLinkResult = z.object({ deleted: z.literal(true) });
export type DeleteLinkResult = z.infer<typeof DeleteLinkResult>;

// ---- requests ----

/** One of the account's CTA overlays (older API `/api/overlay`). */
const OverlayId = z
  .int()
  .positive()
  .max(2_147_483_647)
  .meta({ description: "Id of one of your CTA overlays" });

/**
 * A verified branded domain of the account, as its host (`go.example.com`) or origin
 * (`https://go.example.com`); compared in canonical form.
 */
export const LinkDomain = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .meta({ description: "A verified branded domain of your account", examples: ["go.example.com"] });

export const LinkIdParams = z.object({ id: Uuid });
export type LinkIdParams = z.infer<typeof LinkIdParams>;

/**
 * Where a broken link sends its visitors (docs/health.md): an http(s) URL as original_url, never a Kurz
 * short link (management refuses one, as it does for expired_url).
 */
export const BrokenUrl = HttpUrl.meta({
  description:
    "Where visitors go while the link is broken (two failed health checks in a row); else the destination",
});

/** Unknown members are ignored (stripped) on create, as SnipURL's API documents no rule for them. */
export const CreateLinkBody = z
  .object({
    url: HttpUrl,
    custom_alias: CustomAlias.optional(),
    title: Title.optional(),
    password: LinkPassword.optional(),
    expires_at: ExpiresAtInput.optional(),
    overlay_id: OverlayId.optional(),
    domain: LinkDomain.optional(),
    ...SmartLinkInput,
    broken_url: BrokenUrl.optional(),
  })
  .meta({ id: "CreateLinkBody" });
export type CreateLinkBody = z.infer<typeof CreateLinkBody>;

/** Members whose change a PATCH must answer with 400 BAD_REQUEST rather than VALIDATION_ERROR. */
export const IMMUTABLE_LINK_FIELDS = ["original_url", "short_code"] as const;
export type ImmutableLinkField = (typeof IMMUTABLE_LINK_FIELDS)[number];

/** Which immutable members a PATCH body carries; check this before parsing UpdateLinkBody. */
export function immutableLinkFieldsIn(body: unknown): ImmutableLinkField[] {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return [];
  return IMMUTABLE_LINK_FIELDS.filter((field) => Object.hasOwn(body, field));
}

/** Strict: any member outside the PATCH table is a validation error. */
export const UpdateLinkBody = z
  .strictObject({
    title: Title.optional(),
    is_active: z.boolean().optional(),
    password: LinkPassword.nullable().optional(),
    expires_at: ExpiresAtInput.nullable().optional(),
    overlay_id: OverlayId.nullable().optional(),
    analytics_public: z.boolean().optional(),
    analytics_shared_fields: z
      .array(AnalyticsSharedField)
      .refine((fields) => new Set(fields).size === fields.length, "Entries must be unique")
      .nullable()
      .optional(),
    ...SmartLinkInput,
    broken_url: BrokenUrl.nullable().optional(),
  })
  .meta({ id: "UpdateLinkBody" });
export type UpdateLinkBody = z.infer<typeof UpdateLinkBody>;

export type UpdateLinkParseResult =
  | { ok: true; data: UpdateLinkBody }
  | { ok: false; code: "BAD_REQUEST"; fields: ImmutableLinkField[] }
  | { ok: false; code: "VALIDATION_ERROR"; error: z.ZodError };

/** PATCH body check in the order the API answers: immutable members first, then the strict schema. */
export function parseUpdateLinkBody(body: unknown): UpdateLinkParseResult {
  const fields = immutableLinkFieldsIn(body);
  if (fields.length > 0) return { ok: false, code: "BAD_REQUEST", fields };
  const parsed = UpdateLinkBody.safeParse(body);
  return parsed.success
    ? { ok: true, data: parsed.data }
    : { ok: false, code: "VALIDATION_ERROR", error: parsed.error };
}

export const ListLinksQuery = z.object({
  page: withQueryDefault(queryInt({ min: 1 }), 1, 1),
  per_page: withQueryDefault(queryInt({ min: 1, max: PER_PAGE_MAX }), PER_PAGE_DEFAULT, PER_PAGE_DEFAULT),
  search: StoredText()
    .max(200)
    .transform((s) => s.trim() || undefined)
    .optional()
    .meta({ description: "Matches URL, short code or title; empty means no filter" }),
  is_active: z
    .enum(["true", "false"])
    .transform((s) => s === "true")
    .optional(),
  domain: LinkDomain.optional().meta({ description: "Only links on this branded domain (host)" }),
  channel: queryInt({
    min: 1,
    max: 2_147_483_647,
    description: "Only links in this channel (its id)",
  }).optional(),
  health: HealthFilter.optional().meta({
    description:
      "Only links whose last health check found this state, or `broken`: the links that are broken now (docs/health.md)",
  }),
});
export type ListLinksQuery = z.infer<typeof ListLinksQuery>;

// ---- bulk ----

export const BulkCreateBody = z
  .object({ links: z.array(CreateLinkBody).min(1).max(BULK_MAX_ITEMS) })
  .meta({ id: "BulkCreateBody" });
export type BulkCreateBody = z.infer<typeof BulkCreateBody>;

/**
 * The batch shape without item rules, for a handler that reports an invalid item in `failed`
 * (bulk creation is non-transactional) and keeps 400 for a malformed batch: validate the batch with
 * this, then each item with CreateLinkBody.
 */
export const BulkCreateBatch = z.object({ links: z.array(z.unknown()).min(1).max(BULK_MAX_ITEMS) });
export type BulkCreateBatch = z.infer<typeof BulkCreateBatch>;

/** A created link, as much of it as a batch's answer repeats. */
export const BulkCreateResultItem = Link.pick({
  id: true,
  short_code: true,
  short_url: true,
  original_url: true,
  title: true,
  created_at: true,
}).meta({ id: "BulkCreateResultItem" });
export type BulkCreateResultItem = z.infer<typeof BulkCreateResultItem>;

export const BulkCreateFailureItem = z.object({
  index: z.int().nonnegative().meta({ description: "0-based position in the input array" }),
  error: z.string(),
});
export type BulkCreateFailureItem = z.infer<typeof BulkCreateFailureItem>;

export const BulkCreateResult = z.object({
  success: z.array(BulkCreateResultItem),
  failed: z.array(BulkCreateFailureItem),
});
export type BulkCreateResult = z.infer<typeof BulkCreateResult>;

export const BulkDeleteBody = z
  .object({ ids: z.array(Uuid).min(1).max(BULK_MAX_ITEMS) })
  .meta({ id: "BulkDeleteBody" });
export type BulkDeleteBody = z.infer<typeof BulkDeleteBody>;

export const BulkDeleteResult = z.object({ deleted: Count.meta({ description: "Links actually removed" }) });
export type BulkDeleteResult = z.infer<typeof BulkDeleteResult>;
