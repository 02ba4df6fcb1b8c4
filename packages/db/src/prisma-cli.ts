import { spawn } from "node:child_process";
import { PACKAGE_DIR, PRISMA_CLI, schemaEngineEnv } from "../engine/schema-engine-env.mjs";

export interface PrismaCliResult {
  code: number | null;
  /** stdout and stderr interleaved, as a person would have seen them. */
  output: string;
}

/** Runs the Prisma CLI from this package (so it finds prisma.config.ts) against `databaseUrl`. */
export function runPrismaCli(args: string[], databaseUrl: string): Promise<PrismaCliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PRISMA_CLI, ...args], {
      cwd: PACKAGE_DIR,
      env: {
        ...process.env,
        ...schemaEngineEnv(),
        DATABASE_URL: databaseUrl,
        PRISMA_HIDE_UPDATE_MESSAGE: "1",
        // The CLI's telemetry ping would wait on a network that may not exist.
        CHECKPOINT_DISABLE: "1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}
