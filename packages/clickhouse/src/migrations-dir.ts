import { fileURLToPath } from "node:url";

// Its own module (`@kurz/clickhouse/migrations-dir`) so that naming the migrations does not load chDB.
export const MIGRATIONS_DIR = fileURLToPath(new URL("../migrations/", import.meta.url));
