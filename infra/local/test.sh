#!/usr/bin/env bash
# Runs every check: all vitest projects (unit, integration, end-to-end), with types and lint beside them.
# Extra arguments go to vitest (e.g. ./kurz test packages/bus). A first argument --coverage (or
# KURZ_COVERAGE=1) adds V8 line coverage, summed per package at the end (.data/coverage).
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .data
status=0
coverage=()
if [ "${1:-}" = "--coverage" ]; then shift; coverage=(--coverage); fi
if [ "${KURZ_COVERAGE:-}" = "1" ]; then coverage=(--coverage); fi

started=$SECONDS
rm -f .data/typecheck.log .data/lint.log
# Typecheck and lint run beside the tests, not before them: test files mostly wait on Postgres, Redis,
# timers and child processes, so the two cores have room (issue 15: ./kurz test in minutes). Their
# output is held back and printed after the tests' own.
# The Prisma client is generated once, here, and not again during the run (db's vitest globalSetup
# and db's typecheck script would otherwise rewrite it while workers and tsc read it).
gen=packages/db/src/generated/prisma
if [ ! -d "$gen" ] || [ packages/db/prisma/schema.prisma -nt "$gen" ]; then
  pnpm --filter @kurz/db run --silent generate >/dev/null && touch "$gen"
fi
export KURZ_PRISMA_CLIENT_GENERATED=1
checks=()
if [ $# -eq 0 ]; then
  # One tsc program over every package (the root tsconfig.json; every package's own config has the
  # same options): 20 s of CPU, where one tsc per package, as `turbo run typecheck` does, took ~240 s
  # beside the tests. A package's own `typecheck` script still checks that package alone.
  ( s=$SECONDS; rc=0
    node_modules/.bin/tsc -p tsconfig.json >>.data/typecheck.log 2>&1 || rc=1
    # The dashboard's sources are browser code (DOM library, Preact JSX): their own program.
    node_modules/.bin/tsc -p services/web/tsconfig.json >>.data/typecheck.log 2>&1 || rc=1
    echo $rc >.data/typecheck.rc; echo $((SECONDS - s)) >.data/typecheck.secs ) &
  checks+=($!)
  ( s=$SECONDS; pnpm exec biome check --reporter=summary . >.data/lint.log 2>&1
    echo $? >.data/lint.rc; echo $((SECONDS - s)) >.data/lint.secs ) &
  checks+=($!)
fi

echo "== tests"
pnpm exec vitest run --reporter=default --reporter=json --outputFile.json=.data/test-results.json "${coverage[@]}" "$@" || status=1
tests_secs=$((SECONDS - started))

for pid in "${checks[@]}"; do wait "$pid"; done
if [ ${#checks[@]} -gt 0 ]; then
  for step in typecheck lint; do
    echo "== $step ($(cat .data/$step.secs) s, beside the tests)"
    cat ".data/$step.log"
    [ "$(cat .data/$step.rc)" = 0 ] || { echo "$step failed"; status=1; }
  done
fi
echo "== time: tests $tests_secs s, all $((SECONDS - started)) s"

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
