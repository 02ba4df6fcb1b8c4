/**
 * Splits a migration file into statements at `;` outside quotes and comments. The HTTP interface
 * of a ClickHouse server runs one statement per request, so a multi-statement file cannot be sent
 * whole. Knows ClickHouse's lexical forms that may contain `;`: '...' strings (backslash escapes
 * and doubled quotes), "..." and `...` identifiers, -- and # line comments, /* *\/ block comments.
 * Chunks holding only whitespace and comments are dropped.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let hasCode = false;
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    const next = sql[i + 1];
    if (ch === "'" || ch === '"' || ch === "`") {
      i = skipQuoted(sql, i, ch);
      hasCode = true;
    } else if ((ch === "-" && next === "-") || ch === "#") {
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end + 1;
    } else if (ch === "/" && next === "*") {
      const end = sql.indexOf("*/", i + 2);
      if (end === -1) throw new Error("Unterminated /* comment in SQL");
      i = end + 2;
    } else if (ch === ";") {
      if (hasCode) statements.push(sql.slice(start, i).trim());
      start = i + 1;
      hasCode = false;
      i++;
    } else {
      if (!/\s/.test(ch)) hasCode = true;
      i++;
    }
  }
  if (hasCode) statements.push(sql.slice(start).trim());
  return statements;
}

function skipQuoted(sql: string, open: number, quote: string): number {
  let i = open + 1;
  while (i < sql.length) {
    const ch = sql[i];
    if (ch === "\\") {
      i += 2;
    } else if (ch === quote) {
      if (sql[i + 1] !== quote) return i + 1;
      i += 2;
    } else {
      i++;
    }
  }
  throw new Error(`Unterminated ${quote} quote in SQL`);
}
