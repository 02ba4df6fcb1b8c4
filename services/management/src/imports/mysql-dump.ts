// Reads the text dumps MySQL and MariaDB write of a table: the client's `--batch` output and
// `SELECT … INTO OUTFILE` (tab-separated by default, or `FIELDS TERMINATED BY ',' [OPTIONALLY]
// ENCLOSED BY '"'`). Neither is RFC 4180 CSV: a backslash escapes the next character (`\t`, `\n`,
// `\\`, `\"`, or a raw tab or newline after it), `""` is never doubled, and a bare `\N` is NULL. Read
// as CSV, a title with `"` breaks the file and `C:\\Users` stays doubled, hence this reader.

/** How a dump is laid out. `nullWord`: the text the client's `--batch` prints for NULL. */
export interface DumpDialect {
  separator: "\t" | ",";
  enclosed: boolean;
  header: boolean;
  nullWord?: string;
}

const UNESCAPE: Record<string, string> = { "0": "\0", b: "\b", n: "\n", r: "\r", t: "\t", Z: "\x1a" };

/** The records of `content` as `dialect` writes them; a NULL field is `null`. */
export function parseDump(
  content: string,
  dialect: Pick<DumpDialect, "separator" | "enclosed">,
): (string | null)[][] {
  const { separator, enclosed } = dialect;
  const records: (string | null)[][] = [];
  let record: (string | null)[] = [];
  let i = content.charCodeAt(0) === 0xfeff ? 1 : 0;
  const n = content.length;
  const atLineEnd = (at: number) =>
    at >= n || content[at] === "\n" || (content[at] === "\r" && content[at + 1] === "\n");
  while (i < n) {
    let value = "";
    let isNull = false;
    if (enclosed && content[i] === '"') {
      i++;
      while (i < n) {
        const c = content[i] as string;
        if (c === "\\" && i + 1 < n) {
          const next = content[i + 1] as string;
          value += UNESCAPE[next] ?? next;
          i += 2;
        } else if (c === '"' && content[i + 1] === '"') {
          value += '"';
          i += 2;
        } else if (c === '"' && (content[i + 1] === separator || atLineEnd(i + 1))) {
          i++;
          break;
        } else {
          value += c;
          i++;
        }
      }
    } else {
      if (
        content[i] === "\\" &&
        content[i + 1] === "N" &&
        (content[i + 2] === separator || atLineEnd(i + 2))
      ) {
        isNull = true;
        i += 2;
      }
      while (!isNull && i < n && content[i] !== separator && !atLineEnd(i)) {
        const c = content[i] as string;
        if (c === "\\" && i + 1 < n) {
          const next = content[i + 1] as string;
          value += UNESCAPE[next] ?? next;
          i += 2;
        } else {
          value += c;
          i++;
        }
      }
    }
    record.push(isNull ? null : value);
    if (content[i] === separator) {
      i++;
      if (i >= n) record.push("");
      continue;
    }
    // End of line (or of the file): `\n`, or `\r\n` when the file went through Windows.
    i += content[i] === "\r" ? 2 : 1;
    records.push(record);
    record = [];
  }
  return records;
}

const KEYWORD_URL = (names: string[]) => {
  const set = new Set(names.map((h) => h.toLowerCase().trim()));
  return set.has("keyword") && set.has("url");
};

/** YOURLS's `yourls_url` columns in table order, which a header-less `INTO OUTFILE` dump follows. */
export const YOURLS_COLUMNS = ["keyword", "url", "title", "timestamp", "ip", "clicks"] as const;

/** A first record shaped like a `yourls_url` row: keyword, URL, title, `YYYY-MM-DD hh:mm:ss`, ip, clicks. */
const isYourlsRow = (fields: (string | null)[] | undefined) =>
  fields !== undefined &&
  fields.length === YOURLS_COLUMNS.length &&
  /^[a-z][a-z0-9+.-]*:\/\//i.test(fields[1] ?? "") &&
  /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(fields[3] ?? "") &&
  /^\d+$/.test(fields[5] ?? "");

/** Where a comma-separated file shows MySQL's escaping: `\N`, `\"`, `\\`, or `\` before a newline. */
const MYSQL_ESCAPES = /(^|,)\\N(,|\r?\n|$)|\\["\\]|\\\r?\n/m;

/**
 * The dialect of a YOURLS table dump, or undefined for anything else (a Kurz, Bitly or plugin CSV,
 * whose backslashes are plain characters). A tab-separated file with `keyword` and `url` headers is
 * the client's `--batch` output; a comma-separated one with those headers is a dump only where it
 * shows MySQL's escapes; a file without a header is a dump when its first record is a `yourls_url` row.
 */
export function yourlsDumpDialect(content: string): DumpDialect | undefined {
  const firstLine = content.replace(/^\uFEFF/, "").split(/\r?\n/, 1)[0] ?? "";
  if (KEYWORD_URL(firstLine.split("\t")))
    return { separator: "\t", enclosed: false, header: true, nullWord: "NULL" };
  if (KEYWORD_URL(firstLine.split(",").map((h) => h.replace(/^"|"$/g, "")))) {
    return MYSQL_ESCAPES.test(content) ? { separator: ",", enclosed: true, header: true } : undefined;
  }
  // Only the first record is needed; a title may hold escaped newlines, so take a generous prefix.
  const head = content.slice(0, 256 * 1024);
  for (const dialect of [
    { separator: "\t", enclosed: false, header: false },
    { separator: ",", enclosed: true, header: false },
  ] as const) {
    if (isYourlsRow(parseDump(head, dialect)[0])) return dialect;
  }
  return undefined;
}

/** The dump's records keyed by column name (the header's, or `yourls_url`'s); NULL leaves the key out. */
export function dumpRecords(content: string, dialect: DumpDialect): Record<string, string>[] {
  const records = parseDump(content, dialect).filter((r) => !(r.length === 1 && r[0] === ""));
  const header = dialect.header ? (records.shift() ?? []).map((h) => h ?? "") : [...YOURLS_COLUMNS];
  return records.map((fields) => {
    const record: Record<string, string> = {};
    header.forEach((name, i) => {
      const value = fields[i];
      // `--batch` prints NULL as the word NULL; of yourls_url's columns only the title can be NULL.
      const isNull =
        value === null || (dialect.nullWord !== undefined && name === "title" && value === dialect.nullWord);
      if (value !== undefined && !isNull) record[name] = value;
    });
    return record;
  });
}
