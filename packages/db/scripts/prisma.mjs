#!/usr/bin/env node
// `pnpm --filter @kurz/db prisma <args>`: the Prisma CLI with a schema engine that works on this machine.
import { spawnSync } from "node:child_process";
import { PACKAGE_DIR, PRISMA_CLI, schemaEngineEnv } from "../engine/schema-engine-env.mjs";

const env = {
  DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/kurz",
  ...process.env,
  ...schemaEngineEnv(),
  PRISMA_HIDE_UPDATE_MESSAGE: "1",
};
const { status, error } = spawnSync(process.execPath, [PRISMA_CLI, ...process.argv.slice(2)], {
  cwd: PACKAGE_DIR,
  env,
  stdio: "inherit",
});
if (error) throw error;
process.exit(status ?? 1);
