// A V8 CPU profile of each test file's worker time, for finding where a run's CPU goes: a setup file
// that vitest.stack.ts adds when KURZ_TEST_CPU_PROFILE_DIR names a directory. Node's own --cpu-prof
// writes nothing here, because vitest ends its forks with SIGTERM. A worker's profiler starts with
// its first file; each file's afterAll (the last to run, after the file's own stack has stopped)
// writes what was sampled since the previous file's and starts again, so a profile holds one file:
// `<pid>-<n>-<file>.cpuprofile`, readable by Chrome's DevTools or, a file at a time, infra/bench/_cpuprofile-summary.ts.
// Samples are wall-clock: a thread waiting for a core counts as running.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { basename, join } from "node:path";
import { afterAll, expect } from "vitest";

const dir = process.env.KURZ_TEST_CPU_PROFILE_DIR;
const state = globalThis as unknown as { kurzCpuProfile?: { session: Promise<Session>; files: number } };

if (dir) {
  state.kurzCpuProfile ??= {
    files: 0,
    session: (async () => {
      const session = new Session();
      session.connect();
      await session.post("Profiler.enable");
      await session.post("Profiler.setSamplingInterval", { interval: 1000 }); // µs
      await session.post("Profiler.start");
      return session;
    })(),
  };
  const profiling = state.kurzCpuProfile;
  const file = basename(expect.getState().testPath ?? "unknown");
  afterAll(async () => {
    const session = await profiling.session;
    const { profile } = await session.post("Profiler.stop");
    profiling.files += 1;
    writeFileSync(join(dir, `${process.pid}-${profiling.files}-${file}.cpuprofile`), JSON.stringify(profile));
    await session.post("Profiler.start");
  });
}
