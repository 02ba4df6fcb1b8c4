// Streamed reads from embedded chDB. Through @clickhouse/client, a chDB query's whole result is
// materialised in one buffer before the first row is read (chdb/connection says so), so an export of a
// large result held all of it at once. chDB's own Session.queryStream hands the result over block by
// block instead (at most `max_block_size` rows each), so a read of any size holds one block.
//
// Two chDB constraints shape this module:
// - a session streams one query at a time: streams take a session from a small pool of their own
//   (opened on the engine's data directory, which chDB shares between sessions of one process) and
//   give it back when done, so concurrent exports each get one;
// - bound parameters are not isolated between concurrent queries on different connections in the
//   bundled libchdb (chdb serialises its own bound queries process-wide for that reason, and a stream
//   could not join that queue): streamed queries carry their values as SQL literals instead
//   (`inlineParams`), so they never use the engine's parameter state.
import { Session } from "chdb";

export type QueryParams = Record<string, unknown>;

/** Rows per streamed block: a few hundred kB of JSON, whatever the result's size. */
const STREAM_BLOCK_ROWS = 8_192;

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*):([^{}]+)\}/g;

/** A value as a ClickHouse SQL literal: strings quoted with `\` and `'` escaped, arrays element-wise. */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "string") return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`Cannot write ${value} as a ClickHouse literal`);
    return String(value);
  }
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map(sqlLiteral).join(", ")}]`;
  throw new TypeError(`Cannot write a ${typeof value} as a ClickHouse literal`);
}

/**
 * `sql` with each `{name:Type}` placeholder replaced by `CAST(literal AS Type)`, the value converted
 * to the placeholder's type by the engine as a bound parameter would be. Every placeholder needs a
 * value (as with binding, a missing one is an error rather than a silent NULL).
 */
export function inlineParams(sql: string, params: QueryParams | undefined): string {
  return sql.replace(PLACEHOLDER, (_match, name: string, type: string) => {
    if (!params || !Object.hasOwn(params, name)) throw new Error(`No value for query parameter {${name}}`);
    return `CAST(${sqlLiteral(params[name])} AS ${type})`;
  });
}

export class ChdbStreams {
  private readonly idle: Session[] = [];
  private readonly open = new Set<Session>();
  private closed = false;

  /**
   * @param path the engine's data directory (the one the client's connection opened)
   * @param setup statements each new session runs first (USE, the pinned settings)
   */
  constructor(
    private readonly path: string,
    private readonly setup: readonly string[],
  ) {}

  /** Yields the rows of `sql` (JSONEachRow) block by block; stop iterating to cancel the query. */
  async *rows<T>(sql: string): AsyncGenerator<T> {
    const session = this.take();
    try {
      const stream = session.queryStream(sql, { format: "JSONEachRow" });
      for await (const chunk of stream) {
        // Parsed a line at a time, so one block's text is all that is held besides the current row.
        const text = chunk.text();
        for (let at = 0; at < text.length; ) {
          let end = text.indexOf("\n", at);
          if (end === -1) end = text.length;
          if (end > at) yield JSON.parse(text.slice(at, end)) as T;
          at = end + 1;
        }
      }
    } finally {
      // The stream is finished or cancelled here (its iterator's own `finally`), so the session is free.
      if (this.closed) session.close();
      else this.idle.push(session);
    }
  }

  close(): void {
    this.closed = true;
    for (const session of this.open) session.close();
    this.open.clear();
    this.idle.length = 0;
  }

  private take(): Session {
    if (this.closed) throw new Error("ClickHouse client is closed");
    const reused = this.idle.pop();
    if (reused) return reused;
    const session = new Session(this.path);
    try {
      for (const statement of this.setup) session.query(statement);
      session.query(`SET max_block_size = ${STREAM_BLOCK_ROWS}`);
    } catch (err) {
      session.close();
      throw err;
    }
    this.open.add(session);
    return session;
  }
}
