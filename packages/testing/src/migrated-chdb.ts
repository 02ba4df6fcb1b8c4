// A chDB data directory with every ClickHouse migration and view applied, for the test stacks and the
// tests that need the schema: a copy of a template migrated once per set of migrations, view
// definitions and chDB version, as migrated-database.ts does for Postgres. Applying the migrations to
// an empty engine cost each stack about 0.6 s of CPU and 1.3–2 s of wall time on a slower host (some
// sixty engines a run); a copy costs about 0.1 s. packages/clickhouse's own tests still migrate for
// real.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { KurzClickHouse } from "@kurz/clickhouse";
import { MIGRATIONS_DIR, VIEW_DEFINITIONS_DIR } from "@kurz/clickhouse/migrations-dir";
import { filesKey } from "./files-key.ts";

const root = resolve(import.meta.dirname, "../../..");
const BUILDER = join(import.meta.dirname, "migrated-chdb-build.ts");
/** The database the services use when CLICKHOUSE_DATABASE is not set (services/analytics/src/config.ts). */
export const CHDB_DATABASE = "kurz";

/**
 * The migrations, the view definitions and the chDB package that reads them (pnpm's path to it names
 * its version and its peers', which decide the on-disk format): the template's name.
 */
function templateKey(): string {
  return filesKey(
    MIGRATIONS_DIR,
    filesKey(VIEW_DEFINITIONS_DIR),
    createRequire(join(MIGRATIONS_DIR, "..", "package.json")).resolve("chdb"),
  );
}

// In the clone's own .data (as the services' bundles), not the system's temporary directory, whose
// cleaner may delete a long-unused template's files one by one and leave a broken one behind.
const TEMPLATES_DIR = join(root, ".data", "chdb-templates");

/** Each templates directory's template, as this process last found or built it. */
const templates = new Map<string, Promise<string>>();

/**
 * The template's directory under `dir`, built if missing. Built in a child process: chDB opens one
 * data directory per process, and the caller may have one open (an in-process stack). Processes that
 * build at once each rename their own finished copy into place; the first wins and the others discard
 * theirs, so a half-built template is never seen.
 */
export function migratedChdbTemplate(dir = TEMPLATES_DIR): Promise<string> {
  let template = templates.get(dir);
  if (template) return template;
  template = (async () => {
    const key = templateKey();
    const path = join(dir, key);
    if (isDirectory(path)) return path;
    mkdirSync(dir, { recursive: true });
    const building = mkdtempSync(`${path}.building-`);
    try {
      await promisify(execFile)(process.execPath, ["--import", "tsx", BUILDER, building, CHDB_DATABASE], {
        cwd: root,
        timeout: 120_000,
      });
      renameSync(building, path);
    } catch (err) {
      if (!isDirectory(path)) throw err;
    } finally {
      rmSync(building, { recursive: true, force: true });
    }
    // Templates of earlier migrations are not used again in this clone.
    for (const entry of readdirSync(dir)) {
      if (entry !== key && !entry.includes(".building-"))
        rmSync(join(dir, entry), { recursive: true, force: true });
    }
    return path;
  })();
  templates.set(dir, template);
  // A failed build is retried by the next caller rather than remembered.
  template.catch(() => templates.delete(dir));
  return template;
}

export interface MigratedChdb {
  /** The data directory, for CLICKHOUSE_PATH or createClickHouse's `path` (database CHDB_DATABASE). */
  path: string;
  /** Deletes the directory; close whatever has it open first. */
  remove(): void;
}

/**
 * A fresh copy of the template: a data directory of its own, every migration applied. A template
 * deleted since this process found it (`rm -rf .data` during a run) is built again.
 */
export async function migratedChdb(templatesDir = TEMPLATES_DIR): Promise<MigratedChdb> {
  const dir = mkdtempSync(join(tmpdir(), "kurz-chdb-"));
  const path = join(dir, "data");
  const remove = () => rmSync(dir, { recursive: true, force: true });
  for (let attempt = 1; ; attempt++) {
    const source = await migratedChdbTemplate(templatesDir);
    try {
      // The template's table links are relative (data/<db>/<table> -> ../../store/...): kept as they
      // are, they point into the copy.
      cpSync(source, path, { recursive: true, verbatimSymlinks: true });
      return { path, remove };
    } catch (err) {
      rmSync(path, { recursive: true, force: true });
      if (attempt > 1 || isDirectory(source)) {
        remove();
        throw err;
      }
      templates.delete(templatesDir);
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A client on a fresh copy, in this process; closing it deletes the copy. */
export async function openMigratedChdb(): Promise<KurzClickHouse> {
  const copy = await migratedChdb();
  // Imported here, not at the top: the process stacks name the template without loading chDB.
  const { createClickHouse } = await import("@kurz/clickhouse");
  const ch = await createClickHouse({ path: copy.path, database: CHDB_DATABASE }).catch((err: unknown) => {
    copy.remove();
    throw err;
  });
  return {
    ...ch,
    async close() {
      try {
        await ch.close();
      } finally {
        copy.remove();
      }
    },
  };
}
