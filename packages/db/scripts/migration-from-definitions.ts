// `pnpm --filter @kurz/db run migration:from-definitions <name>... [--name <migration_name>]`: writes
// prisma/migrations/<timestamp>_<migration_name>/migration.sql from the named definition files under
// sql/ (functions and triggers), after you have edited them. See packages/db/README.md.
import { relative } from "node:path";
import { parseArgs } from "node:util";
import { PACKAGE_DIR } from "../engine/schema-engine-env.mjs";
import { writeMigrationFromDefinitions } from "../src/sql-definitions.ts";

const { values, positionals } = parseArgs({
  options: { name: { type: "string" } },
  allowPositionals: true,
});
if (positionals.length === 0) {
  console.error(
    "usage: pnpm --filter @kurz/db run migration:from-definitions <function or trigger>... [--name <migration_name>]",
  );
  process.exit(2);
}
try {
  const file = await writeMigrationFromDefinitions({
    names: positionals,
    ...(values.name ? { migrationName: values.name } : {}),
    now: new Date(),
  });
  console.log(
    `wrote ${relative(PACKAGE_DIR, file)}. Review it: a function whose arguments or result type changed needs a ` +
      "DROP FUNCTION of the old one first. Then run pnpm db:migrate.",
  );
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
