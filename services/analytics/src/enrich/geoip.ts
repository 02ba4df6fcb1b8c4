// Country and city of a client address, from a MaxMind-format database (DB-IP's city database from
// npm by default: 63 MB for IPv4, 71 MB for IPv6). open() only finds the files and checks that each is a
// database; a family's file is taken up by the first lookup of an address of that family (once per
// process: every GeoIp on the same unchanged file shares it, as the in-process test stacks one worker
// starts after another do), so a service whose clicks are all IPv4 never holds the IPv6 file, and one
// that counts no click holds neither. An IPv4 file is held as a table of ranges (ipv4-ranges.ts), less
// than half its size; others are read whole. Without a database every location is unknown, which must
// never stop clicks from being stored.
import {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
} from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import type { Worker } from "node:worker_threads";
import { startModuleThread } from "@kurz/service-kit";
import { LRUCache } from "lru-cache";
import { Reader } from "maxmind";
import { Ipv4Ranges } from "./ipv4-ranges.ts";

export interface Location {
  /** ISO 3166-1 alpha-2, '' when unknown. */
  country: string;
  city: string;
}

const UNKNOWN: Location = { country: "", city: "" };

/** DB-IP's flat records and MaxMind's GeoLite2/GeoIP2 nested ones. */
interface GeoRecord {
  country_code?: string;
  city?: string | { names?: Record<string, string> };
  country?: { iso_code?: string };
}

/** The part of maxmind's Reader used here; its typings insist on MaxMind's own record shapes. */
interface Db {
  get(ip: string): unknown;
  metadata: { nodeCount: number; recordSize: number; ipVersion: number };
}

export interface GeoIpLogger {
  warn(o: object, m?: string): void;
}

/** The end of a MaxMind DB file holds this marker before its metadata, within the last 128 KiB. */
const METADATA_MARKER = Buffer.from("abcdef4d61784d696e642e636f6d", "hex");
const METADATA_MAX = 128 * 1024;

/** Whether `file` ends like a MaxMind DB, from its last 128 KiB only. */
function looksLikeDatabase(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, METADATA_MAX);
    const tail = Buffer.alloc(length);
    readSync(fd, tail, 0, length, size - length);
    return tail.lastIndexOf(METADATA_MARKER) !== -1;
  } finally {
    closeSync(fd);
  }
}

/** Decoded data records kept per database (maxmind's own default). */
const RECORDS_CACHED = 10_000;

/** A database this process holds: what locates an address in it now. */
interface HeldDatabase {
  version: string;
  locate(ip: string): Location;
}

/**
 * The databases this process has read, by path and table directory, each with the file's size and
 * modification time it was read at. The file is read again when it has changed since (a new database
 * in place).
 */
const held = new Map<string, HeldDatabase>();

/** The record's country and city, as DB-IP and MaxMind each shape them. */
function locationOf(record: GeoRecord | null): Location {
  if (!record) return UNKNOWN;
  const country = (record.country_code ?? record.country?.iso_code ?? "").toUpperCase();
  const city = typeof record.city === "string" ? record.city : (record.city?.names?.en ?? "");
  return /^[A-Z]{2}$/.test(country) ? { country, city } : UNKNOWN;
}

/**
 * The database in `file`, unless this process already holds that version of it: an IPv4 database's
 * table of ranges (ipv4-ranges.ts) when one is kept in `tableDir`, else the database read whole.
 */
function databaseOf(file: string, tableDir: string | undefined): HeldDatabase {
  const { size, mtimeMs, ino } = statSync(file);
  const version = `${ino}:${size}:${mtimeMs}`;
  const key = `${file}\0${tableDir ?? ""}`;
  const known = held.get(key);
  if (known?.version === version) return known;
  const table = Ipv4Ranges.read({ path: file, size, mtimeMs }, tableDir);
  let database: HeldDatabase;
  if (table) database = { version, locate: (ip) => table.lookup(ip) ?? UNKNOWN };
  else {
    const reader = new Reader(readFileSync(file), {
      cache: new LRUCache<number, object>({ max: RECORDS_CACHED }),
    }) as Db;
    database = {
      version,
      locate(ip) {
        try {
          return locationOf(reader.get(ip) as GeoRecord | null);
        } catch {
          return UNKNOWN;
        }
      },
    };
  }
  held.set(key, database);
  return database;
}

/** What making a table of ranges came to (ipv4-table-thread.ts reports it). */
export type TableOutcome =
  | { kind: "kept" | "unreadable" | "not-ipv4" }
  | { kind: "not-kept" }
  | { kind: "failed"; message: string };

/**
 * Makes and keeps the table of ranges of `file` when it is an IPv4 database: reads it whole, walks its
 * tree and writes the table. Runs on a thread of its own (ipv4-table-thread.ts).
 */
export async function makeTableOf(file: string, tableDir: string | undefined): Promise<TableOutcome> {
  const { size, mtimeMs } = statSync(file);
  let bytes: Buffer;
  let reader: Db;
  try {
    bytes = readFileSync(file);
    reader = new Reader(bytes) as Db;
  } catch {
    return { kind: "unreadable" };
  }
  if (reader.metadata.ipVersion !== 4) return { kind: "not-ipv4" };
  const locate = (ip: string) => locationOf(reader.get(ip) as GeoRecord | null);
  const table = await Ipv4Ranges.build({ bytes, metadata: reader.metadata, locate });
  return { kind: table.write({ path: file, size, mtimeMs }, tableDir) ? "kept" : "not-kept" };
}

/**
 * Makes and keeps the table of ranges of `file` when it is an IPv4 database whose table is not kept
 * yet: once per version of the database on this machine. The work (the database read whole and a
 * walk of its tree, ~100 MB) is done on a thread whose memory goes back to the system when it ends:
 * on the service's own heap it stayed as garbage until a full collection, which an idle service may
 * not run for hours. A database that cannot be read or a table that cannot be kept is left to the
 * first lookup, which reads the database whole.
 */
async function keepTableOf(file: string, tableDir: string | undefined, logger: GeoIpLogger | undefined) {
  const warn = (err: string) =>
    logger?.warn({ path: file, err }, "GeoIP table of ranges could not be made; the database is read whole");
  try {
    const { size, mtimeMs } = statSync(file);
    if (Ipv4Ranges.kept({ path: file, size, mtimeMs }, tableDir)) return;
  } catch (err) {
    warn((err as Error).message);
    return;
  }
  const outcome = await new Promise<TableOutcome>((done) => {
    let thread: Worker;
    try {
      thread = startModuleThread({
        built: "ipv4-table-thread.mjs",
        source: new URL("./ipv4-table-thread.ts", import.meta.url),
        workerData: { file, tableDir },
      });
    } catch (err) {
      done({ kind: "failed", message: (err as Error).message });
      return;
    }
    let outcome: TableOutcome | undefined;
    thread.once("message", (message: TableOutcome) => {
      outcome = message;
    });
    thread.once("error", (err) => {
      outcome ??= { kind: "failed", message: err.message };
    });
    thread.once("exit", (code) => done(outcome ?? { kind: "failed", message: `thread exited ${code}` }));
  });
  if (outcome.kind === "not-kept")
    logger?.warn({ path: file }, "GeoIP table of ranges could not be kept; the database is read whole");
  if (outcome.kind === "failed") warn(outcome.message);
}

/** One family's file, read on first use; one that cannot be read is logged once and is none. */
class LazyDatabase {
  private database: HeldDatabase | null | undefined;

  constructor(
    readonly file: string,
    private readonly tableDir: string | undefined,
    private readonly logger: GeoIpLogger | undefined,
  ) {}

  get(): HeldDatabase | null {
    if (this.database !== undefined) return this.database;
    try {
      this.database = databaseOf(this.file, this.tableDir);
    } catch (err) {
      this.logger?.warn(
        { path: this.file, err: (err as Error).message },
        "GeoIP database could not be read; countries and cities stay unknown",
      );
      this.database = null;
    }
    return this.database;
  }

  get loaded(): boolean {
    return this.database !== undefined;
  }
}

export class GeoIp {
  private files: { v4: LazyDatabase | null; v6: LazyDatabase | null } | null = null;

  /**
   * `tableDir`: where IPv4 databases' tables of ranges are kept for the next process (default
   * `kurz-geoip` in the system's temporary directory).
   */
  constructor(
    private readonly path: string,
    private readonly logger?: GeoIpLogger,
    private readonly tableDir?: string,
  ) {}

  /**
   * Finds the database's files (the first lookup of each family takes its file up), and makes the
   * IPv4 file's table of ranges when none is kept for it: a few seconds the first time a version of
   * the database is seen on this machine, before any click. Never throws.
   */
  async open(): Promise<void> {
    this.files ??= this.find();
    const v4 = this.files.v4;
    if (v4 && v4 !== this.files.v6) await keepTableOf(v4.file, this.tableDir, this.logger);
  }

  get enabled(): boolean {
    return Boolean(this.files?.v4 || this.files?.v6);
  }

  /** Which families' databases this instance has taken up so far (read, or already held by the process). */
  get loaded(): { v4: boolean; v6: boolean } {
    return { v4: this.files?.v4?.loaded ?? false, v6: this.files?.v6?.loaded ?? false };
  }

  /** Call after open(); before that, or for anything but a public address, the location is unknown. */
  lookup(ip: string | null): Location {
    if (!ip || !this.files) return UNKNOWN;
    const family = isIP(ip);
    const database = (family === 4 ? this.files.v4 : family === 6 ? this.files.v6 : null)?.get();
    return database ? database.locate(ip) : UNKNOWN;
  }

  private find(): { v4: LazyDatabase | null; v6: LazyDatabase | null } {
    const none = { v4: null, v6: null };
    if (this.path === "") return none;
    try {
      if (!existsSync(this.path)) {
        this.logger?.warn({ path: this.path }, "GeoIP database not found; countries and cities stay unknown");
        return none;
      }
      const lazy = (file: string): LazyDatabase => {
        if (!looksLikeDatabase(file)) throw new Error(`${file} is not a MaxMind database`);
        return new LazyDatabase(file, this.tableDir, this.logger);
      };
      if (!statSync(this.path).isDirectory()) {
        const reader = lazy(this.path);
        return { v4: reader, v6: reader };
      }
      const files = readdirSync(this.path);
      const pick = (suffix: string) => files.find((f) => f.endsWith(suffix));
      const v4 = pick("-ipv4.mmdb");
      const v6 = pick("-ipv6.mmdb");
      const single = !v4 && !v6 ? pick(".mmdb") : undefined;
      if (single) {
        const reader = lazy(join(this.path, single));
        return { v4: reader, v6: reader };
      }
      return { v4: v4 ? lazy(join(this.path, v4)) : null, v6: v6 ? lazy(join(this.path, v6)) : null };
    } catch (err) {
      this.logger?.warn(
        { path: this.path, err: (err as Error).message },
        "GeoIP database could not be opened; countries and cities stay unknown",
      );
      return none;
    }
  }
}
