// The files under definitions/ are the views: a migrated database has exactly the views the files
// create (so no migration creates one behind their back), and `migrate` re-creates a view when, and
// only when, its file changes. ClickHouse compares them in its own words (system.tables'
// create_table_query, the query as ClickHouse formats it), so the files' comments and layout are free.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KurzClickHouse } from "../src/index.ts";
import {
  applyViewDefinitions,
  consumersFirst,
  readViewDefinitions,
  VIEW_DEFINITIONS_DIR,
  VIEW_DEFINITIONS_TABLE,
  type ViewDefinition,
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

const recorded = (ch: KurzClickHouse) =>
  ch.query<{ name: string; checksum: string }>(
    `SELECT name, checksum FROM ${VIEW_DEFINITIONS_TABLE} FINAL ORDER BY name`,
  );

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

/** A copy of definitions/ to edit; `edit` maps a file under it to its new text. */
async function definitionsCopy(name: string, edit: Record<string, (sql: string) => string> = {}) {
  const dir = join(tempDir, name);
  await cp(VIEW_DEFINITIONS_DIR, dir, { recursive: true });
  for (const [file, change] of Object.entries(edit)) {
    await writeFile(join(dir, file), change(await readFile(join(dir, file), "utf8")));
  }
  return dir;
}

const EDITED_QUERY = (sql: string) => sql.replace("countIf(is_bot = 1)", "countIf(is_bot = 2)");

describe("a migrated database and definitions/", () => {
  it("have the same views (add a file under definitions/ for a view a migration created)", async () => {
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
          ? { ...definition, statement: EDITED_QUERY(definition.statement) }
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

describe("applyViewDefinitions", () => {
  it("re-creates nothing while the files are as last applied, and a view again once its file changes", async () => {
    const ch = chdb();
    const before = await recorded(ch);
    expect(before.map((row) => row.name)).toEqual((await readViewDefinitions()).map((d) => d.name));

    expect(await applyViewDefinitions(ch, await definitionsCopy("same"))).toEqual([]);

    const edited = await definitionsCopy("edited", { "link_hourly_mv.sql": EDITED_QUERY });
    expect(await applyViewDefinitions(ch, edited)).toEqual(["link_hourly_mv"]);
    expect((await views(ch)).link_hourly_mv).toContain("countIf(is_bot = 2)");
    expect(await applyViewDefinitions(ch, edited)).toEqual([]);

    // Back to the package's files: the one that differs from them is re-created.
    expect(await applyViewDefinitions(ch)).toEqual(["link_hourly_mv"]);
    expect(await views(ch)).toEqual(migrated);
    expect(await recorded(ch)).toEqual(before);
  });

  it("names a failing file, and re-creates its view on the next run", async () => {
    const ch = chdb();
    const broken = await definitionsCopy("broken", {
      "link_hourly_mv.sql": (sql) => sql.replace("FROM click_feed", "FROM no_such_table"),
    });

    await expect(applyViewDefinitions(ch, broken)).rejects.toThrow(
      /link_hourly_mv\.sql failed: .*no_such_table/,
    );

    expect(await applyViewDefinitions(ch)).toEqual(["link_hourly_mv"]);
    expect(await views(ch)).toEqual(migrated);
  });

  it("forgets a view whose file is gone, and applies it again once the file is back", async () => {
    const ch = chdb();
    const dir = await definitionsCopy("gone");
    await rm(join(dir, "link_stats_day_mv.sql"));

    expect(await applyViewDefinitions(ch, dir)).toEqual([]);
    expect((await recorded(ch)).map((row) => row.name)).not.toContain("link_stats_day_mv");

    expect(await applyViewDefinitions(ch)).toEqual(["link_stats_day_mv"]);
    expect(await views(ch)).toEqual(migrated);
  });
});

describe("consumersFirst", () => {
  it("creates a view after every view that reads the table it writes into", async () => {
    const order = consumersFirst(await readViewDefinitions()).map((d) => d.name);

    const before = (a: string, b: string) => expect(order.indexOf(a)).toBeLessThan(order.indexOf(b));
    before("link_hourly_mv", "click_feed_mv");
    before("link_stats_rows_mv", "click_feed_mv");
    before("link_daily_from_hourly_mv", "link_hourly_mv");
    before("link_stats_day_mv", "link_stats_rows_mv");
    expect(order.at(-1)).toBe("click_feed_mv");
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
