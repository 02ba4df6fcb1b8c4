// The files under definitions/ are the current views: a database migrated from nothing has exactly the
// views the files create. ClickHouse compares them in its own words (system.tables'
// create_table_query, the query as ClickHouse formats it), so the files' comments and layout are free.
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type KurzClickHouse, MIGRATIONS_DIR, migrate } from "../src/index.ts";
import {
  readViewDefinitions,
  type ViewDefinition,
  writeMigrationFromViewDefinitions,
} from "../src/view-definitions.ts";
import { useMigratedChDb } from "./migrated-chdb.ts";

/** View name → its CREATE statement as ClickHouse stores it. */
type Views = Record<string, string>;

async function views(ch: KurzClickHouse): Promise<Views> {
  const rows = await ch.query<{ name: string; create_table_query: string }>(
    `SELECT name, create_table_query FROM system.tables
     WHERE database = currentDatabase() AND engine IN ('View', 'MaterializedView', 'LiveView', 'WindowView')
     ORDER BY name`,
  );
  return Object.fromEntries(rows.map((row) => [row.name, row.create_table_query]));
}

/** Drops every view of the database and creates the definitions' in their place. */
async function viewsFromDefinitions(ch: KurzClickHouse, definitions: ViewDefinition[]): Promise<Views> {
  for (const name of Object.keys(await views(ch))) await ch.command(`DROP VIEW IF EXISTS ${name}`);
  for (const definition of definitions) await ch.command(definition.statement);
  return views(ch);
}

const chdb = useMigratedChDb();
let migrated: Views = {};
let tempDir = "";

beforeAll(async () => {
  migrated = await views(chdb());
  tempDir = await mkdtemp(join(tmpdir(), "kurz-ch-definitions-"));
});

afterAll(async () => {
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

describe("definitions/ and migrations/", () => {
  it("make the same views (edit the definition file, then run migration:from-definitions)", async () => {
    const definitions = await readViewDefinitions();

    const fromDefinitions = await viewsFromDefinitions(chdb(), definitions);

    expect(Object.keys(migrated).length).toBeGreaterThan(0);
    expect(fromDefinitions).toEqual(migrated);
  });

  it("are told apart when a query changes or a definition is missing", async () => {
    const definitions = await readViewDefinitions();
    const changed = definitions.find((definition) => definition.name === "link_hourly_mv")!;
    const missing = definitions.find((definition) => definition.name === "link_stats_day_mv")!;
    const edited = definitions
      .filter((definition) => definition !== missing)
      .map((definition) =>
        definition === changed
          ? {
              ...definition,
              statement: definition.statement.replace("countIf(is_bot = 1)", "countIf(is_bot = 2)"),
            }
          : definition,
      );

    const fromEdited = await viewsFromDefinitions(chdb(), edited);

    expect(Object.keys(migrated).filter((name) => fromEdited[name] !== migrated[name])).toEqual([
      "link_hourly_mv",
      "link_stats_day_mv",
    ]);
    expect(await viewsFromDefinitions(chdb(), definitions)).toEqual(migrated);
  });
});

describe("writeMigrationFromViewDefinitions", () => {
  it("writes the next migration, which migrate applies and which leaves the views as they are", async () => {
    const migrationsDir = join(tempDir, "migrations");
    await mkdir(migrationsDir);
    const existing = (await readdir(MIGRATIONS_DIR)).filter((file) => file.endsWith(".sql")).sort();
    for (const file of existing) await copyFile(join(MIGRATIONS_DIR, file), join(migrationsDir, file));
    const next = String(Number(existing.at(-1)!.slice(0, 4)) + 1).padStart(4, "0");

    const file = await writeMigrationFromViewDefinitions({
      names: ["link_hourly_mv", "click_feed_mv"],
      migrationName: "hourly_and_feed",
      migrationsDir,
    });

    expect(file).toBe(join(migrationsDir, `${next}_hourly_and_feed.sql`));
    const sql = await readFile(file, "utf8");
    expect(sql.indexOf("DROP VIEW IF EXISTS link_hourly_mv;")).toBeLessThan(
      sql.indexOf("DROP VIEW IF EXISTS click_feed_mv;"),
    );
    expect(await migrate(chdb(), migrationsDir)).toEqual({ applied: [`${next}_hourly_and_feed.sql`] });
    expect(await views(chdb())).toEqual(migrated);
  });

  it("names a single view's migration after it, and refuses unknown names and unnamed batches", async () => {
    const migrationsDir = join(tempDir, "named");
    await mkdir(migrationsDir);
    await writeFile(join(migrationsDir, "0007_seven.sql"), "SELECT 1");

    const file = await writeMigrationFromViewDefinitions({ names: ["link_stats_hour_mv"], migrationsDir });

    expect(file).toBe(join(migrationsDir, "0008_link_stats_hour_mv.sql"));
    await expect(writeMigrationFromViewDefinitions({ names: ["nope_mv"], migrationsDir })).rejects.toThrow(
      /no definition named nope_mv; there are: .*link_hourly_mv/,
    );
    await expect(
      writeMigrationFromViewDefinitions({ names: ["link_hourly_mv", "click_feed_mv"], migrationsDir }),
    ).rejects.toThrow(/--name/);
  });
});

describe("readViewDefinitions", () => {
  it("refuses a file that is not one CREATE … VIEW IF NOT EXISTS of the view it is named for", async () => {
    const cases = {
      "no-if-not-exists": "CREATE MATERIALIZED VIEW a_mv TO t AS SELECT 1",
      "other-name": "-- why\nCREATE VIEW IF NOT EXISTS b_mv AS SELECT 1",
      "two-statements": "CREATE VIEW IF NOT EXISTS a_mv AS SELECT 1;\nDROP TABLE t;",
    };
    for (const [folder, sql] of Object.entries(cases)) {
      const dir = join(tempDir, folder);
      await mkdir(dir);
      await writeFile(join(dir, "a_mv.sql"), sql);

      await expect(readViewDefinitions(dir), folder).rejects.toThrow(
        /a_mv\.sql must be one statement: CREATE \[MATERIALIZED\] VIEW IF NOT EXISTS a_mv/,
      );
    }
  });
});
