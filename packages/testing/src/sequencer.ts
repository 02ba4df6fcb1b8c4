// Test files in the order that finishes a whole run soonest on few cores: longest first, across all
// projects. Vitest's own order runs the projects one after another by name, so the stack suites
// (tests/e2e, tests/security), among the slowest files, started last and ran on with idle workers
// beside them. Durations come from vitest's cache of the previous run; a file it has not seen (a fresh
// clone) is weighed by what it boots, from the path, then by size, as vitest does.
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Files that boot processes (whole stacks, the Prisma CLI, services from their bundles) take
// tens of seconds; these weights only order them ahead of files that do not.
// Measured on a fresh clone: the Kafka suite (consumer-group joins on the mock broker) takes ~35 s,
// and the services' handler tests (an in-process stack each) seconds, not milliseconds. First match
// wins. The analytics consumer-group files (50-70 s: group joins and restarts on the mock broker) and
// the management files that spawn the CLI or wait for a fresh rate-limit minute (~20 s), the db files
// that run the Prisma CLI most and the infra files that start a PostgreSQL server or a whole stack are
// named so that they start among the first: weighed as ordinary files of their project, they would
// start in the last two minutes and run on with idle workers beside them.
const SLOW_WHEN_UNSEEN: [RegExp, number][] = [
  [/^services\/analytics\/test\/(kafka-group-faults|consumer-restart)\.test\.ts$/, 60_000],
  [/^tests\/(security|e2e)\//, 60_000],
  [/^packages\/db\/test\/(migrate-database|baseline-adoption)\.test\.ts$/, 30_000],
  [/^services\/analytics\/test\/(crash-mid-commit|read-your-writes)\.test\.ts$/, 20_000],
  [/^services\/management\/test\/legacy-(overlays|rate-limit)\.test\.ts$/, 20_000],
  [/^packages\/bus\/test\/kafka/, 30_000],
  [/^infra\/local\/(up-stop|test-postgres)\.test\.ts$/, 15_000],
  [/^services\/redirect\/test\//, 15_000],
  [/^packages\/(db|service-kit|bus)\/test\//, 15_000],
  [/^services\/(analytics|management|gateway)\/test\//, 3_000],
];

// Files of a project whose workers run file after file (isolate: false, most projects: decision 0011)
// share a worker only when they come one after another: vitest hands a finished worker the next file
// in the queue if that file is of the same project, and otherwise stops the worker and forks a new one
// (vitest 4.1, its pool's schedule()). Longest-first across all projects would interleave them, so
// a whole run would keep few workers (vitest's summed import 62 s where one project alone shares almost
// all of it). Files are therefore ordered by a class of weight (a factor of two of the measured duration;
// on a fresh clone, what they boot), then by project, then longest first.
const weightClass = (ms: number) => Math.floor(Math.log2(Math.max(ms, 1)));

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const weigh = (spec: TestSpecification): { cls: number; ms: number } => {
      const path = relative(root, spec.moduleId);
      const key = `${spec.project.name}:${path}`;
      const seen = this.ctx.cache.getFileTestResults(key);
      // Failed files first, as vitest does: the quickest news of a regression.
      if (seen) {
        const ms = seen.duration + (seen.failed ? 1e9 : 0);
        return { cls: weightClass(ms), ms };
      }
      const slow = SLOW_WHEN_UNSEEN.find(([pattern]) => pattern.test(path))?.[1] ?? 0;
      return { cls: weightClass(slow), ms: slow + (this.ctx.cache.getFileStats(key)?.size ?? 0) / 10 };
    };
    const weights = new Map(files.map((f) => [f, weigh(f)]));
    return [...files].sort((a, b) => {
      const [wa, wb] = [weights.get(a)!, weights.get(b)!];
      return wb.cls - wa.cls || a.project.name.localeCompare(b.project.name) || wb.ms - wa.ms;
    });
  }
}
