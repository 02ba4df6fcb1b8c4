// The chDB copies test stacks start from: every migration applied, each copy its own, gone once closed.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type KurzClickHouse, migrate } from "@kurz/clickhouse";
import { MIGRATIONS_DIR } from "@kurz/clickhouse/migrations-dir";
import { expect, it } from "vitest";
import { migratedChdb, migratedChdbTemplate, openMigratedChdb } from "../src/migrated-chdb.ts";

/** Opens a fresh copy, runs `use` on it, closes it (which deletes it). */
async function withCopy<T>(use: (ch: KurzClickHouse) => Promise<T>): Promise<T> {
  const ch = await openMigratedChdb();
  try {
    return await use(ch);
  } finally {
    await ch.close();
  }
}

const marked = async (ch: KurzClickHouse) => {
  const [row] = await ch.query<{ n: string }>(
    "SELECT count() AS n FROM schema_migrations WHERE version = 9999",
  );
  return Number(row?.n);
};

it("a copy has every migration and view applied, so migrating it applies nothing", async () => {
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith(".sql"));
  await withCopy(async (ch) => {
    expect(await migrate(ch)).toEqual({ applied: [], views: [] });
    const [row] = await ch.query<{ n: string }>("SELECT count() AS n FROM schema_migrations FINAL");
    expect(Number(row?.n)).toBe(files.length);
    const tables = await ch.query<{ name: string }>(
      "SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name",
    );
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(["clicks", "link_daily", "links"]));
  });
});

it("each copy is its own: a write to one is not in the next, and closing deletes it", async () => {
  const inFirst = await withCopy(async (ch) => {
    await ch.insert("schema_migrations", [{ version: 9999, name: "only_here", checksum: "x" }]);
    return marked(ch);
  });
  expect(inFirst).toBe(1);
  expect(await withCopy(marked)).toBe(0);
  // The path itself, as a stack gets it: gone after remove().
  const copy = await migratedChdb();
  expect(existsSync(copy.path)).toBe(true);
  copy.remove();
  expect(existsSync(copy.path)).toBe(false);
});

it("builds a template in a directory of its own, drops earlier ones, and builds it again once deleted", async () => {
  const dir = mkdtempSync(join(tmpdir(), "kurz-chdb-templates-test-"));
  try {
    mkdirSync(join(dir, "0123456789abcdef")); // a template of earlier migrations
    const first = await migratedChdb(dir);
    first.remove();
    const template = await migratedChdbTemplate(dir);
    expect(readdirSync(dir)).toEqual([template.slice(dir.length + 1)]);

    // Deleted under this process (as `rm -rf .data` during a run): the next copy builds it again.
    rmSync(template, { recursive: true, force: true });
    const second = await migratedChdb(dir);
    try {
      expect(existsSync(join(second.path, "metadata"))).toBe(true);
      expect(existsSync(template)).toBe(true);
    } finally {
      second.remove();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
