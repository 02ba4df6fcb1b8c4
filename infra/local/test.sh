#!/usr/bin/env bash
# Runs every check: types, lint, then all vitest projects (unit, integration, end-to-end).
# Extra arguments go to vitest (e.g. ./kurz test packages/bus).
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .data
status=0

if [ $# -eq 0 ]; then
  echo "== typecheck"
  pnpm exec turbo run typecheck --output-logs=errors-only || status=1
  echo "== lint"
  pnpm exec biome check --reporter=summary . || status=1
fi

echo "== tests"
pnpm exec vitest run --reporter=default --reporter=json --outputFile.json=.data/test-results.json "$@" || status=1

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
exit $status
