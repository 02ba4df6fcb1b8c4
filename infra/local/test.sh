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
# timers and child processes, so the two cores have room (./kurz test in minutes); in a whole
# run they follow the first lane's tests (below). Their output is held back and printed after the tests'.
# The Prisma client is generated once, here, and not again during the run (db's vitest globalSetup
# and db's typecheck script would otherwise rewrite it while workers and tsc read it).
gen=packages/db/src/generated/prisma
if [ ! -d "$gen" ] || [ packages/db/prisma/schema.prisma -nt "$gen" ]; then
  pnpm --filter @kurz/db run --silent generate >/dev/null && touch "$gen"
fi
export KURZ_PRISMA_CLIENT_GENERATED=1
checks=()
# One tsc program over every package (the root tsconfig.json; every package's own config has the
# same options), where one tsc per package, as `turbo run typecheck` does, checks the shared packages
# again for each. A package's own `typecheck` script still checks that package alone. TypeScript 7's
# native compiler, single-threaded because the cores are the tests' (about 8 s of CPU; 5.9 took 45).
tsc7=node_modules/typescript-7/bin/tsc
run_checks() {
  ( s=$SECONDS; rc=0
    "$tsc7" -p tsconfig.json --singleThreaded >>.data/typecheck.log 2>&1 || rc=1
    # The dashboard's sources are browser code (DOM library, Preact JSX): their own program.
    "$tsc7" -p services/web/tsconfig.json --singleThreaded >>.data/typecheck.log 2>&1 || rc=1
    echo $rc >.data/typecheck.rc; echo $((SECONDS - s)) >.data/typecheck.secs ) &
  local tsc=$!
  ( s=$SECONDS; pnpm exec biome check --reporter=summary . >.data/lint.log 2>&1
    echo $? >.data/lint.rc; echo $((SECONDS - s)) >.data/lint.secs )
  wait "$tsc"
}

# Lanes beside the main vitest. The projects whose files run one at a time
# (fileParallelism: false in their vitest.config.ts: the dashboard's browser tests, the chaos suite's
# scaled stacks) would otherwise form a group of their own that vitest starts only after every other
# file, and run on alone at the end. A whole run therefore gives each lane a vitest of its own beside
# the main one, output held back like typecheck's; a lane's entries run one after another. A run with
# coverage stays one vitest, so that its report covers every file.
# - The chaos suite runs beside the others, not alone after them: its analytics consumer keeps up with
#   the load it counts there because its ingest inserts a run of messages at once (decision 0049), and
#   the tests take 325-357 s on a clean clone, against 448 with the chaos suite last.
# - One lane, the dashboard's tests then the chaos suite, rather than one each: the first three
#   minutes keep both cores busy and the main vitest's last ones do not, so the chaos suite's stacks
#   do better there (clean clones: main vitest 325 s, against 333 and 344 s with two lanes).
# - Tried and not kept: services/management in the dashboard's lane, on two workers, before the chaos
#   suite (the main vitest ended at 337 s) and after it (338 s): the main vitest's end did not move.
# - packages/db (the Prisma CLI and its schema engine, one file after another) follows the chaos suite:
#   the machine is busy to the last percent until the lane ends and the main vitest's last minutes are
#   not (80-95%), so moving it out of the main vitest shortens the run (clean clones, one host: 664 s
#   against 736 s).
# - The memory-floor test (infra/local/memory-floor.test.ts: a whole stack at its memory floor under
#   load, in a 1 GB memory cgroup) runs last in the lane, before typecheck and lint, when the main
#   vitest is in its last minutes; the main vitest leaves that file out.
# An entry is a project directory, optionally ":" and the files of it to run (comma-separated); an
# entry without files takes its project out of the main vitest, one with files takes only those.
lanes=("services/web tests/chaos packages/db infra:local/memory-floor.test.ts")
lane_pids=()
rm -f .data/test-results-*.json .data/test-serial-*
# An entry's name in .data: services-web, tests-chaos-faults.
own_name() {
  local name=${1%%:*}
  name=${name//\//-}
  [[ $1 == *:* ]] && name="$name-$(basename "${1##*/}" .test.ts)"
  echo "$name"
}
# Runs one entry in a vitest of its own, results to .data/test-results-<name>.json.
run_own() {
  local dir=${1%%:*} files=() name s=$SECONDS
  [[ $1 == *:* ]] && IFS=, read -ra files <<<"${1#*:}"
  name=$(own_name "$1")
  # Its own results cache (the sequencer's durations): vitest processes writing one file would each
  # put back the others' stale entries.
  KURZ_TEST_MEMORY_FLOOR=1 KURZ_VITEST_PROJECTS="$dir" KURZ_VITEST_CACHE_DIR="node_modules/.vite/$name" pnpm exec vitest run \
    --reporter=default --reporter=json --outputFile.json=".data/test-results-$name.json" "${files[@]}" \
    >".data/test-serial-$name.log" 2>&1
  echo $? >".data/test-serial-$name.rc"; echo $((SECONDS - s)) >".data/test-serial-$name.secs"
  echo $((SECONDS - started)) >".data/test-serial-$name.end"
}
# Prints a run_own's output and merges its results into .data/test-results.json.
report_own() {
  local name
  name=$(own_name "$1")
  echo "== tests of ${1/:/: }, in a lane beside the main vitest ($(cat ".data/test-serial-$name.secs") s, ended at $(cat ".data/test-serial-$name.end") s)"
  cat ".data/test-serial-$name.log"
  [ "$(cat ".data/test-serial-$name.rc")" = 0 ] || status=1
  # One results file for whoever reads it (the summary below, CI): every run's files together.
  node -e '
const fs = require("fs");
const read = (f) => JSON.parse(fs.readFileSync(f, "utf8"));
const a = read(".data/test-results.json");
let b;
try { b = read(process.argv[1]); } catch { process.exit(0); } // its log above says why
for (const [k, v] of Object.entries(b)) if (typeof v === "number" && typeof a[k] === "number" && k !== "startTime") a[k] += v;
a.startTime = Math.min(a.startTime, b.startTime);
a.success = a.success && b.success;
a.testResults.push(...b.testResults);
fs.writeFileSync(".data/test-results.json", JSON.stringify(a));
' ".data/test-results-$name.json" || status=1
}
run_lane=0
lane_files=()
if [ $# -eq 0 ] && [ ${#coverage[@]} -eq 0 ] && [ "${KURZ_TEST_ONE_VITEST:-}" != "1" ]; then
  run_lane=1
  all="packages/*,services/*,infra,tests/*"
  for lane in "${lanes[@]}"; do
    for entry in $lane; do
      if [[ $entry == *:* ]]; then
        IFS=, read -ra files <<<"${entry#*:}"
        for f in "${files[@]}"; do lane_files+=(--exclude "${entry%%:*}/$f"); done
      else
        [[ ",$all," == *",!$entry,"* ]] || all="$all,!$entry"
      fi
    done
  done
  # Typecheck and lint follow the first lane's tests: by then the cores have room (the first three
  # minutes or so keep both busy, the main vitest's last ones do not).
  first=1
  for lane in "${lanes[@]}"; do
    ( for entry in $lane; do run_own "$entry"; done
      [ $first = 1 ] && run_checks ) &
    lane_pids+=($!)
    first=0
  done
  export KURZ_VITEST_PROJECTS="$all"
elif [ $# -eq 0 ]; then
  run_checks &
  checks+=($!)
fi

echo "== tests"
pnpm exec vitest run --reporter=default --reporter=json --outputFile.json=.data/test-results.json \
  "${lane_files[@]}" "${coverage[@]}" "$@" || status=1
echo "== main vitest ended at $((SECONDS - started)) s"
if [ $run_lane = 1 ]; then
  for pid in "${lane_pids[@]}"; do wait "$pid"; done
  for lane in "${lanes[@]}"; do
    for entry in $lane; do report_own "$entry"; done
  done
fi
tests_secs=$((SECONDS - started))

for pid in "${checks[@]}"; do wait "$pid"; done
if [ $# -eq 0 ]; then
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
// A file that failed outside its tests (a beforeAll, an import) counts as one failure: its tests never
// ran, and numFailedTests alone would say 0.
const failedFiles = r.testResults.filter(
  (f) => f.status === "failed" && !f.assertionResults.some((t) => t.status === "failed"),
).length;
const failed = r.numFailedTests + failedFiles;
const note = failedFiles > 0 ? ` (${failedFiles} of them a file that failed outside its tests)` : "";
// The failures by name last, beside the totals: CI may keep only the tail of a long output.
for (const file of r.testResults) {
  const where = file.name.replace(process.cwd() + "/", "");
  const tests = file.assertionResults.filter((t) => t.status === "failed");
  if (file.status === "failed" && tests.length === 0) console.log(`failed: ${where}: ${(file.message || "").split("\n")[0]}`);
  for (const t of tests) console.log(`failed: ${where} > ${t.fullName}: ${(t.failureMessages[0] || "").split("\n")[0].slice(0, 300)}`);
}
console.log(`tests: ${r.numPassedTests} passed, ${failed} failed${note}, ${skipped} skipped`);
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
