#!/usr/bin/env node
// `pnpm --filter @kurz/db migrate:new <name>`: writes prisma/migrations/<timestamp>_<name>/migration.sql
// with the SQL that takes the committed migrations to schema.prisma. `prisma migrate dev` needs a shadow
// database "from an external factory" under the WASM schema engine and fails; `migrate diff` works
// (it builds its own shadow database from the migrations), so new migrations are made with it.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_DIR, PRISMA_CLI, schemaEngineEnv } from "../engine/schema-engine-env.mjs";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: pnpm --filter @kurz/db migrate:new <name>   (lower-case letters, digits, _)");
  process.exit(2);
}
const args = [
  PRISMA_CLI,
  "migrate",
  "diff",
  "--from-migrations",
  "prisma/migrations",
  "--to-schema",
  "prisma/schema.prisma",
  "--script",
];
const result = spawnSync(process.execPath, args, {
  cwd: PACKAGE_DIR,
  env: {
    DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/kurz",
    ...process.env,
    ...schemaEngineEnv(),
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
  },
  encoding: "utf8",
});
if (result.status !== 0) {
  process.stderr.write(result.stderr);
  process.exit(result.status ?? 1);
}
const sql = result.stdout.trim();
if (sql === "" || /^-- This is an empty migration\.?$/.test(sql)) {
  console.log("schema.prisma and the migrations agree: nothing to write");
  process.exit(0);
}
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const dir = join(PACKAGE_DIR, "prisma", "migrations", `${stamp}_${name}`);
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, "migration.sql"), `${sql}\n`);
console.log(
  `wrote ${join("prisma", "migrations", `${stamp}_${name}`, "migration.sql")}; review it, then run pnpm db:migrate`,
);
