// CSV for exports (RFC 4180): every field quoted, quotes doubled, CRLF line ends. A field that a
// spreadsheet would read as a formula (=, +, -, @, tab, CR first) is prefixed with a quote mark, so an
// exported visitor's text can never run as a formula in the owner's spreadsheet (OWASP "CSV injection").
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvField(value: string | number | null): string {
  if (value === null) return '""';
  let text = String(value);
  if (typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

export function toCsv(
  header: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number | null>>,
): string {
  return `${[header, ...rows].map((row) => row.map(csvField).join(",")).join("\r\n")}\r\n`;
}
