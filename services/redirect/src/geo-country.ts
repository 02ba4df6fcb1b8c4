// The visitor's country for smart links' country rules, from a MaxMind-format database (DB-IP's
// country database from npm by default, CC BY 4.0). Each address family's file is read whole into
// memory the first time a country rule asks about an address of that family (one synchronous read of
// a few MB, once), never watched or reloaded: a redirect whose links have no country rule holds none of
// it, and one whose visitors are all IPv4 holds only the IPv4 file. Without a database every country
// is unknown, so a country rule matches nobody; nothing else depends on it.
//
// A country rule is evaluated on every visit of its link, so an IPv4 lookup walks the database's
// search tree here (the MaxMind DB format: one node per bit, 24/28/32-bit records) from a number
// parsed without allocating (its first 16 bits in one read of a table built on the first IPv4
// lookup), and keeps the country of each data record it reaches: a few hundred records, each decoded
// once by maxmind's reader. Anything else (IPv6, odd spellings) takes the reader's own lookup.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import { ipv4Number, mmdbRecord } from "@kurz/service-kit";
import { Reader, type Response } from "maxmind";

/** DB-IP's flat records and MaxMind's GeoLite2/GeoIP2 nested ones. */
interface CountryRecord {
  country_code?: unknown;
  country?: { iso_code?: unknown };
}

export interface GeoCountryLogger {
  warn(o: object, m?: string): void;
}

const countryOf = (record: CountryRecord | null): string | null => {
  const code = record?.country_code ?? record?.country?.iso_code;
  if (typeof code !== "string" || code.length !== 2) return null;
  const upper = code.toUpperCase();
  return /^[A-Z]{2}$/.test(upper) ? upper : null;
};

/** Bits of an IPv4 address looked up in one table read (Db.prefixTable): 2^16 entries, 256 KB. */
const PREFIX_BITS = 16;

/** Data records remembered per database; a country database has a few hundred. */
const RECORDS_MAX = 100_000;

/** One opened database. */
class Db {
  private readonly reader: Reader<Response>;
  private readonly nodeCount: number;
  private readonly recordSize: number;
  private readonly v4Start: number;
  private v4Prefix: Uint32Array | undefined;
  private readonly byRecord = new Map<number, string | null>();

  constructor(private readonly buf: Buffer) {
    this.reader = new Reader<Response>(buf);
    const m = this.reader.metadata;
    this.nodeCount = m.nodeCount;
    this.recordSize = m.recordSize;
    if (![24, 28, 32].includes(this.recordSize))
      throw new Error(`unsupported record size ${this.recordSize}`);
    // In an IPv6 tree the IPv4 space is ::/96's subtree: 96 zero bits down from the root.
    let node = 0;
    if (m.ipVersion === 6) for (let i = 0; i < 96 && node < this.nodeCount; i++) node = this.child(node, 0);
    this.v4Start = node;
  }

  /**
   * The node each first 16 bits of an IPv4 address lead to from the IPv4 root (or the leaf the walk
   * ends at sooner): one read instead of the walk's first 16 steps.
   */
  private prefixTable(): Uint32Array {
    const start = this.v4Start;
    const table = new Uint32Array(1 << PREFIX_BITS);
    const fill = (node: number, depth: number, from: number) => {
      if (depth === PREFIX_BITS || node >= this.nodeCount) {
        table.fill(node, from, from + (1 << (PREFIX_BITS - depth)));
        return;
      }
      const half = 1 << (PREFIX_BITS - depth - 1);
      fill(this.child(node, 0), depth + 1, from);
      fill(this.child(node, 1), depth + 1, from + half);
    };
    fill(start, 0, 0);
    this.v4Prefix = table;
    return table;
  }

  private child(node: number, bit: number): number {
    return mmdbRecord(this.buf, this.recordSize, node, bit);
  }

  /** The country of an IPv4 address given as its number and as text (for the reader, once per record). */
  v4(n: number, ip: string): string | null {
    const count = this.nodeCount;
    let node = (this.v4Prefix ?? this.prefixTable())[n >>> (32 - PREFIX_BITS)]!;
    let depth = PREFIX_BITS;
    // The common 24-bit records read inline: this runs up to 32 times a lookup.
    if (this.recordSize === 24) {
      const b = this.buf;
      for (; depth < 32 && node < count; depth++) {
        const o = node * 6 + ((n >>> (31 - depth)) & 1) * 3;
        node = (b[o]! << 16) | (b[o + 1]! << 8) | b[o + 2]!;
      }
    } else {
      for (; depth < 32 && node < count; depth++) node = this.child(node, (n >>> (31 - depth)) & 1);
    }
    if (node <= count) return null; // `count` itself marks "no data"
    const known = this.byRecord.get(node);
    if (known !== undefined) return known;
    const country = this.slow(ip);
    if (this.byRecord.size >= RECORDS_MAX) this.byRecord.clear();
    this.byRecord.set(node, country);
    return country;
  }

  slow(ip: string): string | null {
    try {
      return countryOf(this.reader.get(ip) as CountryRecord | null);
    } catch {
      return null;
    }
  }
}

/** A database file read on first use; a file that cannot be read is logged once and is none. */
class LazyDb {
  private db: Db | null | undefined;

  constructor(
    private readonly file: string,
    private readonly logger: GeoCountryLogger | undefined,
  ) {}

  get(): Db | null {
    if (this.db !== undefined) return this.db;
    try {
      this.db = new Db(readFileSync(this.file));
    } catch (err) {
      this.logger?.warn(
        { path: this.file, err: err instanceof Error ? err.message : String(err) },
        "GeoIP database could not be read; country rules match nobody",
      );
      this.db = null;
    }
    return this.db;
  }

  /** Whether the file has been read (for tests and the benchmark's memory figures). */
  get loaded(): boolean {
    return this.db !== undefined;
  }
}

export class GeoCountry {
  /** Every country unknown: GEOIP_DB_PATH empty, or in tests that do not ask for one. */
  static readonly none = new GeoCountry(null, null);

  private constructor(
    private readonly v4db: LazyDb | null,
    private readonly v6db: LazyDb | null,
  ) {}

  /**
   * An .mmdb file, or a directory holding `*-ipv4.mmdb` and `*-ipv6.mmdb` (or one `*.mmdb`); "" for
   * none. Only the names are checked here; each file is read when first needed. A database that is
   * missing or unreadable is logged and treated as none: the redirect serves on without countries
   * rather than not at all.
   */
  static open(path: string, logger?: GeoCountryLogger): GeoCountry {
    if (path === "") return GeoCountry.none;
    try {
      if (!existsSync(path)) {
        logger?.warn({ path }, "GeoIP database not found; country rules match nobody");
        return GeoCountry.none;
      }
      const lazy = (file: string) => new LazyDb(file, logger);
      if (!statSync(path).isDirectory()) {
        const db = lazy(path);
        return new GeoCountry(db, db);
      }
      const files = readdirSync(path);
      const pick = (suffix: string) => files.find((f) => f.endsWith(suffix));
      const v4 = pick("-ipv4.mmdb");
      const v6 = pick("-ipv6.mmdb");
      if (!v4 && !v6) {
        const single = pick(".mmdb");
        if (!single) throw new Error("no .mmdb file in the directory");
        const db = lazy(join(path, single));
        return new GeoCountry(db, db);
      }
      return new GeoCountry(v4 ? lazy(join(path, v4)) : null, v6 ? lazy(join(path, v6)) : null);
    } catch (err) {
      logger?.warn(
        { path, err: err instanceof Error ? err.message : String(err) },
        "GeoIP database could not be opened; country rules match nobody",
      );
      return GeoCountry.none;
    }
  }

  get enabled(): boolean {
    return this.v4db !== null || this.v6db !== null;
  }

  /** Which families' files have been read so far. */
  get loaded(): { v4: boolean; v6: boolean } {
    return { v4: this.v4db?.loaded ?? false, v6: this.v6db?.loaded ?? false };
  }

  /** ISO 3166-1 alpha-2 of a public address; null for anything else, or when unknown. */
  country(ip: string | null): string | null {
    if (ip === null) return null;
    const n = ipv4Number(ip);
    if (n !== -1) return this.v4db?.get()?.v4(n, ip) ?? null;
    const family = isIP(ip);
    const db = family === 4 ? this.v4db : family === 6 ? this.v6db : null;
    return db?.get()?.slow(ip) ?? null;
  }
}
