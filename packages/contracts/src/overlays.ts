// CTA overlays (docs/legacy-api.md "CTA overlays"; decision 0026): what an owner configures, what the
// redirect reads to show one, and what a visitor's contact form sends. The redirect renders every
// member as text (escaped); colours are `#RRGGBB` only, so they can sit in a style attribute as they are.
import * as z from "zod";
import { legacyList, legacySuccess, PaginationMeta, successEnvelope } from "./envelope.ts";
import { LEGACY_ID_MAX, LegacyDateTime, OverlayType } from "./legacy.ts";
import { HttpUrl, queryInt, StoredText, Timestamp, Uuid, withQueryDefault } from "./primitives.ts";
import { RecordVersion } from "./redirect-record.ts";

export const OVERLAY_POSITIONS = ["top", "bottom", "center"] as const;
export const OverlayPosition = z.enum(OVERLAY_POSITIONS).meta({
  description: "Where the call to action sits over the framed destination (the interstitial centres it)",
});
export type OverlayPosition = z.infer<typeof OverlayPosition>;

/** The fields a contact overlay can ask for, in the order the form shows them. */
export const OVERLAY_FIELDS = ["name", "email", "phone", "message"] as const;
export const OverlayField = z.enum(OVERLAY_FIELDS);
export type OverlayField = z.infer<typeof OverlayField>;

export const OVERLAY_NAME_MAX = 100;
export const OVERLAY_TEXT_MAX = 1000;
export const OVERLAY_LABEL_MAX = 60;

const HexColor = z
  .string()
  .regex(/^#[0-9A-Fa-f]{6}$/, "Expected a colour like #1A2B3C")
  .transform((s) => s.toUpperCase())
  .meta({ examples: ["#1A2B3C"] });

const OverlayName = StoredText().trim().min(1).max(OVERLAY_NAME_MAX);
const OverlayText = StoredText().trim().max(OVERLAY_TEXT_MAX);
const ButtonLabel = StoredText().trim().min(1).max(OVERLAY_LABEL_MAX);
const OverlayFields = z
  .array(OverlayField)
  .min(1)
  .max(OVERLAY_FIELDS.length)
  .refine((f) => new Set(f).size === f.length, "Entries must be unique");

/** The defaults a new overlay gets for what the body leaves out. */
export const OVERLAY_DEFAULTS = {
  text: "",
  fields: ["name", "email", "message"] as OverlayField[],
  bg_color: "#FFFFFF",
  text_color: "#111111",
  button_color: "#2563EB",
  position: "bottom" as OverlayPosition,
};

/** What an owner sets on an overlay; create and update are both derived from it. */
const OverlaySettings = z.object({
  name: OverlayName,
  text: OverlayText,
  button_label: ButtonLabel,
  button_url: HttpUrl,
  fields: OverlayFields,
  bg_color: HexColor,
  text_color: HexColor,
  button_color: HexColor,
  position: OverlayPosition,
});

/** A button needs both its label and where it goes. */
const buttonComplete = (b: { button_label?: string | null; button_url?: string | null }) =>
  (b.button_label == null) === (b.button_url == null);
const BUTTON_RULE = {
  message: "Send button_label and button_url together (or neither)",
  path: ["button_url"],
};

/** The type and a name; every other setting optional (OVERLAY_DEFAULTS fills it in). */
export const OverlayCreateBody = z
  .object({ type: OverlayType, ...OverlaySettings.partial().required({ name: true }).shape })
  .refine(buttonComplete, BUTTON_RULE)
  .meta({ id: "OverlayCreateBody" });
export type OverlayCreateBody = z.infer<typeof OverlayCreateBody>;

/**
 * Any members, at least one; `null` for either button member removes the button. A button keeps the
 * member that is not sent. The type is fixed at creation.
 */
export const OverlayUpdateBody = OverlaySettings.extend({
  button_label: ButtonLabel.nullable(),
  button_url: HttpUrl.nullable(),
})
  .partial()
  .refine((b) => Object.values(b).some((v) => v !== undefined), "Send at least one field to change")
  .meta({ id: "OverlayUpdateBody" });
export type OverlayUpdateBody = z.infer<typeof OverlayUpdateBody>;

const LegacyId = z.int().positive();

/** An overlay's settings as both APIs answer them, between its id and type and its dates. */
const OverlayContent = {
  name: z.string(),
  text: z.string(),
  button_label: z.string().nullable(),
  button_url: z.string().nullable(),
  fields: z.array(z.string()),
  bg_color: z.string(),
  text_color: z.string(),
  button_color: z.string(),
  position: z.string(),
};

/** A contact form submission as both APIs answer it, after its id and before its date. */
const SubmissionContent = {
  link_id: Uuid,
  name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  message: z.string().nullable(),
};

/** An overlay as the API answers it (list items and reads). */
export const LegacyOverlayDetail = z
  .object({
    id: LegacyId,
    type: z.string().meta({ description: "Overlay kind, e.g. message or contact" }),
    ...OverlayContent,
    date: LegacyDateTime,
  })
  .meta({ id: "LegacyOverlay" });
export type LegacyOverlayDetail = z.infer<typeof LegacyOverlayDetail>;

export const LegacyOverlayDetailList = legacyList("cta", LegacyOverlayDetail);
export type LegacyOverlayDetailList = z.infer<typeof LegacyOverlayDetailList>;

export const LegacyOverlayResponse = legacySuccess({ data: LegacyOverlayDetail });
export type LegacyOverlayResponse = z.infer<typeof LegacyOverlayResponse>;

export const LegacyOverlayAddResponse = legacySuccess({ id: LegacyId, data: LegacyOverlayDetail });
export type LegacyOverlayAddResponse = z.infer<typeof LegacyOverlayAddResponse>;

// ---- contact submissions ----

export const SUBMISSION_MAX = { name: 100, email: 254, phone: 40, message: 2000 } as const;

/** A visitor's contact form. Members the overlay does not ask for are ignored. */
export const OverlaySubmissionBody = z.object({
  name: StoredText().trim().min(1).max(SUBMISSION_MAX.name).optional(),
  email: z.email().max(SUBMISSION_MAX.email).optional(),
  phone: z
    .string()
    .trim()
    .regex(/^\+?[0-9 ()./-]{3,40}$/, "Expected a phone number")
    .optional(),
  message: StoredText().trim().min(1).max(SUBMISSION_MAX.message).optional(),
});
export type OverlaySubmissionBody = z.infer<typeof OverlaySubmissionBody>;

export const LegacyOverlaySubmission = z
  .object({ id: LegacyId, ...SubmissionContent, date: LegacyDateTime })
  .meta({ id: "LegacyOverlaySubmission" });
export type LegacyOverlaySubmission = z.infer<typeof LegacyOverlaySubmission>;

export const LegacyOverlaySubmissionList = legacyList("submissions", LegacyOverlaySubmission);
export type LegacyOverlaySubmissionList = z.infer<typeof LegacyOverlaySubmissionList>;

/** The redirect's call to management's internal submission endpoint (redirect's credential). */
export const InternalOverlaySubmission = OverlaySubmissionBody.extend({ short_code: z.string().max(50) });
export type InternalOverlaySubmission = z.infer<typeof InternalOverlaySubmission>;

// ---- what the redirect reads ----

export function overlayKey(id: string | number): string {
  return `overlay:${id}`;
}

export const CSV_CONTENT_TYPE = "text/csv; charset=utf-8";

// ---- /api/v1/overlays: the same overlays in v1's envelope and date format ----

export const Overlay = z
  .object({
    id: z.int().positive(),
    type: z.string(),
    ...OverlayContent,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "Overlay" });
export type Overlay = z.infer<typeof Overlay>;

/**
 * An overlay as the redirect renders it (`overlay:<id>` in Redis, written by management; a miss asks
 * `GET /internal/overlays/resolve/:id`). Links name it by id, so an edit rewrites one record. The
 * v1 overlay's content fields, with its owner instead of its name and dates.
 */
export const OverlayRecord = Overlay.omit({ name: true, created_at: true, updated_at: true }).extend({
  id: z.int(),
  account_id: z.string(),
  v: RecordVersion,
});
export type OverlayRecord = z.infer<typeof OverlayRecord>;

export const OverlaySubmission = z
  .object({ id: z.int().positive(), ...SubmissionContent, created_at: Timestamp })
  .meta({ id: "OverlaySubmission" });
export type OverlaySubmission = z.infer<typeof OverlaySubmission>;

export const OverlayIdParams = z.object({
  id: z
    .string()
    .regex(/^[1-9]\d{0,9}$/, "Expected a positive integer id")
    .transform(Number)
    .pipe(z.int().positive().max(LEGACY_ID_MAX)),
});
export type OverlayIdParams = z.infer<typeof OverlayIdParams>;

export const OverlayListQuery = z.object({
  page: withQueryDefault(queryInt({ min: 1 }), 1, 1),
  per_page: withQueryDefault(queryInt({ min: 1, max: 100 }), 20, 20),
});
export type OverlayListQuery = z.infer<typeof OverlayListQuery>;

export const OverlayResponse = successEnvelope(Overlay);
export const OverlayListResponse = successEnvelope(z.array(Overlay), PaginationMeta);
export const OverlaySubmissionListResponse = successEnvelope(z.array(OverlaySubmission), PaginationMeta);
export const OverlayDeletedResponse = successEnvelope(z.object({ deleted: z.literal(true) }));
