// Reads an uploaded import file into plain rows (docs/import-export.md): CSV (Kurz's own columns, any
// header case or order, extra columns ignored) and the export files of Bitly, Shlink, Kutt and YOURLS
// (its API's JSON, a CSV of its table, or the table dumped by MySQL/MariaDB: mysql-dump.ts).
// Nothing here validates a row's values; that is import-rows.ts. A file that cannot be read at all
// throws ImportFileError with a message for the person who uploaded it.
import type { ImportFormat } from "@kurz/contracts";
import { IMPORT_MAX_ROWS } from "@kurz/contracts";
import { parse as parseCsv } from "csv-parse/sync";
import { dumpRecords, yourlsDumpDialect } from "./mysql-dump.ts";

/** One record of the file, as its source spelled it; `row` is 1-based among the records. */
export interface RawImportRow {
  row: number;
  url?: string;
  alias?: string;
  title?: string;
  expires_at?: string;
  password?: string;
  /**
   * The source marks the link password-protected but does not give the password (Kutt's JSON says
   * `"password": true`): the link is created inactive, for its owner to set a password (import-batch.ts).
   */
  passwordWithheld?: true;
}

export class ImportFileError extends Error {}

/** Header names compared without case, spaces, `_` or `-`: "Long URL", "long_url" and "longUrl" match. */
const norm = (header: string) => header.toLowerCase().replace(/[^a-z0-9]/g, "");

type Field = Exclude<keyof RawImportRow, "row" | "passwordWithheld">;
/** Per field, the headers that carry it, best first. Short-URL columns give their last path segment. */
const COLUMNS: Record<Field, readonly string[]> = {
  url: ["url", "originalurl", "longurl", "target", "destination", "destinationurl"],
  alias: ["alias", "customalias", "shortcode", "keyword", "backhalf", "slug", "address"],
  title: ["title", "name", "description"],
  expires_at: ["expiresat", "expires", "expiry", "validuntil", "expirein"],
  password: ["password"],
};
const SHORT_URL_COLUMNS = ["shorturl", "bitlink", "shortlink", "link", "id"];

/** `https://bit.ly/abc` or `bit.ly/abc` → `abc`. */
export function codeOfShortUrl(value: string): string | undefined {
  const path =
    value
      .trim()
      .replace(/^[a-z]+:\/\//i, "")
      .split(/[?#]/)[0] ?? "";
  const segments = path.split("/").filter(Boolean);
  return segments.length > 1 ? segments[segments.length - 1] : undefined;
}

/**
 * Exports write a leading `'` before a cell starting with = + - @ (formula neutralising, as ours
 * does); importing it back removes that quote so a round trip keeps the value.
 */
const unquoteFormula = (value: string) => (/^'[=+\-@\t\r]/.test(value) ? value.slice(1) : value);

const text = (value: unknown): string | undefined => {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  const s = String(value).trim();
  return s === "" ? undefined : s;
};

/** `exported`: the file came from an export that neutralises formulas (not a database dump). */
function rowsFromRecords(records: Record<string, unknown>[], exported: boolean): RawImportRow[] {
  if (records.length > IMPORT_MAX_ROWS) {
    throw new ImportFileError(`The file has ${records.length} rows; at most ${IMPORT_MAX_ROWS} per import.`);
  }
  return records.map((record, i) => {
    const byName = new Map<string, unknown>();
    for (const [key, value] of Object.entries(record)) {
      const k = norm(key);
      if (!byName.has(k))
        byName.set(k, exported && typeof value === "string" ? unquoteFormula(value) : value);
    }
    const row: RawImportRow = { row: i + 1 };
    for (const field of Object.keys(COLUMNS) as Field[]) {
      for (const name of COLUMNS[field]) {
        const value = text(byName.get(name));
        if (value !== undefined) {
          row[field] = value;
          break;
        }
      }
    }
    // A JSON `true` where the password goes says only that one is set; a string is the password itself.
    if (row.password === undefined && byName.get("password") === true) row.passwordWithheld = true;
    if (row.alias === undefined) {
      for (const name of SHORT_URL_COLUMNS) {
        const value = text(byName.get(name));
        const code = value === undefined ? undefined : codeOfShortUrl(value);
        if (code !== undefined) {
          row.alias = code;
          break;
        }
      }
    }
    return row;
  });
}

/** The header line's most frequent of `,` `;` and tab (spreadsheets in many locales write `;`). */
function delimiterOf(content: string): string {
  const header = content.replace(/^\uFEFF/, "").split(/\r?\n/, 1)[0] ?? "";
  const counts = [",", ";", "\t"].map((d) => [d, header.split(d).length - 1] as const);
  return counts.reduce((best, c) => (c[1] > best[1] ? c : best))[0];
}

function readCsv(content: string): Record<string, unknown>[] {
  let records: Record<string, unknown>[];
  try {
    records = parseCsv(content, {
      delimiter: delimiterOf(content),
      columns: (header: string[]) => header.map((h) => h.trim()),
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
      max_record_size: 64 * 1024,
    });
  } catch (err) {
    const where = (err as { lines?: number }).lines;
    throw new ImportFileError(
      `The file is not valid CSV${where ? ` (near line ${where})` : ""}: ${(err as Error).message}`,
    );
  }
  return records;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The top-level values of a text holding several JSON documents one after another, as saving each
 * page of an API's answer into one file makes (`curl … >> all.json`, `cat page-*.json`); undefined
 * when the text is not a sequence of objects and arrays.
 */
export function splitJsonDocuments(content: string): string[] | undefined {
  const docs: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < content.length; i++) {
    const c = content[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      if (depth === 0) return undefined;
      inString = true;
    } else if (c === "{" || c === "[") {
      if (depth++ === 0) start = i;
    } else if (c === "}" || c === "]") {
      if (--depth < 0) return undefined;
      if (depth === 0) docs.push(content.slice(start, i + 1));
    } else if (depth === 0 && !/[\s\uFEFF,]/.test(c ?? "")) {
      return undefined;
    }
  }
  return depth === 0 ? docs : undefined;
}

/**
 * Pages of one export joined into one document of the same shape: Kutt's and Kurz's
 * `{ data: [...] }`, Shlink's `{ shortUrls: { data: [...] } }`, YOURLS's `{ links: { link_1: … } }`.
 * `pages` is what the file held: several documents, or one JSON array of page objects.
 */
function joinPages(pages: unknown[]): unknown {
  if (pages.length === 0 || !pages.every(isRecord)) return pages;
  if (pages.every((p) => Array.isArray(p.data))) return { data: pages.flatMap((p) => p.data as unknown[]) };
  if (pages.every((p) => isRecord(p.shortUrls) && Array.isArray(p.shortUrls.data)))
    return { shortUrls: { data: pages.flatMap((p) => (p.shortUrls as { data: unknown[] }).data) } };
  if (pages.every((p) => isRecord(p.links))) {
    const links = pages.flatMap((p) => Object.values(p.links as Record<string, unknown>));
    return { links: Object.fromEntries(links.map((link, i) => [`link_${i + 1}`, link])) };
  }
  return pages;
}

/** The file's JSON, with saved pages of an export (several documents or an array of pages) joined. */
function readJson(content: string): unknown {
  let doc: unknown;
  try {
    doc = JSON.parse(content);
  } catch (err) {
    const docs = splitJsonDocuments(content);
    if (!docs || docs.length < 2) {
      throw new ImportFileError(`The file is not valid JSON: ${(err as Error).message}`);
    }
    doc = docs.map((text, i) => {
      try {
        return JSON.parse(text);
      } catch (inner) {
        throw new ImportFileError(
          `JSON document ${i + 1} of the file is not valid: ${(inner as Error).message}`,
        );
      }
    });
  }
  return Array.isArray(doc) ? joinPages(doc) : doc;
}

/** The list of link objects inside each source's JSON (API responses or saved pages of them). */
function jsonRecords(format: ImportFormat, doc: unknown): Record<string, unknown>[] {
  const list = (value: unknown): Record<string, unknown>[] | undefined =>
    Array.isArray(value) ? value.filter(isRecord) : undefined;
  let records: Record<string, unknown>[] | undefined;
  if (format === "shlink") {
    // GET /rest/v3/short-urls answers { shortUrls: { data: [...] } }; a bare array of them also works.
    const inner = isRecord(doc) && isRecord(doc.shortUrls) ? doc.shortUrls.data : doc;
    records = list(isRecord(inner) ? inner.data : inner)?.map((r) => ({
      ...r,
      validUntil: isRecord(r.meta) ? r.meta.validUntil : undefined,
    }));
  } else if (format === "kutt") {
    // GET /api/v2/links answers { data: [...], total, limit, skip }.
    records = list(isRecord(doc) ? doc.data : doc);
  } else if (format === "yourls") {
    // yourls-api.php?action=stats&format=json answers { links: { link_1: {...}, ... }, stats }.
    const links = isRecord(doc) ? doc.links : undefined;
    records = isRecord(links) ? Object.values(links).filter(isRecord) : list(links ?? doc);
  } else {
    records = list(isRecord(doc) ? (doc.data ?? doc.links) : doc);
  }
  if (!records) throw new ImportFileError(`The JSON file does not hold a list of ${format} links.`);
  return records;
}

const looksJson = (content: string) => /^\s*[[{]/.test(content);

/** Guesses the source from the content: JSON shapes first, then the CSV header. */
export function detectFormat(content: string): ImportFormat {
  if (looksJson(content)) {
    const doc = readJson(content);
    if (isRecord(doc) && isRecord(doc.shortUrls)) return "shlink";
    if (isRecord(doc) && isRecord(doc.links)) return "yourls";
    const items = Array.isArray(doc) ? doc : isRecord(doc) && Array.isArray(doc.data) ? doc.data : [];
    const first = items.find(isRecord);
    if (first && "target" in first && "address" in first) return "kutt";
    if (first && "longUrl" in first) return "shlink";
    if (first && "shorturl" in first) return "yourls";
    throw new ImportFileError("This JSON file is not a Shlink, Kutt or YOURLS export; choose a format.");
  }
  if (yourlsDumpDialect(content)) return "yourls";
  const firstLine = content.replace(/^\uFEFF/, "").split(/\r?\n/, 1)[0] ?? "";
  const headers = new Set(firstLine.split(/[,;\t]/).map((h) => norm(h.replace(/^"|"$/g, ""))));
  if (headers.has("keyword") && headers.has("url")) return "yourls";
  if (headers.has("longurl") && headers.has("shorturl")) return "shlink";
  if (headers.has("longurl") && (headers.has("bitlink") || headers.has("link") || headers.has("id")))
    return "bitly";
  return "csv";
}

/** The rows of `content` read as `format` (detected when "auto"). */
export function readImportFile(
  data: Buffer,
  requested: ImportFormat | "auto",
): { format: ImportFormat; rows: RawImportRow[] } {
  const content = data.toString("utf8");
  if (content.includes("\u0000")) throw new ImportFileError("The file is binary, not CSV or JSON.");
  const format = requested === "auto" ? detectFormat(content) : requested;
  const dump = format === "yourls" && !looksJson(content) ? yourlsDumpDialect(content) : undefined;
  const records = looksJson(content)
    ? jsonRecords(format, readJson(content))
    : dump
      ? dumpRecords(content, dump)
      : readCsv(content);
  if (records.length === 0) throw new ImportFileError("The file has no rows to import.");
  const rows = rowsFromRecords(records, dump === undefined);
  if (rows.every((r) => r.url === undefined)) {
    throw new ImportFileError(
      `No destination URL column found for format ${format}; see docs/import-export.md for the columns.`,
    );
  }
  return { format, rows };
}
