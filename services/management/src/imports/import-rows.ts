// A raw import row checked against the same rules as POST /links (contracts' CreateLinkBody: its
// expiry and link password rules included), with import-friendly readings: a title cut to the stored
// maximum, and a date-time without a zone (`2031-01-01 12:00:00`, as SQL dumps and spreadsheets write
// it) read as UTC.
import { CreateLinkBody, TITLE_MAX_LENGTH } from "@kurz/contracts";
import { summarizeIssues } from "@kurz/service-kit";
import type { RawImportRow } from "./import-file.ts";

export interface ValidImportRow {
  row: number;
  url: string;
  alias?: string;
  title?: string;
  expiresAt: Date | null;
  password?: string;
}

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

export function checkImportRow(raw: RawImportRow): CheckedRow {
  if (raw.url === undefined) return { ok: false, row: raw, error: "url: missing" };
  const parsed = CreateLinkBody.safeParse({
    url: raw.url,
    custom_alias: raw.alias,
    title: raw.title?.slice(0, TITLE_MAX_LENGTH),
    password: raw.password,
    expires_at: asUtcExpiry(raw.expires_at),
  });
  if (!parsed.success) return { ok: false, row: raw, error: summarizeIssues(parsed.error.issues) };
  const { url, custom_alias, title, password, expires_at } = parsed.data;
  const expiresAt = expires_at === undefined ? null : new Date(expires_at);
  return { ok: true, value: { row: raw.row, url, alias: custom_alias, title, expiresAt, password } };
}
