export { ChdbPathLockedError } from "./chdb-lock.ts";
export {
  CHDB_LIBRARY_FILE,
  type ClickHouseOptions,
  createClickHouse,
  DEFAULT_CHDB_PATH,
  DEFAULT_DATABASE,
  type KurzClickHouse,
  PINNED_SETTINGS,
  type QueryParams,
  type TabSeparatedInsert,
} from "./create-clickhouse.ts";
export { MIGRATIONS_DIR, type MigrateDirs, type MigrateResult, migrate } from "./migrate.ts";
export { VIEW_DEFINITIONS_DIR } from "./view-definitions.ts";
