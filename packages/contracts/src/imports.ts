// Bulk import of links from a file (docs/import-export.md): the wire shapes and the route
// records. An import is a job: the upload answers 202 with the job, a worker in management creates the
// links in batches, and the job reports its progress, counts and per-row errors.
import * as z from "zod";
import { PaginationMeta, successEnvelope } from "./envelope.ts";
import { CODE_PATTERN, CODE_RULE, LinkDomain, PER_PAGE_DEFAULT } from "./link.ts";
import { Count, queryInt, Timestamp, Uuid, withQueryDefault } from "./primitives.ts";
import { defineRoute } from "./routes.ts";

/** Largest upload accepted (bytes); 100,000 rows of a typical export are ~10 MB. */
export const IMPORT_MAX_BYTES = 32 * 1024 * 1024;
/** Rows past this are refused as a whole before anything is created. */
export const IMPORT_MAX_ROWS = 200_000;
/** Media types an upload may carry (the file itself is the body). */
export const IMPORT_MEDIA_TYPES = [
  "text/csv",
  "application/json",
  "text/plain",
  "application/octet-stream",
] as const;

export const ImportFormat = z.enum(["csv", "bitly", "shlink", "kutt", "yourls"]);
export type ImportFormat = z.infer<typeof ImportFormat>;

export const ImportStatus = z.enum(["queued", "running", "completed", "failed"]);
export type ImportStatus = z.infer<typeof ImportStatus>;

// Every row ends in exactly one of created, skipped, needs_attention and failed, so their sum is
// `processed`, and `total` once the job has completed.
export const ImportCounts = z.object({
  total: Count.meta({ description: "Rows in the file" }),
  processed: Count.meta({
    description: "Rows handled so far: created + skipped + needs_attention + failed (total once completed)",
  }),
  created: Count.meta({ description: "Rows that became links ready to serve" }),
  skipped: Count.meta({ description: "Rows whose link already exists in the account (re-runs)" }),
  needs_attention: Count.meta({
    description:
      "Rows that became inactive links their owner must finish (a password the source did not export); see GET /imports/:id/attention",
  }),
  failed: Count.meta({ description: "Rows refused, no link made; see GET /imports/:id/errors" }),
});
export type ImportCounts = z.infer<typeof ImportCounts>;

/** The longest `rename_reserved` prefix: `<prefix>-<code>` must still fit the code rule's 100 characters. */
export const IMPORT_RENAME_PREFIX_MAX_LENGTH = 20;
export const ImportRenamePrefix = z
  .string()
  .min(1)
  .max(IMPORT_RENAME_PREFIX_MAX_LENGTH)
  .regex(CODE_PATTERN, `Only ${CODE_RULE}`);

/** A created row whose code is one of Kurz's own paths, kept as `<rename_reserved>-<code>`. */
export const ImportRename = z.object({
  row: z.int().positive(),
  code: z.string().meta({ description: "The code in the file" }),
  short_code: z.string().meta({ description: "The code the link was created with" }),
});

/** One row that became an inactive link its owner must finish, with that link as it is now. */
export const ImportAttentionRow = z
  .object({
    row: z.int().positive(),
    link_id: Uuid,
    alias: z
      .string()
      .nullable()
      .meta({ description: "The code the row asked for (null: one was generated)" }),
    url: z.string(),
    reason: z.string().meta({ description: "What is missing and what to do" }),
    link: z
      .object({
        short_code: z.string(),
        is_active: z.boolean(),
        has_password: z.boolean(),
      })
      .nullable()
      .meta({ description: "The link now (null: deleted since); done once active" }),
  })
  .meta({ id: "ImportAttentionRow" });
export type ImportAttentionRow = z.infer<typeof ImportAttentionRow>;

export const ImportJob = z
  .object({
    id: Uuid,
    status: ImportStatus,
    format: ImportFormat,
    filename: z.string().nullable(),
    fetch_titles: z.boolean(),
    domain: z
      .string()
      .nullable()
      .meta({ description: "The branded domain (host) the job's links live on; null: the public host" }),
    rename_reserved: z
      .string()
      .nullable()
      .meta({ description: "The prefix a code that is one of Kurz's own paths is kept under" }),
    counts: ImportCounts,
    progress: z.number().min(0).max(1).meta({ description: "processed / total (1 when there are no rows)" }),
    error: z
      .string()
      .nullable()
      .meta({ description: "Why a failed job stopped (a file that cannot be read)" }),
    /** The first few row errors, so a client can show them without downloading the CSV. */
    errors_preview: z.array(z.object({ row: z.int().positive(), error: z.string() })).max(20),
    renamed: Count.meta({ description: "Rows created under rename_reserved's prefix" }),
    /** The first few renamed rows; all of them are the links whose code starts with the prefix. */
    renamed_preview: z.array(ImportRename).max(20),
    /** The first few rows that need their owner; all of them: GET /imports/:id/attention. */
    attention_preview: z.array(ImportAttentionRow).max(20),
    created_at: Timestamp,
    updated_at: Timestamp,
    finished_at: Timestamp.nullable(),
  })
  .meta({ id: "ImportJob" });
export type ImportJob = z.infer<typeof ImportJob>;

const booleanQuery = z
  .enum(["true", "false"])
  .transform((s) => s === "true")
  .optional();

export const CreateImportQuery = z.object({
  format: z
    .enum(["auto", ...ImportFormat.options])
    .optional()
    .meta({ description: "The file's source; `auto` (default) detects it from the content" }),
  fetch_titles: booleanQuery.meta({
    description: "Fetch the page title of rows without one (slow; default false: the URL's host is used)",
  }),
  filename: z.string().max(200).optional().meta({ description: "Shown in the job list" }),
  domain: LinkDomain.optional().meta({
    description:
      "A verified branded domain of your account: the links live on it, and a code that is one of Kurz's own paths (docs, api, …) is kept there",
    examples: ["go.example.com"],
  }),
  rename_reserved: ImportRenamePrefix.optional().meta({
    description:
      "Without a domain, keep a code that is one of Kurz's own paths as `<prefix>-<code>` instead of refusing its row",
    examples: ["old"],
  }),
});
export type CreateImportQuery = z.infer<typeof CreateImportQuery>;

export const ImportIdParams = z.object({ id: Uuid });

export const ListImportsQuery = z.object({
  page: withQueryDefault(queryInt({ min: 1 }), 1, 1),
  per_page: withQueryDefault(queryInt({ min: 1, max: 100 }), PER_PAGE_DEFAULT, PER_PAGE_DEFAULT),
});

/**
 * The upload's body arrives as raw bytes (service-kit's createApp `rawBodies`: a Node Buffer). Named as
 * the Uint8Array a Buffer is, because the dashboard compiles these contracts for the browser, which has
 * no Buffer.
 */
export const ImportUpload = z.custom<Uint8Array>(
  (value) => value instanceof Uint8Array && value.length > 0,
  "Send the file as the request body (an empty body is not a file)",
);

const V1 = "/api/v1";

export const IMPORT_ROUTES = {
  createImport: defineRoute({
    method: "POST",
    path: `${V1}/imports`,
    tag: "links",
    summary:
      "Import links from a file (CSV, Bitly, Shlink, Kutt, YOURLS); the body is the file. Answers 202 with the job",
    auth: "key",
    query: CreateImportQuery,
    bodyParser: ImportUpload,
    consumes: IMPORT_MEDIA_TYPES,
    status: 202,
    response: successEnvelope(ImportJob),
    errors: ["VALIDATION_ERROR", "BAD_REQUEST", "FORBIDDEN", "PAYLOAD_TOO_LARGE"],
  }),
  listImports: defineRoute({
    method: "GET",
    path: `${V1}/imports`,
    tag: "links",
    summary: "The account's imports, newest first",
    auth: "key",
    query: ListImportsQuery,
    status: 200,
    response: successEnvelope(z.array(ImportJob), PaginationMeta),
    errors: ["VALIDATION_ERROR"],
  }),
  getImport: defineRoute({
    method: "GET",
    path: `${V1}/imports/:id`,
    tag: "links",
    summary: "An import's status, progress and counts",
    auth: "key",
    params: ImportIdParams,
    status: 200,
    response: successEnvelope(ImportJob),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  getImportAttention: defineRoute({
    method: "GET",
    path: `${V1}/imports/:id/attention`,
    tag: "links",
    summary:
      "An import's rows that became inactive links needing their owner (e.g. a password to set), with each link's state now",
    auth: "key",
    params: ImportIdParams,
    query: ListImportsQuery,
    status: 200,
    response: successEnvelope(z.array(ImportAttentionRow), PaginationMeta),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  getImportErrors: defineRoute({
    method: "GET",
    path: `${V1}/imports/:id/errors`,
    tag: "links",
    summary: "An import's refused rows as CSV (row, alias, url, error)",
    auth: "key",
    params: ImportIdParams,
    status: 200,
    produces: ["text/csv"],
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
} as const;
