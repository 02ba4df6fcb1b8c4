// The metric names a PromQL expression reads, so tests can check that every alert and dashboard panel
// refers to a series the services expose (a renamed metric would otherwise leave a silent panel).

const KEYWORDS = new Set([
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "and",
  "or",
  "unless",
  "bool",
  "offset",
]);

export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // strings
    .replace(/\{[^}]*\}/g, "") // label matchers
    .replace(/\[[^\]]*\]/g, "") // ranges
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ""); // grouping labels
  const names = new Set<string>();
  for (const m of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const after = stripped.slice(m.index + m[0].length).trimStart();
    if (after.startsWith("(") || KEYWORDS.has(m[0])) continue; // a function or an operator
    names.add(m[0]);
  }
  return [...names];
}

/** The names a scrape's samples stand for: `x_bucket`, `x_sum` and `x_count` are also `x`'s. */
export function withHistogramBases(names: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const n of names) {
    out.add(n);
    const base = /^(.*)_(?:bucket|sum|count)$/.exec(n)?.[1];
    if (base) out.add(base);
  }
  return out;
}
