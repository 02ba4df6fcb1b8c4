// Country and city of a client address, from a MaxMind-format database (DB-IP's city database from
// npm by default: 63 MB for IPv4, 71 MB for IPv6). open() only finds the files and checks that each is a
// database; a family's file is read whole into memory by the first lookup of an address of that family
// (one synchronous read, once per process: every GeoIp on the same unchanged file shares it, as the
// in-process test stacks one worker starts after another do), so a service whose clicks are all IPv4
// never holds the IPv6 file, and one that counts no click holds neither. Without a database every location is unknown,
// which must never stop clicks from being stored.
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
import { LRUCache } from "lru-cache";
import { Reader } from "maxmind";

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

/**
 * The databases this process has read, by path: a reader and the file's size and modification time it
 * was read at. The file is read again when it has changed since (a new database in place).
 */
const readers = new Map<string, { version: string; reader: Db }>();

/** The database in `file`, read unless this process already holds that version of it. */
function readerOf(file: string): Db {
  const { size, mtimeMs, ino } = statSync(file);
  const version = `${ino}:${size}:${mtimeMs}`;
  const held = readers.get(file);
  if (held?.version === version) return held.reader;
  const cache = new LRUCache<number, object>({ max: RECORDS_CACHED });
  const reader = new Reader(readFileSync(file), { cache }) as Db;
  readers.set(file, { version, reader });
  return reader;
}

/** One family's file, read on first use; one that cannot be read is logged once and is none. */
class LazyReader {
  private reader: Db | null | undefined;

  constructor(
    private readonly file: string,
    private readonly logger: GeoIpLogger | undefined,
  ) {}

  get(): Db | null {
    if (this.reader !== undefined) return this.reader;
    try {
      this.reader = readerOf(this.file);
    } catch (err) {
      this.logger?.warn(
        { path: this.file, err: (err as Error).message },
        "GeoIP database could not be read; countries and cities stay unknown",
      );
      this.reader = null;
    }
    return this.reader;
  }

  get loaded(): boolean {
    return this.reader !== undefined;
  }
}

export class GeoIp {
  private files: { v4: LazyReader | null; v6: LazyReader | null } | null = null;

  constructor(
    private readonly path: string,
    private readonly logger?: GeoIpLogger,
  ) {}

  /** Finds the database's files (the first lookup of each family reads its file). Never throws. */
  async open(): Promise<void> {
    this.files ??= this.find();
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
    const reader = (family === 4 ? this.files.v4 : family === 6 ? this.files.v6 : null)?.get();
    if (!reader) return UNKNOWN;
    let record: GeoRecord | null;
    try {
      record = reader.get(ip) as GeoRecord | null;
    } catch {
      return UNKNOWN;
    }
    if (!record) return UNKNOWN;
    const country = (record.country_code ?? record.country?.iso_code ?? "").toUpperCase();
    const city = typeof record.city === "string" ? record.city : (record.city?.names?.en ?? "");
    return /^[A-Z]{2}$/.test(country) ? { country, city } : UNKNOWN;
  }

  private find(): { v4: LazyReader | null; v6: LazyReader | null } {
    const none = { v4: null, v6: null };
    if (this.path === "") return none;
    try {
      if (!existsSync(this.path)) {
        this.logger?.warn({ path: this.path }, "GeoIP database not found; countries and cities stay unknown");
        return none;
      }
      const lazy = (file: string): LazyReader => {
        if (!looksLikeDatabase(file)) throw new Error(`${file} is not a MaxMind database`);
        return new LazyReader(file, this.logger);
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
