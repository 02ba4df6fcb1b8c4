// `pnpm --filter @kurz/clickhouse run migration:from-definitions <view>... [--name <migration_name>]`:
// writes migrations/<next number>_<migration_name>.sql, which re-creates the named views from their
// files under definitions/, after you have edited them. See packages/clickhouse/README.md.
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { VIEW_DEFINITIONS_DIR, writeMigrationFromViewDefinitions } from "../src/view-definitions.ts";

const { values, positionals } = parseArgs({
  options: { name: { type: "string" } },
  allowPositionals: true,
});
if (positionals.length === 0) {
  console.error(
    "usage: pnpm --filter @kurz/clickhouse run migration:from-definitions <view>... [--name <migration_name>]",
  );
  process.exit(2);
}
try {
  const file = await writeMigrationFromViewDefinitions({
    names: positionals,
    ...(values.name ? { migrationName: values.name } : {}),
  });
  console.log(
    `wrote ${relative(join(VIEW_DEFINITIONS_DIR, ".."), file)}. Review it (a changed view may need a backfill of ` +
      "the clicks already stored); services apply it when they start.",
  );
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
