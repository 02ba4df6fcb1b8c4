// The chDB copies test stacks start from: every migration applied, each copy its own, gone once closed.
import { existsSync, readdirSync } from "node:fs";
import { migrate } from "@kurz/clickhouse";
import { MIGRATIONS_DIR } from "@kurz/clickhouse/migrations-dir";
import { expect, it } from "vitest";
import { migratedChdb, openMigratedChdb } from "../src/migrated-chdb.ts";

it("a copy has every migration applied, so migrating it applies nothing", async () => {
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith(".sql"));
  const ch = await openMigratedChdb();
  try {
    expect((await migrate(ch)).applied).toEqual([]);
    const [row] = await ch.query<{ n: string }>("SELECT count() AS n FROM schema_migrations FINAL");
    expect(Number(row?.n)).toBe(files.length);
    const tables = await ch.query<{ name: string }>(
      "SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name",
    );
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(["clicks", "link_daily", "links"]));
  } finally {
    await ch.close();
  }
});

it("each copy is its own: a write to one is not in the next, and closing deletes it", async () => {
  const first = await openMigratedChdb();
  try {
    await first.insert("schema_migrations", [{ version: 9999, name: "only_here", checksum: "x" }]);
    const [row] = await first.query<{ n: string }>(
      "SELECT count() AS n FROM schema_migrations WHERE version = 9999",
    );
    expect(Number(row?.n)).toBe(1);
  } finally {
    await first.close();
  }
  const second = await openMigratedChdb();
  try {
    const [row] = await second.query<{ n: string }>(
      "SELECT count() AS n FROM schema_migrations WHERE version = 9999",
    );
    expect(Number(row?.n)).toBe(0);
  } finally {
    await second.close();
  }
  // The path itself, as a stack gets it: gone after remove().
  const copy = await migratedChdb();
  expect(existsSync(copy.path)).toBe(true);
  copy.remove();
  expect(existsSync(copy.path)).toBe(false);
});
