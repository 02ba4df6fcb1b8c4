// A raw import row checked against the same rules as POST /links (contracts' CreateLinkBody: its
// expiry and link password rules included), with import-friendly readings: a title cut to the stored
// maximum, a date-time without a zone (`2031-01-01 12:00:00`, as SQL dumps and spreadsheets write it)
// read as UTC, and the code the peer made kept under the import code rule (contracts' ImportCode:
// YOURLS' 1-character keywords, Kutt's `_` and edge hyphens) rather than the API's alias rule. A code
// that is one of Kurz's own paths (isReservedAlias) is kept on a branded domain, renamed with the
// job's rename_reserved prefix, or refused with what to do. A refused row's reason says what is wrong
// and how to fix it in the file: the person reading it has the file, not the API.
import {
  CreateLinkBody,
  ImportCode,
  type ImportFormat,
  isCodeShaped,
  isReservedAlias,
  TITLE_MAX_LENGTH,
} from "@kurz/contracts";
import type * as z from "zod";
import type { RawImportRow } from "./import-file.ts";

export interface ValidImportRow {
  row: number;
  url: string;
  alias?: string;
  title?: string;
  expiresAt: Date | null;
  password?: string;
  /** The file's code when `alias` is it renamed under the job's rename_reserved prefix. */
  renamedFrom?: string;
  /**
   * Why the row's link is created inactive for its owner to finish (counted as needs_attention), or
   * null: a row protected at its source whose password the file does not hold.
   */
  attention: string | null;
}

/** What a job does with a code that is one of Kurz's own paths. */
export interface CodeOptions {
  /** The job's links live on a branded domain, where Kurz's paths are the domain's own. */
  branded: boolean;
  /** Keep such a code as `<prefix>-<code>`; null: refuse its row. */
  renameReserved: string | null;
}

/** What a job with these settings does with a code that is one of Kurz's own paths. */
export const codeOptionsOf = (job: {
  domainId: number | null;
  renameReserved: string | null;
}): CodeOptions => ({
  branded: job.domainId !== null,
  renameReserved: job.renameReserved,
});

/** How a job reads its rows: its source's name for reasons, and what it does with reserved codes. */
export type RowOptions = Partial<CodeOptions> & { format?: ImportFormat };

/** The import's own reading of CreateLinkBody: the code as its peer made it. */
const ImportRowBody = CreateLinkBody.extend({ custom_alias: ImportCode.optional() });

export const reservedCodeRefusal = (code: string) =>
  `alias: "${code}" is one of Kurz's own paths on the public host; import onto a branded domain ` +
  `(domain=HOST, ./kurz import --domain HOST) to keep it, or set rename_reserved=PREFIX ` +
  `(--rename-reserved PREFIX) to keep it as PREFIX-${code}`;

export type CheckedRow =
  | { ok: true; value: ValidImportRow }
  | { ok: false; row: RawImportRow; error: string };

// A date and time with neither `Z` nor an offset, the date and time apart by a space or a `T`.
const ZONELESS_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(:\d{2}(?:\.\d{1,9})?)?$/;

/** `expires_at` as the API takes it: a zoneless date-time gains `Z`, anything else is left to the schema. */
export function asUtcExpiry(value: string | undefined): string | undefined {
  const m = value === undefined ? null : ZONELESS_DATE_TIME.exec(value.trim());
  return m ? `${m[1]}T${m[2]}${m[3] ?? ":00"}Z` : value;
}

const SOURCE_NAMES: Record<ImportFormat, string> = {
  csv: "the file",
  bitly: "Bitly",
  shlink: "Shlink",
  kutt: "Kutt",
  yourls: "YOURLS",
};

/** The reason of a row whose source protects its link with a password the export leaves out. */
export const passwordWithheldReason = (format: ImportFormat) =>
  `protected in ${SOURCE_NAMES[format]}; ${SOURCE_NAMES[format]} does not export passwords: set a password and activate`;

export const URL_MISSING =
  "url: missing. Give the row its destination (an absolute http:// or https:// address) or remove the row";

/** What to do about a refused field, after what is wrong with it. */
const FIX: Record<string, string> = {
  url: "give an absolute http:// or https:// address of at most 2048 characters, or remove the row",
  custom_alias: "change the alias in the file, or leave it empty for a generated code",
  title: "correct the title in the file, or leave it empty for the URL's host name",
  password: "correct the password in the file, or leave it empty for a link without one",
  expires_at:
    "write the date as 2031-01-01 or 2031-01-01T12:00:00Z (a date-time without a zone is read as UTC), or leave it empty",
};
/** The file's column names the reader takes for each field (import-file.ts), as the person sees them. */
const FIELD_NAMES: Record<string, string> = { custom_alias: "alias" };

/** `field: what is wrong. What to do` for each refused field, at most five, in the schema's order. */
function refusal(issues: readonly z.core.$ZodIssue[]): string {
  const byField = new Map<string, string[]>();
  for (const issue of issues) {
    const field = String(issue.path[0] ?? "row");
    byField.set(field, [...(byField.get(field) ?? []), issue.message]);
  }
  return [...byField]
    .slice(0, 5)
    .map(([field, messages]) => {
      const fix = FIX[field];
      const what = `${FIELD_NAMES[field] ?? field}: ${messages.join(", ")}`;
      return fix ? `${what}. To import it, ${fix}` : what;
    })
    .join("; ");
}

export function checkImportRow(raw: RawImportRow, options: RowOptions = {}): CheckedRow {
  const { format = "csv", branded = false, renameReserved = null } = options;
  if (raw.url === undefined) return { ok: false, row: raw, error: URL_MISSING };
  const parsed = ImportRowBody.safeParse({
    url: raw.url,
    custom_alias: raw.alias,
    title: raw.title?.slice(0, TITLE_MAX_LENGTH),
    password: raw.password,
    expires_at: asUtcExpiry(raw.expires_at),
  });
  if (!parsed.success) return { ok: false, row: raw, error: refusal(parsed.error.issues) };
  const { url, custom_alias, title, password, expires_at } = parsed.data;
  const expiresAt = expires_at === undefined ? null : new Date(expires_at);
  const value: ValidImportRow = {
    row: raw.row,
    url,
    alias: custom_alias,
    title,
    expiresAt,
    password,
    attention:
      raw.passwordWithheld === true && password === undefined ? passwordWithheldReason(format) : null,
  };
  if (custom_alias !== undefined && !branded && isReservedAlias(custom_alias)) {
    const renamed = renameReserved === null ? null : `${renameReserved}-${custom_alias}`;
    if (renamed === null || !isCodeShaped(renamed) || isReservedAlias(renamed)) {
      return { ok: false, row: raw, error: reservedCodeRefusal(custom_alias) };
    }
    value.alias = renamed;
    value.renamedFrom = custom_alias;
  }
  return { ok: true, value };
}
