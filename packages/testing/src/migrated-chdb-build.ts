// Builds migrated-chdb.ts's template: `node --import tsx migrated-chdb-build.ts <empty dir> <database>`
// applies every ClickHouse migration and view there and closes the engine cleanly (a clean close leaves no
// lock file behind for the copies).
import { createClickHouse, migrate } from "@kurz/clickhouse";

const [path, database] = process.argv.slice(2);
if (!path || !database) throw new Error("usage: migrated-chdb-build.ts <dir> <database>");
const ch = await createClickHouse({ path, database });
try {
  await migrate(ch);
} finally {
  await ch.close();
}
