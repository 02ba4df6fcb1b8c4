import * as z from "zod";
import type { ZodOpenApiOverrideMetaContext } from "zod-openapi";
import { legacyList, legacySuccess } from "./envelope.ts";
import { brandedDomainHost } from "./host.ts";
import { ALIAS_MAX_LENGTH, ALIAS_MIN_LENGTH, ALIAS_PATTERN } from "./link.ts";
import { HttpUrl, queryInt, StoredText, Uuid, withQueryDefault } from "./primitives.ts";
import { AnyUrl, parseUrl } from "./url.ts";

/** Older API (docs/legacy-api.md). Identifiers are integers; dates are `YYYY-MM-DD HH:MM:SS` (UTC). */

export const LEGACY_LIMIT_DEFAULT = 10;
export const LEGACY_LIMIT_MAX = 100;
export const LEGACY_RATE_LIMIT_PER_MINUTE = 30;

export const LegacyDateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, "Expected YYYY-MM-DD HH:MM:SS")
  .meta({ examples: ["2026-01-31 12:00:00"] });

/** `2026-01-31T12:00:00.000Z` → `2026-01-31 12:00:00`. */
export function toLegacyDateTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace("T", " ");
}

/** Legacy ids are Postgres `integer` (serial) columns. */
export const LEGACY_ID_MAX = 2_147_483_647;

const LegacyId = z.int().positive();

/** Path ids arrive as strings; beyond the column's range an id is malformed, not merely unknown. */
const LegacyIdParam = z
  .string()
  .regex(/^[1-9]\d{0,15}$/, "Expected a positive integer id")
  .transform(Number)
  .pipe(z.int().positive().max(LEGACY_ID_MAX, "Expected a positive integer id"))
  .meta({
    override: ({ jsonSchema }: ZodOpenApiOverrideMetaContext) => {
      delete jsonSchema.pattern;
      jsonSchema.type = "integer";
      jsonSchema.minimum = 1;
    },
  });

export const LegacyIdParams = z.object({ id: LegacyIdParam });
export type LegacyIdParams = z.infer<typeof LegacyIdParams>;

/** Links have UUIDs in this implementation, in both API generations. */
export const LegacyAssignParams = z.object({ campaignid: LegacyIdParam, linkid: Uuid });
export type LegacyAssignParams = z.infer<typeof LegacyAssignParams>;

export const LegacyChannelAssignParams = z.object({ channelid: LegacyIdParam, linkid: Uuid });
export type LegacyChannelAssignParams = z.infer<typeof LegacyChannelAssignParams>;

export const LegacyListQuery = z.object({
  limit: withQueryDefault(
    queryInt({ min: 1, max: LEGACY_LIMIT_MAX, description: "Results per page" }),
    LEGACY_LIMIT_DEFAULT,
    LEGACY_LIMIT_DEFAULT,
  ),
  page: withQueryDefault(queryInt({ min: 1, description: "Page number" }), 1, 1),
});
export type LegacyListQuery = z.infer<typeof LegacyListQuery>;

// ---- account ----

/**
 * `expires` of an account whose plan has no expiry. The original product gives the field as a date string, so
 * it is never null: the latest date the format can hold, which every client comparing dates reads as "not
 * expired" (and MySQL's DATETIME maximum, the store the original product's format comes from).
 */
export const LEGACY_NO_EXPIRY = "9999-12-31 23:59:59";

export const LegacyAccount = z
  .object({
    id: LegacyId,
    email: z.email(),
    username: z.string(),
    avatar: AnyUrl().meta({ description: "Gravatar URL derived from the e-mail address" }),
    status: z.string().meta({ description: "Plan status, e.g. free or pro" }),
    expires: LegacyDateTime.meta({
      description: `Plan expiry (UTC); ${LEGACY_NO_EXPIRY} when the plan does not expire`,
    }),
    registered: LegacyDateTime,
  })
  .meta({ id: "LegacyAccount" });
export type LegacyAccount = z.infer<typeof LegacyAccount>;

export const LegacyAccountResponse = legacySuccess({ data: LegacyAccount });
export type LegacyAccountResponse = z.infer<typeof LegacyAccountResponse>;

export const LEGACY_PASSWORD_MIN_LENGTH = 8;

/** The original product leaves open which member is required; at least one must be present. */
export const LegacyAccountUpdateBody = z
  .object({
    email: z.email().optional(),
    password: z
      .string()
      .min(LEGACY_PASSWORD_MIN_LENGTH)
      .max(200)
      .optional()
      .meta({ description: "The new password: the same strength rule as sign-up (error 1 with the reason)" }),
  })
  .refine((body) => body.email !== undefined || body.password !== undefined, "Send email, password or both");
export type LegacyAccountUpdateBody = z.infer<typeof LegacyAccountUpdateBody>;

// ---- branded domains ----

/**
 * Proof of control (docs/legacy-api.md, docs/security.md "Branded domains"): the owner publishes
 * `kurz-verify=<token>` as a TXT record at `_kurz-verify.<host>`; only a verified domain serves links.
 */
export const DOMAIN_VERIFICATION_LABEL = "_kurz-verify";
export const DOMAIN_VERIFICATION_VALUE_PREFIX = "kurz-verify=";

export const DomainStatus = z.enum(["pending", "verified", "failed"]).meta({
  description:
    "pending: added, not yet verified; verified: the TXT record was found and the domain serves links; " +
    "failed: the last check found no matching record, so the domain serves nothing",
});
export type DomainStatus = z.infer<typeof DomainStatus>;

export const DomainVerificationRecord = z
  .object({
    type: z.literal("TXT"),
    name: z.string().meta({ examples: ["_kurz-verify.go.example.com"] }),
    value: z.string().meta({ examples: ["kurz-verify=3f2a9c0e5b7d41e8a6c2f90b1d4e7a53"] }),
  })
  .meta({ id: "LegacyDomainVerification", description: "The DNS record the owner publishes to verify" });
export type DomainVerificationRecord = z.infer<typeof DomainVerificationRecord>;

/** The record that proves control of `host` (canonical, see `normalizeHost`) with this token. */
export function domainVerificationRecord(host: string, token: string): DomainVerificationRecord {
  return {
    type: "TXT",
    name: `${DOMAIN_VERIFICATION_LABEL}.${host}`,
    value: `${DOMAIN_VERIFICATION_VALUE_PREFIX}${token}`,
  };
}

/** Beyond the original product's four domain fields: where verification stands and what to publish. */
const domainVerificationFields = {
  status: DomainStatus,
  verified_at: LegacyDateTime.nullable().meta({ description: "Last successful verification" }),
  last_checked_at: LegacyDateTime.nullable().meta({ description: "Last verification attempt" }),
  verification: DomainVerificationRecord,
};

export const LegacyDomain = z
  .object({
    id: LegacyId,
    domain: AnyUrl().meta({ description: "Includes the http or https scheme" }),
    redirectroot: AnyUrl().nullable(),
    redirect404: AnyUrl().nullable(),
    ...domainVerificationFields,
    links: z.int().nonnegative().meta({
      description:
        "How many links live on this domain; deleting the domain deletes them (docs/dashboard-manage.md)",
    }),
  })
  .meta({ id: "LegacyDomain" });
export type LegacyDomain = z.infer<typeof LegacyDomain>;

/**
 * A branded domain is a scheme and a DNS name only: a path, query or fragment could never be routed,
 * and an IP address, a port or a single-label name cannot carry a verification record.
 */
export const BrandedDomainUrl = HttpUrl.superRefine((value, ctx) => {
  // zod runs refinements after a failed format check too; that failure is already reported.
  const url = parseUrl(value);
  if (url === null) return;
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) {
    ctx.addIssue({ code: "custom", message: "Expected a scheme and host only, e.g. https://go.example.com" });
    return;
  }
  const host = brandedDomainHost(url.host);
  if (!host.ok) ctx.addIssue({ code: "custom", message: host.reason });
});

export const LegacyDomainAddBody = z.object({
  domain: BrandedDomainUrl,
  redirectroot: HttpUrl.optional(),
  redirect404: HttpUrl.optional(),
});
export type LegacyDomainAddBody = z.infer<typeof LegacyDomainAddBody>;

/** At least one member; null removes that redirect. */
export const LegacyDomainUpdateBody = z
  .object({
    redirectroot: HttpUrl.nullable().optional(),
    redirect404: HttpUrl.nullable().optional(),
  })
  .refine(
    (body) => body.redirectroot !== undefined || body.redirect404 !== undefined,
    "Send redirectroot, redirect404 or both",
  );
export type LegacyDomainUpdateBody = z.infer<typeof LegacyDomainUpdateBody>;

export const LegacyDomainList = legacyList("domains", LegacyDomain);
export type LegacyDomainList = z.infer<typeof LegacyDomainList>;

/** The original product's `{error: 0, id}`, plus the status and the record to publish. */
export const LegacyDomainAddResponse = legacySuccess({
  id: LegacyId,
  ...domainVerificationFields,
});
export type LegacyDomainAddResponse = z.infer<typeof LegacyDomainAddResponse>;

/** The original product's message, plus how many links were deleted with the domain. */
export const LegacyDomainDeleteResponse = legacySuccess({
  message: z.string(),
  links_deleted: z.int().nonnegative().meta({ description: "The domain's links, deleted with it" }),
});
export type LegacyDomainDeleteResponse = z.infer<typeof LegacyDomainDeleteResponse>;

export const LegacyDomainVerifyResponse = legacySuccess({
  id: LegacyId,
  message: z.string(),
  ...domainVerificationFields,
});
export type LegacyDomainVerifyResponse = z.infer<typeof LegacyDomainVerifyResponse>;

export const LegacyIdResponse = legacySuccess({ id: LegacyId });
export type LegacyIdResponse = z.infer<typeof LegacyIdResponse>;

// ---- CTA overlays ----

/** Overlay kinds of the original product; message and contact appear in its samples. */
export const OVERLAY_TYPES = ["message", "contact", "poll", "newsletter", "image", "coupon"] as const;
export const OverlayType = z.enum(OVERLAY_TYPES);
export type OverlayType = z.infer<typeof OverlayType>;

// ---- campaigns ----

const CampaignCommon = {
  id: LegacyId,
  public: z.boolean(),
  rotator: z
    .union([AnyUrl(), z.literal(false)])
    .meta({ description: "Rotator URL, or false without a slug" }),
  list: AnyUrl().meta({ description: "Public list URL" }),
};

/** List item: the name is in `name`. */
export const LegacyCampaign = z
  .object({ ...CampaignCommon, name: z.string() })
  .meta({ id: "LegacyCampaign" });
export type LegacyCampaign = z.infer<typeof LegacyCampaign>;

export const LegacyCampaignList = legacyList("campaigns", LegacyCampaign);
export type LegacyCampaignList = z.infer<typeof LegacyCampaignList>;

/** Create and update answer with the name in `domain` (as the original product's samples do). */
export const LegacyCampaignResponse = legacySuccess({ ...CampaignCommon, domain: z.string() });
export type LegacyCampaignResponse = z.infer<typeof LegacyCampaignResponse>;

export const CAMPAIGN_NAME_MAX = 100;
const CampaignName = StoredText().trim().min(1).max(CAMPAIGN_NAME_MAX);
/** Rotator slugs live under /r/, so they follow the alias character rules but not the reserved list. */
const RotatorSlug = z.string().min(ALIAS_MIN_LENGTH).max(ALIAS_MAX_LENGTH).regex(ALIAS_PATTERN);

export const LegacyCampaignAddBody = z.object({
  name: CampaignName.optional(),
  slug: RotatorSlug.optional(),
  public: z.boolean().optional(),
});
export type LegacyCampaignAddBody = z.infer<typeof LegacyCampaignAddBody>;

/** `slug: null` removes the rotator; an omitted member keeps its value. */
export const LegacyCampaignUpdateBody = z.object({
  name: CampaignName,
  slug: RotatorSlug.nullable().optional(),
  public: z.boolean().optional(),
});
export type LegacyCampaignUpdateBody = z.infer<typeof LegacyCampaignUpdateBody>;

// ---- channels (shape chosen here: the original product documents none) ----

export const LegacyChannel = z
  .object({
    id: LegacyId,
    name: z.string(),
    description: z.string(),
    color: z.string().regex(/^#[0-9A-Fa-f]{6}$/),
    starred: z.boolean(),
  })
  .meta({ id: "LegacyChannel" });
export type LegacyChannel = z.infer<typeof LegacyChannel>;

export const LegacyChannelList = legacyList("channels", LegacyChannel);
export type LegacyChannelList = z.infer<typeof LegacyChannelList>;

export const CHANNEL_NAME_MAX = 100;
export const CHANNEL_DESCRIPTION_MAX = 1000;
const ChannelName = StoredText().trim().min(1).max(CHANNEL_NAME_MAX);
const ChannelDescription = StoredText().max(CHANNEL_DESCRIPTION_MAX);
const ChannelColor = z
  .string()
  .regex(/^#[0-9A-Fa-f]{6}$/, "Expected a colour like #1A2B3C")
  .meta({ examples: ["#1A2B3C"] });

export const LegacyChannelAddBody = z.object({
  name: ChannelName,
  description: ChannelDescription.optional(),
  color: ChannelColor.optional(),
  starred: z.boolean().optional(),
});
export type LegacyChannelAddBody = z.infer<typeof LegacyChannelAddBody>;

/** Any subset of the members, at least one. */
export const LegacyChannelUpdateBody = z
  .object({
    name: ChannelName.optional(),
    description: ChannelDescription.optional(),
    color: ChannelColor.optional(),
    starred: z.boolean().optional(),
  })
  .refine((body) => Object.values(body).some((v) => v !== undefined), "Send at least one field to change");
export type LegacyChannelUpdateBody = z.infer<typeof LegacyChannelUpdateBody>;

/** Create answers with the new channel next to `error: 0`, as the original product does. */
export const LegacyChannelResponse = legacySuccess(LegacyChannel.shape);
export type LegacyChannelResponse = z.infer<typeof LegacyChannelResponse>;
