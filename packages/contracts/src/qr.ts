import * as z from "zod";
import { ShortCode } from "./link.ts";
import { queryInt, withQueryDefault } from "./primitives.ts";

// private: the image is answered to an authenticated request (docs/api.md, "QR codes").
export const QR_CACHE_CONTROL = "private, max-age=86400";
export const QR_CONTENT_TYPES = { png: "image/png", svg: "image/svg+xml" } as const;

/** 6 hex digits with or without `#` (ARCHITECTURE); normalised to `#RRGGBB` so equal colours share a cache entry. */
const HexColor = z
  .string()
  .regex(/^#?[0-9A-Fa-f]{6}$/, "Expected 6 hex digits, with or without a leading #")
  .transform((hex) => `#${hex.replace("#", "").toUpperCase()}`);

export const QrFormat = z.enum(["png", "svg"]);
export type QrFormat = z.infer<typeof QrFormat>;

export const QrErrorCorrection = z.enum(["L", "M", "Q", "H"]);
export type QrErrorCorrection = z.infer<typeof QrErrorCorrection>;

/**
 * Out-of-range and malformed values fail (400 VALIDATION_ERROR) instead of being clamped, so a
 * client never receives an image other than the one it asked for.
 */
export const QrQuery = z.object({
  format: QrFormat.default("png"),
  size: withQueryDefault(queryInt({ min: 100, max: 1000, description: "Image width in pixels" }), 400, 400),
  color: withQueryDefault(HexColor, "#1A1410", "1A1410").meta({
    description: "Foreground, 6 hex digits, `#` optional",
  }),
  bg: withQueryDefault(z.union([z.literal("transparent"), HexColor]), "#FFFFFF", "FFFFFF").meta({
    description: "Background, 6 hex digits (`#` optional) or transparent",
  }),
  ec: QrErrorCorrection.default("M").meta({ description: "Error correction: L ~7%, M ~15%, Q ~25%, H ~30%" }),
  margin: withQueryDefault(queryInt({ min: 0, max: 4, description: "Quiet zone in modules" }), 2, 2),
});
/** Normalised values: colours as `#RRGGBB` upper case, bg may be `transparent`. */
export type QrQuery = z.infer<typeof QrQuery>;
export type QrQueryInput = z.input<typeof QrQuery>;

export const QrParams = z.object({ short_code: ShortCode });
export type QrParams = z.infer<typeof QrParams>;
