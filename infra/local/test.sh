#!/usr/bin/env bash
# Runs every check: types, lint, then all vitest projects (unit, integration, end-to-end).
# Extra arguments go to vitest (e.g. ./kurz test packages/bus). A first argument --coverage (or
# KURZ_COVERAGE=1) adds V8 line coverage, summed per package at the end (.data/coverage).
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .data
status=0
coverage=()
if [ "${1:-}" = "--coverage" ]; then shift; coverage=(--coverage); fi
if [ "${KURZ_COVERAGE:-}" = "1" ]; then coverage=(--coverage); fi

if [ $# -eq 0 ]; then
  echo "== typecheck"
  pnpm exec turbo run typecheck --output-logs=errors-only || status=1
  echo "== lint"
  pnpm exec biome check --reporter=summary . || status=1
fi

echo "== tests"
pnpm exec vitest run --reporter=default --reporter=json --outputFile.json=.data/test-results.json "${coverage[@]}" "$@" || status=1

# Which adapters the bus conformance suite ran on, then a plain closing line that any CI can read.
node -e '
const r = JSON.parse(require("fs").readFileSync(".data/test-results.json", "utf8"));
const suites = new Map();
for (const file of r.testResults) for (const t of file.assertionResults) {
  const suite = t.ancestorTitles.find((a) => /^conformance:|testcontainers/.test(a));
  if (!suite) continue;
  const s = suites.get(suite) ?? { passed: 0, failed: 0, skipped: 0 };
  s[t.status === "passed" ? "passed" : t.status === "failed" ? "failed" : "skipped"]++;
  suites.set(suite, s);
}
for (const [name, s] of suites) console.log(`${name}: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`);
const skipped = r.numPendingTests + r.numTodoTests;
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
' || status=1
# Line coverage per workspace package, from vitest's json-summary.
if [ ${#coverage[@]} -gt 0 ] && [ -f .data/coverage/coverage-summary.json ]; then
  node -e '
const summary = JSON.parse(require("fs").readFileSync(".data/coverage/coverage-summary.json", "utf8"));
const packages = new Map();
for (const [file, s] of Object.entries(summary)) {
  const name = /\/((?:packages|services)\/[^/]+)\//.exec(file)?.[1];
  if (!name) continue;
  const p = packages.get(name) ?? { covered: 0, total: 0 };
  p.covered += s.lines.covered;
  p.total += s.lines.total;
  packages.set(name, p);
}
console.log("line coverage per package:");
for (const [name, p] of [...packages].sort())
  console.log(`  ${name.padEnd(24)} ${((100 * p.covered) / (p.total || 1)).toFixed(1).padStart(5)}%  (${p.covered}/${p.total} lines)`);
const t = summary.total.lines;
console.log(`  ${"total".padEnd(24)} ${t.pct.toFixed(1).padStart(5)}%  (${t.covered}/${t.total} lines)`);
' || status=1
fi
exit $status
