// Links that adapt (docs/smart-links.md): targeting rules, a weighted split, query forwarding, a click
// limit with its fallback, social previews and app links. The API shapes are here; the redirect record
// carries them compiled (SmartRecord), so the redirect never parses user text per request.
import * as z from "zod";
import { isCountryCode } from "./countries.ts";
import { HttpUrl, MAX_URL_LENGTH, StoredText, Timestamp } from "./primitives.ts";

export const RULES_MAX = 25;
export const SPLIT_ARMS_MAX = 10;
export const SPLIT_WEIGHT_MAX = 1000;
export const RULE_LIST_MAX = 50;
export const RULE_QUERY_MAX = 10;
export const RULE_QUERY_TEXT_MAX = 200;
export const OG_TITLE_MAX = 200;
export const OG_DESCRIPTION_MAX = 500;
export const MAX_CLICKS_MAX = 1_000_000_000;
/** An uploaded Open Graph image: at most this many bytes before re-encoding. */
export const OG_IMAGE_MAX_BYTES = 1024 * 1024;
/**
 * How much of an upload the gateway and management read: a file up to this size that is over
 * OG_IMAGE_MAX_BYTES gets a 400 VALIDATION_ERROR naming the limit; only a larger body is cut off (413).
 */
export const OG_IMAGE_READ_MAX_BYTES = 4 * OG_IMAGE_MAX_BYTES;
export const OG_IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp"] as const;

export const DEVICES = ["mobile", "tablet", "desktop"] as const;
export const Device = z.enum(DEVICES);
export type Device = z.infer<typeof Device>;

/** Operating systems a rule can name; the redirect maps the User-Agent's OS onto them (other: none). */
export const RULE_OSES = ["ios", "android", "windows", "macos", "linux", "chromeos"] as const;
export const RuleOs = z.enum(RULE_OSES);
export type RuleOs = z.infer<typeof RuleOs>;

/** Browsers a rule can name; the redirect maps the User-Agent's browser onto them (other: none). */
export const RULE_BROWSERS = ["chrome", "safari", "firefox", "edge", "opera", "samsung"] as const;
export const RuleBrowser = z.enum(RULE_BROWSERS);
export type RuleBrowser = z.infer<typeof RuleBrowser>;

/** ISO 3166-1 alpha-2, upper case as sent. */
export const CountryCode = z
  .string()
  .refine(isCountryCode, "Expected an ISO 3166-1 alpha-2 country code in upper case (DE, US, JP)")
  .meta({ examples: ["DE"] });

/**
 * A BCP 47 language tag: a primary language (`de`) matches every region of it, a tag with a region
 * (`pt-BR`) only that one. Stored in canonical case.
 */
export const LanguageTag = z
  .string()
  .max(35)
  .check((ctx) => {
    if (canonicalLanguage(ctx.value) === null)
      ctx.issues.push({
        code: "custom",
        input: ctx.value,
        message: "Expected a language tag such as de or pt-BR",
      });
  })
  .transform((s) => canonicalLanguage(s) ?? s)
  .meta({ examples: ["de", "pt-BR"] });

/** `de`, `pt-BR`; null when not a language (or only a script or private tag). */
export function canonicalLanguage(tag: string): string | null {
  if (!/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/.test(tag)) return null;
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
}

const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .min(1)
    .max(RULE_LIST_MAX)
    .refine((xs) => new Set(xs).size === xs.length, "Entries must be unique");

const QueryText = StoredText().min(1).max(RULE_QUERY_TEXT_MAX);

/** A rule's conditions; every one present must hold. Unknown members are a validation error. */
export const RuleWhen = z
  .strictObject({
    device: list(Device).optional(),
    os: list(RuleOs).optional(),
    browser: list(RuleBrowser).optional(),
    country: list(CountryCode).optional(),
    language: list(LanguageTag).optional(),
    query: z
      .record(QueryText, QueryText)
      .refine((q) => Object.keys(q).length >= 1 && Object.keys(q).length <= RULE_QUERY_MAX, {
        message: `Between 1 and ${RULE_QUERY_MAX} parameters`,
      })
      .optional()
      .meta({ description: "Each query parameter of the visit equals this value" }),
    after: Timestamp.optional().meta({ description: "Only visits at or after this instant" }),
    before: Timestamp.optional().meta({ description: "Only visits before this instant" }),
  })
  .refine((w) => Object.keys(w).length > 0, "A rule needs at least one condition")
  .refine((w) => w.after === undefined || w.before === undefined || w.after < w.before, {
    message: "after must be earlier than before",
    path: ["before"],
  })
  .meta({ id: "RuleWhen" });
export type RuleWhen = z.infer<typeof RuleWhen>;

export const LinkRule = z.strictObject({ when: RuleWhen, url: HttpUrl }).meta({ id: "LinkRule" });
export type LinkRule = z.infer<typeof LinkRule>;

export const LinkRules = z
  .array(LinkRule)
  .max(RULES_MAX)
  .meta({
    description: `Up to ${RULES_MAX} rules in order; the first whose every condition holds decides the destination`,
  });

export const SplitArm = z
  .strictObject({ url: HttpUrl, weight: z.int().positive().max(SPLIT_WEIGHT_MAX) })
  .meta({ id: "SplitArm" });
export type SplitArm = z.infer<typeof SplitArm>;

export const LinkSplit = z.array(SplitArm).min(2).max(SPLIT_ARMS_MAX).meta({
  description:
    "Weighted destinations for visitors no rule matched; the same visitor always gets the same arm",
});

const hasControlChar = (s: string) => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
};

// Schemes an app link may not use: they run in the page or read local files.
const UNSAFE_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "file:", "blob:", "about:"]);

/**
 * An app's URL for one platform: an https universal or app link, a store page, or the app's own scheme
 * (`myapp://item/42`).
 */
export const AppUrl = z
  .string()
  .trim()
  .max(MAX_URL_LENGTH)
  .check((ctx) => {
    const m = /^([A-Za-z][A-Za-z0-9+.-]*:)\/\/\S*$/.exec(ctx.value);
    if (m === null || hasControlChar(ctx.value) || UNSAFE_SCHEMES.has(m[1]!.toLowerCase()))
      ctx.issues.push({
        code: "custom",
        input: ctx.value,
        message: "Expected an https:// link or an app's own scheme (myapp://…)",
      });
  })
  .meta({ format: "uri", examples: ["https://apps.apple.com/app/id123", "myapp://item/42"] });

/** What link-preview fetchers (chat apps, social networks) see instead of the redirect. */
export const OgInput = z
  .strictObject({
    title: StoredText().trim().min(1).max(OG_TITLE_MAX).nullable().optional(),
    description: StoredText().trim().min(1).max(OG_DESCRIPTION_MAX).nullable().optional(),
    image: z
      .string()
      .regex(/^[A-Za-z0-9_-]{16,64}$/, "Expected the id of an image uploaded to POST /api/v1/images")
      .nullable()
      .optional(),
  })
  .meta({ id: "OgInput" });
export type OgInput = z.infer<typeof OgInput>;

export const Og = z
  .object({
    title: z.string().nullable(),
    description: z.string().nullable(),
    image: z.string().nullable().meta({ description: "Id of the uploaded image" }),
    image_url: z.string().nullable().meta({ description: "Where the image is served" }),
  })
  .meta({ id: "Og" });
export type Og = z.infer<typeof Og>;

/**
 * The smart members of create and update (all optional; PATCH sets null to remove one). SPEC clients
 * that send none of them get SPEC's answers, and their links redirect as plain links.
 */
export const SmartLinkInput = {
  rules: LinkRules.nullable().optional(),
  split: LinkSplit.nullable().optional(),
  forward_query: z.boolean().optional().meta({
    description: "Add the visit's query parameters to the destination; default: the account's setting",
  }),
  max_clicks: z.int().positive().max(MAX_CLICKS_MAX).nullable().optional(),
  expired_url: HttpUrl.nullable().optional().meta({
    description: "Where a link past its expiry or its click limit sends visitors; else 410",
  }),
  og: OgInput.nullable().optional(),
  ios_url: AppUrl.nullable().optional(),
  android_url: AppUrl.nullable().optional(),
};

/** The names of the smart members, in the link object's order. */
export const SMART_LINK_MEMBERS = Object.keys(SmartLinkInput) as readonly (keyof typeof SmartLinkInput)[];
export type SmartLinkMember = keyof typeof SmartLinkInput;

/** The smart members of the link object, always sent. */
export const SmartLinkFields = {
  rules: z.array(LinkRule),
  split: z.array(SplitArm).nullable(),
  forward_query: z.boolean(),
  max_clicks: z.int().positive().nullable(),
  expired_url: z.string().nullable(),
  og: Og.nullable(),
  ios_url: z.string().nullable(),
  android_url: z.string().nullable(),
};

/** An uploaded image, re-encoded by Kurz. */
export const UploadedImage = z
  .object({
    id: z.string(),
    url: z.string().meta({ description: "Public, immutable; cached for a year" }),
    width: z.int().positive(),
    height: z.int().positive(),
    content_type: z.string(),
    bytes: z.int().positive(),
  })
  .meta({ id: "UploadedImage" });
export type UploadedImage = z.infer<typeof UploadedImage>;

// ---- where a click was sent (analytics' `destination` dimension) ----

/**
 * Which part of a link sent a click: `default` (original_url), `rule:N` (the Nth rule, from 1),
 * `split:N` (the Nth arm, from 1), `ios`, `android`, `expired` (expired_url), `broken` (broken_url,
 * docs/health.md).
 */
export const DESTINATION_MAX = 16;
export const DESTINATION_PATTERN = /^(?:default|ios|android|expired|broken|rule:\d{1,2}|split:\d{1,2})$/;
export const Destination = z
  .string()
  .max(DESTINATION_MAX)
  .regex(DESTINATION_PATTERN)
  .meta({ examples: ["default", "rule:2", "split:1"] });
export type Destination = z.infer<typeof Destination>;

// ---- the redirect record's compiled form ----

/**
 * A rule as the redirect reads it: lists become what one comparison needs. Absent members hold.
 * `l` holds lower-case tags; `q` pairs in order; times in epoch ms.
 */
export const CompiledRule = z.object({
  u: z.string().meta({ description: "Destination, already in Location form" }),
  d: z.array(Device).optional(),
  o: z.array(RuleOs).optional(),
  b: z.array(RuleBrowser).optional(),
  c: z.array(z.string()).optional(),
  l: z.array(z.string()).optional(),
  q: z.array(z.tuple([z.string(), z.string()])).optional(),
  a: z.int().optional(),
  z: z.int().optional(),
});
export type CompiledRule = z.infer<typeof CompiledRule>;

/**
 * The smart part of a redirect record (RedirectRecord.s); absent for a plain link, so a plain link
 * pays one property read. Every URL is already in Location form.
 */
export const SmartRecord = z.object({
  r: z.array(CompiledRule).optional().meta({ description: "Rules, in order" }),
  p: z
    .array(z.tuple([z.string(), z.int().positive()]))
    .optional()
    .meta({ description: "Split arms: [url, weight]" }),
  f: z.literal(1).optional().meta({ description: "Forward the visit's query" }),
  i: z.string().optional().meta({ description: "iOS URL" }),
  n: z.string().optional().meta({ description: "Android URL" }),
  x: z.string().optional().meta({ description: "Expired URL" }),
  m: z.int().positive().optional().meta({ description: "Click limit" }),
  g: z
    .object({ t: z.string().optional(), d: z.string().optional(), i: z.string().optional() })
    .optional()
    .meta({ description: "Open Graph title, description, absolute image URL" }),
});
export type SmartRecord = z.infer<typeof SmartRecord>;

/** Redis key counting a link's clicks under its click limit (`max_clicks`): INCR per counted click. */
export function clickLimitKey(linkId: string): string {
  return `click-limit:${linkId}`;
}

/**
 * Redis set of the click ids a snapshot replay has already added to a link's click-limit counter, so
 * that replaying the same log again advances the counter by nothing. Removed with the counter.
 */
export function clickLimitReplayedKey(linkId: string): string {
  return `click-limit-replayed:${linkId}`;
}

export const ImageIdParams = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, "Not an image id"),
});
export type ImageIdParams = z.infer<typeof ImageIdParams>;

/** What an uploaded image is served as: re-encoded, never the uploaded bytes. */
export const SERVED_IMAGE_TYPES = ["image/jpeg", "image/png"] as const;
export const IMAGE_CACHE_CONTROL = "public, max-age=31536000, immutable";

// ---- UTM templates (the dashboard's UTM builder, saved per workspace) ----

export const UTM_PARAMS = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"] as const;
export const UTM_TEMPLATES_MAX = 100;
const UtmValue = StoredText().trim().min(1).max(200);

export const UtmParams = z
  .strictObject({
    utm_source: UtmValue.optional(),
    utm_medium: UtmValue.optional(),
    utm_campaign: UtmValue.optional(),
    utm_term: UtmValue.optional(),
    utm_content: UtmValue.optional(),
  })
  .refine((p) => Object.keys(p).length > 0, "Set at least one parameter")
  .meta({ id: "UtmParams" });
export type UtmParams = z.infer<typeof UtmParams>;

export const UtmTemplate = z
  .object({
    id: z.int().positive(),
    name: z.string(),
    params: UtmParams,
    created_at: Timestamp,
  })
  .meta({ id: "UtmTemplate" });
export type UtmTemplate = z.infer<typeof UtmTemplate>;

export const CreateUtmTemplateBody = z
  .strictObject({ name: StoredText().trim().min(1).max(100), params: UtmParams })
  .meta({ id: "CreateUtmTemplateBody" });
export type CreateUtmTemplateBody = z.infer<typeof CreateUtmTemplateBody>;

export const UtmTemplateIdParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });
export type UtmTemplateIdParams = z.infer<typeof UtmTemplateIdParams>;
