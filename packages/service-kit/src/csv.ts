// CSV output shared by the exports and the import error report: RFC 4180 quoting, and cells that a
// spreadsheet would run as a formula (starting with = + - @, tab or CR) prefixed with `'` (OWASP's
// advice on CSV injection). Management's importer removes that quote again (docs/import-export.md).
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let s =
    typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
  if (typeof value === "string" && FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replaceAll('"', '""')}"` : s;
}

export const csvLine = (cells: readonly unknown[]) => `${cells.map(csvCell).join(",")}\r\n`;
