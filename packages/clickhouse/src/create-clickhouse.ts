import { Readable } from "node:stream";
import {
  type ClickHouseClient,
  type ClickHouseClientConfigOptions,
  ClickHouseLogLevel,
  type ClickHouseSettings,
  createClient,
} from "@clickhouse/client";
import { Session } from "chdb";
import { createChdbConnection } from "chdb/connection";
import { explainChdbOpenError } from "./chdb-lock.ts";
import { restoreFatalSignals } from "./chdb-signals.ts";
import { ChdbStreams, inlineParams, sqlLiteral } from "./chdb-streams.ts";

export interface ClickHouseOptions {
  /** ClickHouse server HTTP(S) URL (`CLICKHOUSE_URL`). Unset = embedded chDB. */
  url?: string;
  /** chDB data directory (`CLICKHOUSE_PATH`); `:memory:` for a throwaway engine. Ignored with `url`. */
  path?: string;
  /** Default `kurz`. Created when missing. */
  database?: string;
  /** Server only. */
  username?: string;
  /** Server only. */
  password?: string;
  /**
   * Embedded chDB only: the engine's memory bounds. Unset, chDB takes 90% of the machine's memory
   * for itself, 5 GB for each of its mark and index caches and no bound per query.
   */
  memory?: ChdbMemoryLimits;
}

export interface ChdbMemoryLimits {
  /** Everything the engine allocates together (`max_server_memory_usage`); past it queries fail. */
  engineMb: number;
  /** One query (`max_memory_usage`); past it that query fails, the others run on. */
  queryMb: number;
  /** Each of the mark, index-mark and primary-index caches. */
  cacheMb: number;
}

/** The engine's command-line form of `limits`: server settings, fixed when the engine starts. */
export function chdbEngineArgs(limits: ChdbMemoryLimits): string[] {
  const bytes = (mb: number) => String(Math.round(mb * 2 ** 20));
  return [
    `--max_server_memory_usage=${bytes(limits.engineMb)}`,
    `--mark_cache_size=${bytes(limits.cacheMb)}`,
    `--index_mark_cache_size=${bytes(limits.cacheMb)}`,
    `--primary_index_cache_size=${bytes(limits.cacheMb)}`,
    // Compiled expressions and the query-condition cache are bounded as the caches above.
    `--compiled_expression_cache_size=${bytes(limits.cacheMb)}`,
    `--query_condition_cache_size=${bytes(limits.cacheMb)}`,
    // The engine's memory is the engine's own (jemalloc's count), not its cgroup's. ClickHouse reads
    // a cgroup's memory as if it were the server's alone, but the engine shares its process's cgroup
    // with the rest of the stack: counted against the engine's bound, the other services' memory
    // would fail every query with MEMORY_LIMIT_EXCEEDED, and on cgroup v1 it reads the hierarchy's
    // root, which holds none of it, so the engine would never hand freed pages back. The bound stays as set,
    // not recomputed from the host's free memory, and the engine's RSS as measured, not extrapolated.
    "--memory_worker_use_cgroup=0",
    "--memory_worker_dynamic_hard_limit=0",
    "--memory_worker_rss_speculative_reserve_ratio=0",
    // Read once a second rather than every 100 ms: each reading refreshes jemalloc's statistics across
    // its arenas, and at ten a second the click inserts' threads paid for it (analytics ~1.72 times the
    // redirect's CPU a click against ~1.52; ~1.59 at one a second; docs/benchmarks/2026-12.md).
    "--memory_worker_period_ms=1000",
  ];
}

export type QueryParams = Record<string, unknown>;

export interface KurzClickHouse {
  readonly kind: "server" | "chdb";
  readonly database: string;
  /** Runs a SELECT and returns its rows (JSONEachRow). Bind values as `{name:Type}` in the SQL. */
  query<T = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<T[]>;
  /**
   * Runs a SELECT and yields its rows as they arrive (JSONEachRow), so a result of any size passes
   * through in constant memory (exports): over HTTP from a server, block by block from chDB
   * (chdb-streams.ts). Stop iterating to abandon the query.
   */
  queryRows<T = Record<string, unknown>>(sql: string, params?: QueryParams): AsyncGenerator<T>;
  /** Runs a statement that returns no rows (DDL, ALTER, DELETE, ...). */
  command(sql: string, params?: QueryParams): Promise<void>;
  /** Inserts rows as JSONEachRow; an empty array is a no-op. */
  insert(table: string, rows: readonly object[]): Promise<void>;
  /**
   * Inserts rows already written as TabSeparated text (`body`: one line a row, values escaped as
   * TabSeparated escapes them, NULL as `\N`), the text ClickHouse parses fastest. chDB takes the bytes
   * as they are, without building one SQL string of statement and rows; `settings` apply to this
   * insert only. An empty body is a no-op. Bytes (UTF-8) are sent as they are: a large body built
   * as bytes is held outside V8's heap.
   */
  insertTabSeparated(target: TabSeparatedInsert, body: string | Uint8Array): Promise<void>;
  /** Resolves when a query round-trips; throws otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * The underlying @clickhouse/client, for the rare need this wrapper does not cover. Never pass
   * `clickhouse_settings` to it per query: chDB would keep them for every later query.
   */
  readonly raw: ClickHouseClient;
}

export interface TabSeparatedInsert {
  table: string;
  columns: readonly string[];
  /** Values are numbers, or strings of letters, digits and `_:.-` (checked: they are written into the statement). */
  settings: Record<string, string | number>;
}

/** The file name of embedded chDB's shared library, as a process maps it. */
export const CHDB_LIBRARY_FILE = "libchdb.so";

export const DEFAULT_CHDB_PATH = "./.data/clickhouse";
export const DEFAULT_DATABASE = "kurz";

/**
 * Sent with every query, on both backends, so that SQL behaves the same whichever one runs it.
 * chDB applies client settings as session-wide `SET`s, so anything passed per query would leak
 * into later queries: settings live here and nowhere else.
 */
export const PINNED_SETTINGS = {
  // UInt64 counts come back as JSON numbers (server default quotes them). Values above 2^53 lose
  // precision: select such columns with toString() when the exact value matters.
  output_format_json_quote_64bit_integers: 0,
  // ALTER ... UPDATE/DELETE return once applied on every replica, so the next read sees them.
  mutations_sync: "2",
  // Accept ISO 8601 (`2026-11-21T06:12:00.123Z`) in inserted DateTime values, as events carry them.
  date_time_input_format: "best_effort",
  // Newer servers and chDB default to buffered async inserts; the click consumer already batches,
  // and a synchronous insert means the rows are queryable when the promise resolves.
  async_insert: 0,
  // A misspelled column in an inserted row must fail, not silently store a default.
  input_format_skip_unknown_fields: 0,
  // now(), toDate() of zone-less values and string parsing must not depend on the server's zone.
  session_timezone: "UTC",
} satisfies ClickHouseSettings;

// Every failure reaches the caller as a rejected promise, which the service logs with its own
// logger; the client's console logging would only print it a second time, unstructured.
const QUIET = { level: ClickHouseLogLevel.OFF };
const CLIENT_DEFAULTS = { clickhouse_settings: PINNED_SETTINGS, log: QUIET };

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export async function createClickHouse(opts: ClickHouseOptions = {}): Promise<KurzClickHouse> {
  return opts.url ? openServer(opts.url, opts) : openChdb(opts.path ?? DEFAULT_CHDB_PATH, opts);
}

async function openServer(url: string, opts: ClickHouseOptions): Promise<KurzClickHouse> {
  // A database in the URL path wins inside @clickhouse/client, so it is the one to create.
  const database = databaseName(databaseInUrl(url) ?? opts.database);
  // Only what was given: an explicit undefined would override credentials carried in the URL.
  const credentials = {
    ...(opts.username !== undefined && { username: opts.username }),
    ...(opts.password !== undefined && { password: opts.password }),
  };
  // Every request names the client's database, so it must exist before that client is used.
  const bootstrap = createClient({ url: withoutPath(url), database: "default", ...credentials, log: QUIET });
  try {
    await bootstrap.command({ query: `CREATE DATABASE IF NOT EXISTS \`${database}\`` });
  } finally {
    await bootstrap.close();
  }
  const client = createClient({ url, database, ...credentials, ...CLIENT_DEFAULTS });
  return wrap(client, "server", database);
}

async function openChdb(path: string, opts: ClickHouseOptions): Promise<KurzClickHouse> {
  const database = databaseName(opts.database);
  let connection: ReturnType<typeof createChdbConnection>;
  // The engine takes its server settings from the first session on its directory, and
  // createChdbConnection passes none: a session opened first with the bounds starts the engine with
  // them, and is kept open so that the engine never restarts without them. (`:memory:`, a temporary
  // directory the connection picks, is for tests and runs unbounded.)
  let anchor: Session | undefined;
  try {
    if (opts.memory && path !== ":memory:")
      anchor = new Session(path, { connectionArgs: chdbEngineArgs(opts.memory) });
    connection = createChdbConnection({ path });
  } catch (err) {
    anchor?.close();
    throw explainChdbOpenError(err, path);
  }
  // Query settings, so they go with every query's settings (the client's and the streams').
  const settings = {
    ...PINNED_SETTINGS,
    // Embedded, a query reads its parts' files itself: ClickHouse's default hands each read to a
    // thread pool, which costs more than the read for the small key ranges a request reads across
    // parts not yet merged (packages/clickhouse/README.md).
    local_filesystem_read_method: "pread",
    ...(opts.memory && { max_memory_usage: String(Math.round(opts.memory.queryMb * 2 ** 20)) }),
  };
  const client = createClient({
    // chdb types the connection with @clickhouse/client-common, @clickhouse/client bundles its own
    // copy of the same declarations; TypeScript tells the copies apart (SettingsMap has private
    // members), so the identical shapes need a cast.
    connection: connection as unknown as ClickHouseClientConfigOptions["connection"],
    ...CLIENT_DEFAULTS,
    clickhouse_settings: settings,
  });
  try {
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS \`${database}\`` });
    // chDB ignores the client's `database`; USE sticks to this connection's session instead.
    await client.command({ query: `USE \`${database}\`` });
  } catch (err) {
    await client.close();
    anchor?.close();
    throw err;
  }
  // The engine has started (or started again) and installed its fatal-signal handlers: an abort or
  // a crash must still end the process at once (chdb-signals.ts).
  restoreFatalSignals();
  // Streamed reads run on sessions of their own over the same data directory (`:memory:` is a
  // temporary directory the connection chose), set up like the client's queries.
  const streams = new ChdbStreams(connection.chdb.session.path, [
    `USE \`${database}\``,
    ...Object.entries(settings).map(([name, value]) => `SET ${name} = ${sqlLiteral(value)}`),
  ]);
  const wrapped = wrap(client, "chdb", database);
  return {
    ...wrapped,
    async insertTabSeparated(target: TabSeparatedInsert, body: string | Uint8Array): Promise<void> {
      if (body.length === 0) return;
      checkTabSeparatedInsert(target);
      // Through the session the client's queries run on, so the pinned settings apply (they are SET
      // on it by every query the client sends, the first at open).
      await connection.chdb.rawInsert({
        table: target.table,
        columns: [...target.columns],
        settings: target.settings,
        format: "TabSeparated",
        values: typeof body === "string" ? Buffer.from(body) : body,
      });
    },
    async *queryRows<T>(sql: string, params?: QueryParams): AsyncGenerator<T> {
      yield* streams.rows<T>(inlineParams(sql, bind(params)));
    },
    async close() {
      streams.close();
      await wrapped.close();
      anchor?.close();
    },
  };
}

function checkTabSeparatedInsert(target: TabSeparatedInsert): void {
  for (const name of [target.table, ...target.columns, ...Object.keys(target.settings)])
    if (!IDENTIFIER.test(name)) throw new Error(`not an identifier: ${JSON.stringify(name)}`);
  for (const value of Object.values(target.settings))
    if (typeof value !== "number" && !/^[A-Za-z0-9_:.-]*$/.test(value))
      throw new Error(`unexpected setting value ${JSON.stringify(value)}`);
}

function wrap(client: ClickHouseClient, kind: KurzClickHouse["kind"], database: string): KurzClickHouse {
  return {
    kind,
    database,
    raw: client,
    async query<T>(sql: string, params?: QueryParams): Promise<T[]> {
      const rs = await client.query({ query: sql, format: "JSONEachRow", query_params: bind(params) });
      return rs.json<T>();
    },
    async *queryRows<T>(sql: string, params?: QueryParams): AsyncGenerator<T> {
      const rs = await client.query({ query: sql, format: "JSONEachRow", query_params: bind(params) });
      const stream = rs.stream<T>();
      try {
        for await (const rows of stream) {
          for (const row of rows) yield row.json<T>();
        }
      } finally {
        stream.destroy();
      }
    },
    async command(sql: string, params?: QueryParams): Promise<void> {
      await client.command({ query: sql, query_params: bind(params) });
    },
    async insert(table: string, rows: readonly object[]): Promise<void> {
      if (rows.length === 0) return;
      await client.insert({ table, values: rows as object[], format: "JSONEachRow" });
    },
    async insertTabSeparated(target: TabSeparatedInsert, body: string | Uint8Array): Promise<void> {
      if (body.length === 0) return;
      checkTabSeparatedInsert(target);
      const settings = Object.entries(target.settings).map(
        ([k, v]) => `${k} = ${typeof v === "number" ? v : `'${v}'`}`,
      );
      await client.insert({
        table: `${target.table} (${target.columns.join(", ")})${settings.length > 0 ? ` SETTINGS ${settings.join(", ")}` : ""}`,
        values: Readable.from([typeof body === "string" ? Buffer.from(body) : body], { objectMode: false }),
        format: "TabSeparated",
      });
    },
    async ping(): Promise<void> {
      // A SELECT (not the HTTP /ping endpoint) also proves the credentials and database work.
      const result = await client.ping({ select: true });
      if (!result.success) throw result.error;
    },
    close: () => client.close(),
  };
}

/**
 * The two backends format a Date parameter differently (chDB drops the milliseconds), so Dates
 * are turned into the Unix-timestamp text @clickhouse/client sends a server, which both parse
 * into DateTime and DateTime64.
 */
function bind(params: QueryParams | undefined): QueryParams | undefined {
  if (!params) return undefined;
  const out: QueryParams = {};
  for (const [key, value] of Object.entries(params)) {
    out[key] = value instanceof Date ? unixTimestamp(value) : value;
  }
  return out;
}

function unixTimestamp(date: Date): string {
  const ms = date.getTime();
  if (Number.isNaN(ms)) throw new TypeError("Invalid Date in query parameters");
  const seconds = Math.floor(ms / 1000);
  const millis = ms - seconds * 1000;
  return millis === 0 ? String(seconds) : `${seconds}.${String(millis).padStart(3, "0")}`;
}

function databaseName(name: string | undefined): string {
  const database = name ?? DEFAULT_DATABASE;
  if (!IDENTIFIER.test(database)) {
    throw new Error(
      `Invalid ClickHouse database name ${JSON.stringify(database)}: use letters, digits and _`,
    );
  }
  return database;
}

function databaseInUrl(url: string): string | undefined {
  const path = new URL(url).pathname.replace(/^\/+|\/+$/g, "");
  return path === "" ? undefined : decodeURIComponent(path);
}

function withoutPath(url: string): string {
  const u = new URL(url);
  u.pathname = "/";
  return u.toString();
}
