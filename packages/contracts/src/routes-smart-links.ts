// Routes smart links add (docs/smart-links.md): Open Graph image uploads and their public serving,
// and the workspace's saved UTM templates. Rules, splits and the rest are members of the link itself.
import * as z from "zod";
import { successEnvelope } from "./envelope.ts";
import { defineRoute } from "./routes.ts";
import {
  CreateUtmTemplateBody,
  IMAGE_CACHE_CONTROL,
  ImageIdParams,
  OG_IMAGE_TYPES,
  SERVED_IMAGE_TYPES,
  UploadedImage,
  UtmTemplate,
  UtmTemplateIdParams,
} from "./smart-link.ts";

const ok = <D extends z.ZodType>(data: D) => successEnvelope(data);

export const SMART_LINK_ROUTES = {
  uploadImage: defineRoute({
    method: "POST",
    path: "/api/v1/images",
    tag: "links",
    summary:
      "Upload an Open Graph image (PNG, JPEG or WebP, at most 1 MB); Kurz re-encodes it and answers its id for a link's og.image",
    auth: "key",
    consumes: OG_IMAGE_TYPES,
    bodyParser: z.instanceof(Uint8Array),
    status: 201,
    response: ok(UploadedImage),
    errors: ["VALIDATION_ERROR"],
  }),
  getImage: defineRoute({
    method: "GET",
    path: "/api/v1/images/:id",
    tag: "links",
    summary: "An uploaded image, public and immutable (link-preview fetchers read it)",
    auth: "public",
    params: ImageIdParams,
    invalidParams: { code: "NOT_FOUND", message: "Image not found" },
    status: 200,
    produces: SERVED_IMAGE_TYPES,
    responseHeaders: { "Cache-Control": z.literal(IMAGE_CACHE_CONTROL) },
    errors: ["NOT_FOUND"],
  }),
  listUtmTemplates: defineRoute({
    method: "GET",
    path: "/api/v1/utm-templates",
    tag: "links",
    summary: "The workspace's saved UTM templates, by name",
    auth: "key",
    status: 200,
    response: ok(z.array(UtmTemplate)),
    errors: [],
  }),
  createUtmTemplate: defineRoute({
    method: "POST",
    path: "/api/v1/utm-templates",
    tag: "links",
    summary: "Save a UTM template for the workspace",
    auth: "key",
    body: CreateUtmTemplateBody,
    status: 201,
    response: ok(UtmTemplate),
    errors: ["VALIDATION_ERROR", "CONFLICT"],
  }),
  deleteUtmTemplate: defineRoute({
    method: "DELETE",
    path: "/api/v1/utm-templates/:id",
    tag: "links",
    summary: "Delete a saved UTM template",
    auth: "key",
    params: UtmTemplateIdParams,
    status: 200,
    response: ok(z.object({ deleted: z.literal(true) })),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
} as const;
