// CSV output shared by the exports and the import error report: RFC 4180 quoting, and cells that a
// spreadsheet would run as a formula (starting with = + - @, tab or CR) prefixed with `'` (OWASP's
// advice on CSV injection). Management's importer removes that quote again (docs/import-export.md).
const FORMULA_START = /^[=+\-@\t\r]/;

/** `quoteAll`: every cell quoted, empty ones included (files whose documented form quotes every field). */
export function csvCell(value: unknown, quoteAll = false): string {
  if (value === null || value === undefined) return quoteAll ? '""' : "";
  let s =
    typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
  if (typeof value === "string" && FORMULA_START.test(s)) s = `'${s}`;
  return quoteAll || /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replaceAll('"', '""')}"` : s;
}

export const csvLine = (cells: readonly unknown[], { quoteAll = false } = {}) =>
  `${cells.map((cell) => csvCell(cell, quoteAll)).join(",")}\r\n`;
