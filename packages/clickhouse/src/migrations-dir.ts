import { fileURLToPath } from "node:url";

// Its own module (`@kurz/clickhouse/migrations-dir`) so that naming the migrations and the view
// definitions does not load chDB.
export const MIGRATIONS_DIR = fileURLToPath(new URL("../migrations/", import.meta.url));
export const VIEW_DEFINITIONS_DIR = fileURLToPath(new URL("../definitions/", import.meta.url));
