// Preloaded into every Node process of the stack `./kurz bench stack --profile` starts (NODE_OPTIONS
// --import), and active only in the service whose bundle path holds /KURZ_CPU_PROFILE_SERVICE/: the
// first SIGUSR2 starts V8's sampling profiler, the second stops it and writes
// KURZ_CPU_PROFILE_DIR/<service>-<pid>.cpuprofile (the format --cpu-prof writes), so the profile
// covers the load and nothing else. The other services run as without it. Plain ESM, because the
// services run from bundles without a TypeScript loader.
import { renameSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";

const dir = process.env.KURZ_CPU_PROFILE_DIR;
const service = process.env.KURZ_CPU_PROFILE_SERVICE;
if (dir && service && (process.argv[1] ?? "").includes(`/${service}/`)) {
  const session = new Session();
  session.connect();
  let running = false;
  process.on("SIGUSR2", async () => {
    if (!running) {
      running = true;
      await session.post("Profiler.enable");
      await session.post("Profiler.start");
      return;
    }
    running = false;
    const { profile } = await session.post("Profiler.stop");
    const file = join(dir, `${service}-${process.pid}.cpuprofile`);
    writeFileSync(`${file}.tmp`, JSON.stringify(profile));
    renameSync(`${file}.tmp`, file);
  });
}
