// A raw import row checked against the same rules as POST /links (contracts' CreateLinkBody: its
// expiry and link password rules included), with one import-friendly reading: a title cut to the
// stored maximum.
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
  const parsed = CreateLinkBody.safeParse({
    url: raw.url,
    custom_alias: raw.alias,
    title: raw.title?.slice(0, TITLE_MAX_LENGTH),
    password: raw.password,
    expires_at: raw.expires_at,
  });
  if (!parsed.success) return { ok: false, row: raw, error: summarizeIssues(parsed.error.issues) };
  const { url, custom_alias, title, password, expires_at } = parsed.data;
  const expiresAt = expires_at === undefined ? null : new Date(expires_at);
  return { ok: true, value: { row: raw.row, url, alias: custom_alias, title, expiresAt, password } };
}
