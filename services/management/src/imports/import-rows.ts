// A raw import row checked against the same rules as POST /links (contracts' CreateLinkBody: its
// expiry and link password rules included), with import-friendly readings: a title cut to the stored
// maximum, a date-time without a zone (`2031-01-01 12:00:00`, as SQL dumps and spreadsheets write it)
// read as UTC, and the code the peer made kept under the import code rule (contracts' ImportCode:
// YOURLS' 1-character keywords, Kutt's `_` and edge hyphens) rather than the API's alias rule. A code
// that is one of Kurz's own paths (isReservedAlias) is kept on a branded domain, renamed with the
// job's rename_reserved prefix, or refused with what to do.
import { CreateLinkBody, ImportCode, isCodeShaped, isReservedAlias, TITLE_MAX_LENGTH } from "@kurz/contracts";
import { summarizeIssues } from "@kurz/service-kit";
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
}

/** What a job does with a code that is one of Kurz's own paths. */
export interface CodeOptions {
  /** The job's links live on a branded domain, where Kurz's paths are the domain's own. */
  branded: boolean;
  /** Keep such a code as `<prefix>-<code>`; null: refuse its row. */
  renameReserved: string | null;
}

const ON_PUBLIC_HOST: CodeOptions = { branded: false, renameReserved: null };

/** The import's own reading of CreateLinkBody: the code as its peer made it. */
const ImportRowBody = CreateLinkBody.extend({ custom_alias: ImportCode.optional() });

export const reservedCodeRefusal = (code: string) =>
  `custom_alias: "${code}" is one of Kurz's own paths on the public host; import onto a branded domain ` +
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

export function checkImportRow(raw: RawImportRow, codes: CodeOptions = ON_PUBLIC_HOST): CheckedRow {
  if (raw.url === undefined) return { ok: false, row: raw, error: "url: missing" };
  const parsed = ImportRowBody.safeParse({
    url: raw.url,
    custom_alias: raw.alias,
    title: raw.title?.slice(0, TITLE_MAX_LENGTH),
    password: raw.password,
    expires_at: asUtcExpiry(raw.expires_at),
  });
  if (!parsed.success) return { ok: false, row: raw, error: summarizeIssues(parsed.error.issues) };
  const { url, custom_alias, title, password, expires_at } = parsed.data;
  const expiresAt = expires_at === undefined ? null : new Date(expires_at);
  const value: ValidImportRow = { row: raw.row, url, alias: custom_alias, title, expiresAt, password };
  if (custom_alias !== undefined && !codes.branded && isReservedAlias(custom_alias)) {
    const renamed = codes.renameReserved === null ? null : `${codes.renameReserved}-${custom_alias}`;
    if (renamed === null || !isCodeShaped(renamed) || isReservedAlias(renamed)) {
      return { ok: false, row: raw, error: reservedCodeRefusal(custom_alias) };
    }
    value.alias = renamed;
    value.renamedFrom = custom_alias;
  }
  return { ok: true, value };
}
