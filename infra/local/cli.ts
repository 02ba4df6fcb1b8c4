// The admin CLI as `./kurz` runs it: management's CLI bundle (services/management/dist/cli.mjs, what
// the image runs: infra/build/bundle.ts) with the single-machine stack's settings (stack-env.ts), so
// an import next to `./kurz up` writes to the Postgres and Redis the stack serves from. Nothing is
// started: if the stack's Redis is not running, the CLI writes the database only and the stack
// rebuilds the Redis records on their first miss.
// The bundle is rebuilt first when a source it is made from is newer (infra/build/fresh.ts): a fresh
// clone's first call builds it, in a few seconds. It runs in a process of its own, without this one's
// TypeScript loader, which would compile its 10 MB again (~8 s of CPU, against ~2 s for the bundle).
import { spawn } from "node:child_process";
import { cliNodeArgs } from "../build/bundle.ts";
import { ensureFreshBundles } from "../build/fresh.ts";
import { localStackEnv } from "./stack-env.ts";

await ensureFreshBundles(["management"], {
  onBuild: () => console.error("kurz: building management's bundle from its sources (a few seconds)"),
});
const child = spawn(process.execPath, cliNodeArgs(process.argv.slice(2)), {
  stdio: "inherit",
  env: { ...process.env, ...localStackEnv(process.env) },
});
// A Ctrl-C reaches both processes (the terminal signals the whole foreground group); a signal sent to
// this one alone (a test's timeout, `kill`) is passed on. The CLI's exit is this process's exit.
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
for (const signal of SIGNALS) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else process.exit(code ?? 1);
});
