// A raw import row checked against the same rules as POST /links (contracts' CreateLinkBody), with
// import-friendly readings: any date Date.parse accepts, a title cut to the stored maximum.
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

export function checkImportRow(raw: RawImportRow): CheckedRow {
  if (raw.url === undefined) return { ok: false, row: raw, error: "url: missing" };
  let expiresAt: Date | null = null;
  if (raw.expires_at !== undefined) {
    const ms = Date.parse(raw.expires_at);
    if (Number.isNaN(ms)) return { ok: false, row: raw, error: "expires_at: not a date" };
    expiresAt = new Date(ms);
  }
  const parsed = CreateLinkBody.safeParse({
    url: raw.url,
    custom_alias: raw.alias,
    title: raw.title?.slice(0, TITLE_MAX_LENGTH),
    password: raw.password,
  });
  if (!parsed.success) return { ok: false, row: raw, error: summarizeIssues(parsed.error.issues) };
  const { url, custom_alias, title, password } = parsed.data;
  return { ok: true, value: { row: raw.row, url, alias: custom_alias, title, expiresAt, password } };
}
