#!/usr/bin/env node
// Stands in for Prisma's native `schema-engine` binary where it cannot be downloaded (no network to
// binaries.prisma.sh). The Prisma CLI runs whatever PRISMA_SCHEMA_ENGINE_BINARY points at and talks to
// it the way it talks to the native engine (packages/migrate/src/SchemaEngineCLI.ts in prisma/prisma):
//   <bin> --version
//   <bin> --datasource <json> cli <can-connect-to-database|create-database|drop-database>
//   <bin> --datamodels <file>... --datasource <json>   then JSON-RPC 2.0, one message per line on stdio
// We answer the JSON-RPC calls with @prisma/schema-engine-wasm (the same engine compiled to WebAssembly)
// running over @prisma/adapter-pg. The CLI and the WASM package are internal Prisma APIs, so the
// versions are pinned in package.json; see docs/decisions/0002-prisma-wasm-schema-engine.md.
// KURZ_SHIM_DEBUG=1 writes every engine error object to stderr (shown by the CLI with
// DEBUG=prisma:schemaEngine*).
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory, ColumnTypeEnum } from "@prisma/driver-adapter-utils";
import pg from "pg";

// The JSON-RPC error code the native engine uses for every error it reports (json-rpc-api crate).
const ENGINE_ERROR_CODE = 4466;
const POSTGRES_DUPLICATE_DATABASE = "42P04";
const POSTGRES_INVALID_CATALOG_NAME = "3D000";
const POSTGRES_OBJECT_IN_USE = "55006";

function parseArgs(argv) {
  const args = { datamodels: [], datasource: undefined, cliCommand: undefined, version: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--version" || arg === "-V") args.version = true;
    else if (arg === "--datamodels") args.datamodels.push(argv[++i]);
    else if (arg === "--datasource") args.datasource = JSON.parse(argv[++i]);
    else if (arg === "--enabled-preview-features" || arg === "--extension-types") i++;
    else if (arg === "cli") args.cliCommand = argv[++i];
  }
  return args;
}

// The native engine logs JSON lines on stderr; the CLI parses them to find ERROR entries and their codes.
function logLine(level, fields) {
  return JSON.stringify({
    timestamp: new Date().toISOString(),
    level,
    fields,
    target: "schema_engine::logger",
  });
}

// Prisma URLs carry `?schema=` (and other Prisma-only params) that node-postgres does not understand.
function pgConfigFromPrismaUrl(url) {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get("schema") ?? undefined;
  for (const param of ["schema", "connection_limit", "pool_timeout", "pgbouncer", "statement_cache_size"]) {
    parsed.searchParams.delete(param);
  }
  return {
    connectionString: parsed.toString(),
    database: decodeURIComponent(parsed.pathname.replace(/^\//, "")),
    schema,
  };
}

function maintenanceConnectionString(connectionString) {
  const parsed = new URL(connectionString);
  parsed.pathname = "/postgres";
  return parsed.toString();
}

async function withClient(connectionString, fn) {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function canConnect(url) {
  const { connectionString } = pgConfigFromPrismaUrl(url);
  await withClient(connectionString, (client) => client.query("SELECT 1"));
}

// Idempotent so that concurrent callers creating the same database both succeed.
async function createDatabase(url) {
  const { connectionString, database } = pgConfigFromPrismaUrl(url);
  const statement = `CREATE DATABASE ${pg.escapeIdentifier(database)}`;
  await withClient(maintenanceConnectionString(connectionString), async (client) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(statement);
        return;
      } catch (error) {
        if (error.code === POSTGRES_DUPLICATE_DATABASE) return;
        // Another session briefly holding template1 makes CREATE DATABASE fail; it clears quickly.
        if (error.code === POSTGRES_OBJECT_IN_USE && attempt < 20) {
          await new Promise((resolve) => setTimeout(resolve, 100 + attempt * 50));
          continue;
        }
        throw error;
      }
    }
  });
  return database;
}

async function dropDatabase(url) {
  const { connectionString, database } = pgConfigFromPrismaUrl(url);
  await withClient(maintenanceConnectionString(connectionString), (client) =>
    client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)} WITH (FORCE)`),
  );
}

function prismaErrorCode(error) {
  if (error.code === POSTGRES_INVALID_CATALOG_NAME) return "P1003";
  if (error.code === "28P01" || error.code === "28000") return "P1000";
  if (["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ETIMEDOUT"].includes(error.code)) return "P1001";
  return undefined;
}

function describeTarget(url) {
  const { database } = pgConfigFromPrismaUrl(url);
  const { host } = new URL(url);
  return { database, host };
}

async function runCliCommand(command, datasource) {
  const url = datasource?.url;
  process.stderr.write(
    `${logLine("INFO", { message: `Starting schema engine CLI (wasm shim): ${command}` })}\n`,
  );
  try {
    if (!url) throw new Error("The datasource has no url.");
    if (command === "can-connect-to-database") await canConnect(url);
    else if (command === "create-database") await createDatabase(url);
    else if (command === "drop-database") await dropDatabase(url);
    else throw new Error(`Unsupported schema engine CLI command: ${command}`);
    return 0;
  } catch (error) {
    const code = prismaErrorCode(error);
    const { database, host } = url ? describeTarget(url) : { database: "", host: "" };
    const message =
      code === "P1003"
        ? `Database \`${database}\` does not exist on the database server at \`${host}\`.`
        : code === "P1001"
          ? `Can't reach database server at \`${host}\``
          : error.message;
    // No trailing newline: the CLI JSON-parses every stderr line after the first, so a blank one breaks it.
    process.stderr.write(logLine("ERROR", { is_panic: false, error_code: code, message }));
    return 1;
  }
}

// The engine's panic hook hands the panic message to this global (Prisma's own host defines it in
// @prisma/internals); without it a panic becomes an unrelated TypeError and kills the process.
let lastPanicMessage;
globalThis.PRISMA_WASM_PANIC_REGISTRY = {
  set_message(message) {
    lastPanicMessage = message;
  },
};

async function loadWasmEngine() {
  const glueUrl = import.meta.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
  const glue = await import(glueUrl);
  const wasmPath = join(dirname(fileURLToPath(glueUrl)), "schema_engine_bg.wasm");
  // The package's own entry uses `import ... from "*.wasm"`, which Node 20 only allows behind a flag.
  const { instance } = await WebAssembly.instantiate(await readFile(wasmPath), {
    "./schema_engine_bg.js": glue,
  });
  glue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  return glue;
}

const POSTGRES_CHAR_OID = 18;
const POSTGRES_TEXT_OID = 25;
const CHAR_COLUMNS = Symbol("kurz.charColumns");

// Postgres' internal one-byte type "char" (pg_catalog's relkind, contype, ...) has no mapping in
// adapter-pg 7.10, which throws "Column type 'char' could not be deserialized". The native engine reads
// it as a character, and the schema describer panics on anything else (e.g. contype of a CHECK
// constraint). So: report it to adapter-pg as text, remember which columns they were on the rows array
// (adapter-pg passes that array through), and let queryRaw's wrapper retype them as Character.
function markCharColumns(result) {
  for (const single of Array.isArray(result) ? result : [result]) {
    const charColumns = [];
    (single?.fields ?? []).forEach((field, index) => {
      if (field.dataTypeID === POSTGRES_CHAR_OID) {
        field.dataTypeID = POSTGRES_TEXT_OID;
        charColumns.push(index);
      }
    });
    if (charColumns.length > 0 && Array.isArray(single.rows)) single.rows[CHAR_COLUMNS] = charColumns;
  }
  return result;
}

class CatalogFriendlyClient extends pg.Client {
  query(config, values, callback) {
    const cb = typeof values === "function" ? values : callback;
    if (typeof cb === "function") {
      const wrapped = (error, result) => cb(error, error ? result : markCharColumns(result));
      return typeof values === "function"
        ? super.query(config, wrapped)
        : super.query(config, values, wrapped);
    }
    const pending = super.query(config, values);
    // Submittables (cursors, streams) are returned as-is; only promise results carry fields.
    return typeof pending?.then === "function" ? pending.then(markCharColumns) : pending;
  }
}

function retypeCharColumns(queryable) {
  const queryRaw = queryable.queryRaw.bind(queryable);
  queryable.queryRaw = async (query) => {
    const result = await queryRaw(query);
    for (const index of result.rows[CHAR_COLUMNS] ?? []) result.columnTypes[index] = ColumnTypeEnum.Character;
    return result;
  };
  return queryable;
}

function withDatabase(connectionString, database) {
  const parsed = new URL(connectionString);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

function quoteSchemaForOptions(schema) {
  // Inside libpq `options`, spaces and backslashes are escaped with a backslash.
  return pg.escapeIdentifier(schema).replace(/[\\ ]/g, "\\$&");
}

// Shadow databases still open, so a crash can drop them instead of leaving them behind.
const liveShadowDatabases = new Map();

async function dropLiveShadowDatabases() {
  await Promise.allSettled(
    [...liveShadowDatabases].map(([database, mainConnectionString]) =>
      withClient(mainConnectionString, (client) =>
        client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)} WITH (FORCE)`),
      ),
    ),
  );
}

class ShimPg extends PrismaPg {
  constructor(connectionString, options) {
    // Like the native engine, `?schema=` selects the search_path, so unqualified DDL lands there too.
    const searchPath = options?.schema
      ? { options: `-c search_path=${quoteSchemaForOptions(options.schema)}` }
      : {};
    super({ connectionString, max: 4, Client: CatalogFriendlyClient, ...searchPath }, options);
    this.mainConnectionString = connectionString;
    this.adapterOptions = options;
  }

  async connect() {
    const adapter = retypeCharColumns(await super.connect());
    const startTransaction = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (...args) => retypeCharColumns(await startTransaction(...args));
    // adapter-pg 7.10 runs scripts as script.split(";"), which breaks on a semicolon inside a comment,
    // string or $$ body, and applies a migration statement by statement. The native engine sends the
    // whole script as one simple query, which Postgres runs as one implicit transaction; so do we.
    adapter.executeScript = async (script) => {
      try {
        await adapter.underlyingDriver().query(script);
      } catch (error) {
        adapter.onError(error);
      }
    };
    return adapter;
  }

  // adapter-pg's own connectToShadowDb spreads its config and sets `database`, but node-postgres lets
  // `connectionString` override `database`: the "shadow" pool would be the main database. We build the
  // shadow database's URL ourselves, create it through the main connection and drop it on dispose.
  async connectToShadowDb() {
    const database = `prisma_migrate_shadow_db_${globalThis.crypto.randomUUID()}`;
    await withClient(this.mainConnectionString, (client) =>
      client.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`),
    );
    liveShadowDatabases.set(database, this.mainConnectionString);
    const shadow = await new ShimPg(
      withDatabase(this.mainConnectionString, database),
      this.adapterOptions,
    ).connect();
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose();
      await withClient(this.mainConnectionString, (client) =>
        client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)} WITH (FORCE)`),
      );
      liveShadowDatabases.delete(database);
    };
    return shadow;
  }
}

function createAdapterFactory(datasource) {
  // Unlike the native engine, the WASM engine connects even for offline work (`migrate diff
  // --from-empty --to-schema`); without a url node-postgres falls back to the PG* variables.
  const { connectionString, schema } = datasource?.url
    ? pgConfigFromPrismaUrl(datasource.url)
    : { connectionString: undefined, schema: undefined };
  if (datasource?.shadowDatabaseUrl) {
    process.stderr.write(
      `${logLine("WARN", { message: "shadowDatabaseUrl is ignored by the wasm shim; it uses a temporary database" })}\n`,
    );
  }
  return bindMigrationAwareSqlAdapterFactory(new ShimPg(connectionString, schema ? { schema } : undefined));
}

function isWasmPanic(error) {
  return error?.name === "RuntimeError";
}

// Errors thrown inside adapter-pg are kept in the registry; the engine only reports their id.
function capturedAdapterError(error, errorRegistry) {
  const id = error?.meta?.id ?? error?.id;
  return typeof id === "number" ? errorRegistry.consumeError(id)?.error : undefined;
}

function toRpcError(error, errorRegistry) {
  if (process.env.KURZ_SHIM_DEBUG)
    process.stderr.write(`shim error: ${JSON.stringify(error, Object.getOwnPropertyNames(error ?? {}))}\n`);
  const captured = capturedAdapterError(error, errorRegistry);
  if (captured) {
    const cause = captured.cause ?? {};
    const code = cause.kind === "DatabaseDoesNotExist" ? "P1003" : prismaErrorCode(captured);
    const message = cause.originalMessage ?? cause.message ?? captured.message ?? String(captured);
    return {
      code: ENGINE_ERROR_CODE,
      message,
      data: { is_panic: false, message, error_code: code, meta: cause },
    };
  }
  if (isWasmPanic(error)) {
    const message = lastPanicMessage ?? error.message;
    return { code: ENGINE_ERROR_CODE, message, data: { is_panic: true, message } };
  }
  if (typeof error?.code === "string") {
    return {
      code: ENGINE_ERROR_CODE,
      message: error.message,
      data: { is_panic: false, message: error.message, error_code: error.code, meta: error.meta ?? {} },
    };
  }
  const message = (error?.message ?? String(error)).trim();
  // The WASM engine flattens adapter connection errors to text; restore the code the CLI would show.
  const errorCode = /^Database `[^`]*` does not exist/.test(message) ? "P1003" : undefined;
  return { code: ENGINE_ERROR_CODE, message, data: { is_panic: false, message, error_code: errorCode } };
}

async function runRpcServer(args) {
  const glue = await loadWasmEngine();
  const datamodels = await Promise.all(
    args.datamodels.map(async (path) => [path, await readFile(path, "utf8")]),
  );
  const adapterFactory = createAdapterFactory(args.datasource);
  // The WASM engine already emits the native engine's JSON log lines.
  const log = (line) => process.stderr.write(`${String(line).trimEnd()}\n`);
  // SchemaEngine.new connects at once. The native engine connects lazily and reports a missing or
  // unreachable database as the failing request's error, so we create it on the first request.
  let enginePromise;
  const getEngine = () => {
    enginePromise ??= glue.SchemaEngine.new(
      { datamodels: datamodels.length > 0 ? datamodels : undefined },
      log,
      adapterFactory,
    );
    enginePromise.catch(() => {
      enginePromise = undefined;
    });
    return enginePromise;
  };

  const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
  let nextOwnRequestId = 1;
  const pendingOwnRequests = new Map();
  // The native engine asks the CLI to print `migrate diff` output; the WASM engine returns it instead.
  const printThroughCli = (content) =>
    new Promise((resolve) => {
      const id = `shim-print-${nextOwnRequestId++}`;
      pendingOwnRequests.set(id, resolve);
      send({ jsonrpc: "2.0", id, method: "print", params: { content: content.replace(/\n$/, "") } });
    });

  const handlers = {
    applyMigrations: async (p) => (await getEngine()).applyMigrations(p),
    createMigration: async (p) => (await getEngine()).createMigration(p),
    dbExecute: async (p) => {
      await (await getEngine()).dbExecute(p);
      return null;
    },
    debugPanic: async () => (await getEngine()).debugPanic(),
    devDiagnostic: async (p) => (await getEngine()).devDiagnostic(p),
    diagnoseMigrationHistory: async (p) => (await getEngine()).diagnoseMigrationHistory(p),
    ensureConnectionValidity: async (p) => (await getEngine()).ensureConnectionValidity(p),
    evaluateDataLoss: async (p) => (await getEngine()).evaluateDataLoss(p),
    getDatabaseVersion: async (p) => (await getEngine()).version(p ?? null),
    introspect: async (p) => (await getEngine()).introspect(p),
    introspectSql: async (p) => (await getEngine()).introspectSql(p),
    markMigrationApplied: async (p) => (await getEngine()).markMigrationApplied(p),
    markMigrationRolledBack: async (p) => (await getEngine()).markMigrationRolledBack(p),
    reset: async (p) => {
      await (await getEngine()).reset(p);
      return {};
    },
    schemaPush: async (p) => (await getEngine()).schemaPush(p),
    diff: async (p) => {
      const { stdout, ...rest } = await (await getEngine()).diff(p);
      if (stdout) await printThroughCli(stdout);
      return rest;
    },
    createDatabase: async (p) => {
      const url = p?.datasource?.tag === "ConnectionString" ? p.datasource.url : args.datasource?.url;
      if (!url) throw new Error("createDatabase needs a connection string in this shim.");
      return { databaseName: await createDatabase(url) };
    },
  };

  let inFlight;
  // A panic inside a callback the engine gave to JS (e.g. on a query result) escapes every promise.
  process.on("uncaughtException", (error) => {
    const rpcError = toRpcError(error, adapterFactory.errorRegistry);
    process.stderr.write(
      `${logLine("ERROR", { is_panic: isWasmPanic(error), message: rpcError.message })}\n`,
    );
    if (inFlight) send({ jsonrpc: "2.0", id: inFlight.id, error: rpcError });
    dropLiveShadowDatabases().finally(() =>
      process.stdout.write("", () => process.exit(isWasmPanic(error) ? 101 : 1)),
    );
  });

  // The engine is not re-entrant across commands; the CLI sends one at a time anyway.
  let queue = Promise.resolve();
  const handle = async (request) => {
    inFlight = request;
    const handler = handlers[request.method];
    try {
      if (!handler) throw new Error(`Method not supported by the WASM schema engine shim: ${request.method}`);
      const result = await handler(request.params);
      send({ jsonrpc: "2.0", id: request.id, result: result ?? null });
    } catch (error) {
      send({ jsonrpc: "2.0", id: request.id, error: toRpcError(error, adapterFactory.errorRegistry) });
      if (isWasmPanic(error)) {
        // A panicked WASM instance is unusable; the native engine also exits with 101.
        await dropLiveShadowDatabases();
        process.stdout.write("", () => process.exit(101));
      }
    } finally {
      inFlight = undefined;
    }
  };

  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    const message = JSON.parse(line);
    if (message.method === undefined && pendingOwnRequests.has(message.id)) {
      pendingOwnRequests.get(message.id)();
      pendingOwnRequests.delete(message.id);
      return;
    }
    queue = queue.then(() => handle(message));
  });
  lines.on("close", () => {
    // pg pools keep the event loop alive; the CLI closes stdin when it is done with us.
    queue.then(() => process.exit(0));
  });
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.version) {
    const glue = await loadWasmEngine();
    process.stdout.write(`schema-engine-cli ${glue.version()} (wasm shim)\n`);
    return 0;
  }
  if (args.cliCommand) return runCliCommand(args.cliCommand, args.datasource);
  await runRpcServer(args);
  return undefined;
}

main().then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (error) => {
    process.stderr.write(
      `${logLine("ERROR", { is_panic: false, message: error?.stack ?? String(error) })}\n`,
    );
    process.exit(1);
  },
);
