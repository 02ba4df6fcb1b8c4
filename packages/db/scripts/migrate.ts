// `pnpm db:migrate`: migrate deploy through migrateDatabase, which creates the database if needed and
// checks _prisma_migrations afterwards (the Prisma CLI can exit 0 when its schema engine has died).
import { migrateDatabase, parseDatabaseUrl } from "../src/index.ts";

const databaseUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/kurz";
try {
  await migrateDatabase(databaseUrl, { log: (text) => process.stdout.write(text) });
  console.log(`Database "${parseDatabaseUrl(databaseUrl).database}" is up to date.`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
