import { type ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_DIR, SCHEMA_ENGINE_SHIM } from "../engine/schema-engine-env.mjs";
import { dropDatabase, ensureDatabase } from "../src/index.ts";
import { uniqueDatabaseUrl } from "./databases.ts";

const run = promisify(execFile);
const databaseUrl = uniqueDatabaseUrl("shim");
const createdByShimUrl = uniqueDatabaseUrl("shim_created");
let tempDir = "";

beforeAll(async () => {
  await ensureDatabase(databaseUrl);
  tempDir = await mkdtemp(join(tmpdir(), "kurz-db-shim-"));
});

afterAll(async () => {
  await Promise.all([dropDatabase(databaseUrl), dropDatabase(createdByShimUrl)]);
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

/** Speaks to the shim the way the Prisma CLI does (SchemaEngineCLI): JSON-RPC lines over stdio. */
class EngineSession {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, (message: Record<string, unknown>) => void>();
  readonly printed: string[] = [];
  private nextId = 1;

  constructor(args: string[]) {
    this.child = spawn(process.execPath, [SCHEMA_ENGINE_SHIM, ...args], { cwd: PACKAGE_DIR });
    // A crashed engine must fail the pending calls, not leave them to time out.
    this.child.on("exit", (code) => {
      for (const resolve of this.waiting.values())
        resolve({ error: { message: `engine exited with ${code}` } });
      this.waiting.clear();
    });
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      const message = JSON.parse(line);
      if (message.method === "print") {
        this.printed.push(message.params.content);
        this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, result: {} })}\n`);
        return;
      }
      this.waiting.get(message.id)?.(message);
      this.waiting.delete(message.id);
    });
  }

  call(method: string, params: unknown): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  }

  close(): Promise<number | null> {
    return new Promise((resolve) => {
      this.child.on("exit", resolve);
      this.child.stdin.end();
    });
  }
}

const datasourceArgs = () => ["--datasource", JSON.stringify({ url: databaseUrl })];
const noFilters = { externalTables: [], externalEnums: [] };

describe("schema-engine shim", () => {
  it("reports the WASM engine's version", async () => {
    const { stdout } = await run(process.execPath, [SCHEMA_ENGINE_SHIM, "--version"]);
    expect(stdout).toMatch(/^schema-engine-cli [0-9a-f]{40} \(wasm shim\)/);
  });

  it("answers the CLI's one-shot database commands the way the native engine does", async () => {
    const cliArgs = (command: string) => [
      SCHEMA_ENGINE_SHIM,
      "--datasource",
      JSON.stringify({ url: createdByShimUrl }),
      "cli",
      command,
    ];
    const connect = run(process.execPath, cliArgs("can-connect-to-database"));
    // The CLI reads the error code from the JSON log lines after the first line of stderr.
    const failure = await connect.then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    const logged = (failure?.stderr ?? "")
      .split("\n")
      .slice(1)
      .map((line) => JSON.parse(line));
    expect(logged).toContainEqual(
      expect.objectContaining({ level: "ERROR", fields: expect.objectContaining({ error_code: "P1003" }) }),
    );

    await run(process.execPath, cliArgs("create-database"));

    await expect(run(process.execPath, cliArgs("can-connect-to-database"))).resolves.toBeDefined();
  });

  it("sends diff output through the CLI's print request and returns the exit code", async () => {
    const schemaPath = join(PACKAGE_DIR, "prisma", "schema.prisma");
    const session = new EngineSession(["--datamodels", schemaPath, ...datasourceArgs()]);

    const response = await session.call("diff", {
      from: { tag: "empty" },
      to: {
        tag: "schemaDatamodel",
        files: [{ path: schemaPath, content: await readFile(schemaPath, "utf8") }],
      },
      script: true,
      exitCode: true,
      filters: noFilters,
    });

    expect(response.result).toEqual({ exitCode: 2 });
    expect(session.printed.join("\n")).toMatch(/CREATE TABLE "links"/);
    expect(await session.close()).toBe(0);
  });

  it("applies a migration as one script, so semicolons inside bodies and comments survive", async () => {
    const baseDir = join(tempDir, "migrations");
    const script = [
      "-- a comment; with a semicolon",
      "CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL DEFAULT 'a;b');",
      "CREATE FUNCTION note_count() RETURNS bigint LANGUAGE plpgsql AS $$",
      "BEGIN RETURN (SELECT count(*) FROM notes); END;",
      "$$;",
    ].join("\n");
    const session = new EngineSession(datasourceArgs());

    const response = await session.call("applyMigrations", {
      migrationsList: {
        baseDir,
        lockfile: { path: "migration_lock.toml", content: 'provider = "postgresql"\n' },
        shadowDbInitScript: "",
        migrationDirectories: [
          {
            path: "20260101000000_notes",
            migrationFile: { path: "migration.sql", content: { tag: "ok", value: script } },
          },
        ],
      },
      filters: noFilters,
    });
    await session.close();

    expect(response.error).toBeUndefined();
    expect(response.result).toEqual({ appliedMigrationNames: ["20260101000000_notes"] });
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query("INSERT INTO notes (id) VALUES (1)");
      const { rows } = await client.query("SELECT note_count() AS n, (SELECT body FROM notes) AS body");
      expect(rows[0]).toEqual({ n: "1", body: "a;b" });
    } finally {
      await client.end();
    }
  });

  it("returns engine errors as JSON-RPC errors with Prisma's error code", async () => {
    const missing = uniqueDatabaseUrl("shim_missing");
    const session = new EngineSession(["--datasource", JSON.stringify({ url: missing })]);

    const response = await session.call("ensureConnectionValidity", {
      datasource: { tag: "ConnectionString", url: missing },
    });
    await session.close();

    expect(response.error).toMatchObject({ data: { is_panic: false, error_code: "P1003" } });
  });

  it("reports an engine panic as a panic and exits like the native engine", async () => {
    const session = new EngineSession(datasourceArgs());

    const response = await session.call("debugPanic", undefined);

    expect(response.error).toMatchObject({ data: { is_panic: true } });
    expect(await session.close()).toBe(101);
  });
});
