// Data directories migrated before the baseline migration: one that ran the whole chain the baseline
// replaced is adopted (the baseline and the views recorded, nothing run, no view re-created unless its
// file changed since) and ends with the schema of a database migrated from nothing; one that ran part
// of it is refused. The old chain is no longer in the tree, so such a database is made from a new one:
// its schema_migrations rewritten to the old chain's versions and its views' bookkeeping taken away.
import { randomUUID } from "node:crypto";
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BASELINE_FILE,
  BASELINE_VERSION,
  PRE_BASELINE_MIGRATIONS,
  PRE_BASELINE_VIEWS,
} from "../src/baseline-adoption.ts";
import { createClickHouse, type KurzClickHouse, MIGRATIONS_DIR, migrate } from "../src/index.ts";
import {
  readViewDefinitions,
  VIEW_DEFINITIONS_DIR,
  VIEW_DEFINITIONS_TABLE,
} from "../src/view-definitions.ts";

const prefix = `t_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
const opened: KurzClickHouse[] = [];
let tempDir = "";

async function migratedDatabase(name: string): Promise<KurzClickHouse> {
  const ch = await createClickHouse({ path: ":memory:", database: `${prefix}_${name}` });
  opened.push(ch);
  await migrate(ch);
  return ch;
}

/** Makes a migrated database look as the first `ran` migrations of the old chain left it. */
async function asBeforeTheBaseline(ch: KurzClickHouse, ran: number): Promise<void> {
  await ch.command("TRUNCATE TABLE schema_migrations");
  await ch.insert(
    "schema_migrations",
    [...PRE_BASELINE_MIGRATIONS]
      .slice(0, ran)
      .map(([version, name]) => ({ version, name, checksum: "0".repeat(64) })),
  );
  await ch.command(`DROP TABLE ${VIEW_DEFINITIONS_TABLE}`);
}

/** Every table and view as ClickHouse would create it again, the database's name left out. */
async function schema(ch: KurzClickHouse): Promise<Record<string, string>> {
  const rows = await ch.query<{ name: string; create_table_query: string }>(
    "SELECT name, create_table_query FROM system.tables WHERE database = currentDatabase() ORDER BY name",
  );
  return Object.fromEntries(
    rows.map((row) => [row.name, row.create_table_query.replaceAll(ch.database, "db")]),
  );
}

/** The migrations written after the baseline, which an adopted database runs like any other. */
const afterBaseline = async () =>
  (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith(".sql") && f > BASELINE_FILE).sort();

const versions = async (ch: KurzClickHouse) =>
  (await ch.query<{ version: number }>("SELECT version FROM schema_migrations FINAL ORDER BY version")).map(
    (row) => row.version,
  );

let fresh: KurzClickHouse;

beforeAll(async () => {
  fresh = await migratedDatabase("fresh");
  tempDir = await mkdtemp(join(tmpdir(), "kurz-ch-adoption-"));
});

afterAll(async () => {
  for (const ch of opened) {
    await ch.command(`DROP DATABASE IF EXISTS ${ch.database}`);
    await ch.close();
  }
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

describe("a database that ran every migration the baseline replaced", () => {
  it("is adopted without running a migration or re-creating a view, and has a fresh database's schema", async () => {
    const ch = await migratedDatabase("adopted");
    await asBeforeTheBaseline(ch, PRE_BASELINE_MIGRATIONS.size);
    // A view changed since the chain ran is the only one re-created (none, while the files are as it
    // left them).
    const changedSince = (await readViewDefinitions())
      .filter((d) => PRE_BASELINE_VIEWS.get(d.name) !== d.checksum)
      .map((d) => d.name);

    const result = await migrate(ch);

    const later = await afterBaseline();
    expect(result.applied).toEqual(later);
    expect(result.views.sort()).toEqual(changedSince.sort());
    expect(await versions(ch)).toEqual([
      ...PRE_BASELINE_MIGRATIONS.keys(),
      BASELINE_VERSION,
      ...later.map((f) => Number(f.slice(0, 4))),
    ]);
    expect(await schema(ch)).toEqual(await schema(fresh));
    expect(await migrate(ch)).toEqual({ applied: [], views: [] });
  });

  it("re-creates the views whose files changed since that chain ran", async () => {
    const ch = await migratedDatabase("adopted_edit");
    await asBeforeTheBaseline(ch, PRE_BASELINE_MIGRATIONS.size);
    const definitions = join(tempDir, "edited");
    await cp(VIEW_DEFINITIONS_DIR, definitions, { recursive: true });
    const file = join(definitions, "link_hourly_mv.sql");
    await writeFile(file, `-- edited\n${await readFile(file, "utf8")}`);

    // The edited one, and those the tree has changed since the chain ran.
    const changedInTree = (await readViewDefinitions())
      .filter((d) => PRE_BASELINE_VIEWS.get(d.name) !== d.checksum)
      .map((d) => d.name);

    const result = await migrate(ch, { definitions });

    expect(result.views.sort()).toEqual([...new Set([...changedInTree, "link_hourly_mv"])].sort());
  });
});

describe("a database that ran part of the chain the baseline replaced", () => {
  it("is refused with what to do, and left as it was", async () => {
    const ch = await migratedDatabase("partial");
    await asBeforeTheBaseline(ch, 5);

    await expect(migrate(ch)).rejects.toThrow(
      new RegExp(
        `ran 5 of the 10 migrations that ${BASELINE_FILE} replaced \\(missing: ` +
          "0006_click_message_token\\.sql and 4 more\\).*check out the parent of the commit that added .*" +
          "git log --diff-filter=A",
        "s",
      ),
    );

    expect(await versions(ch)).toEqual([1, 2, 3, 4, 5]);
  });
});
