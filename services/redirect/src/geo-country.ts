// The visitor's country for smart links' country rules, from a MaxMind-format database (DB-IP's
// country database from npm by default, CC BY 4.0). Read whole into memory once at start, no file
// watching: a lookup is then a few microseconds and never touches the disk. Without a database every
// country is unknown, so a country rule matches nobody; nothing else depends on it.
import { existsSync, readdirSync, statSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import maxmind from "maxmind";

/** DB-IP's flat records and MaxMind's GeoLite2/GeoIP2 nested ones. */
interface CountryRecord {
  country_code?: unknown;
  country?: { iso_code?: unknown };
}

/** The part of maxmind's Reader used here; its typings insist on MaxMind's own record shapes. */
interface Db {
  get(ip: string): unknown;
}

export interface GeoCountryLogger {
  warn(o: object, m?: string): void;
}

export class GeoCountry {
  /** Every country unknown: GEOIP_DB_PATH empty, or in tests that do not ask for one. */
  static readonly none = new GeoCountry(null, null);

  private constructor(
    private readonly v4: Db | null,
    private readonly v6: Db | null,
  ) {}

  /**
   * An .mmdb file, or a directory holding `*-ipv4.mmdb` and `*-ipv6.mmdb` (or one `*.mmdb`); "" for
   * none. A database that is missing or unreadable is logged and treated as none: the redirect serves
   * on without countries rather than not at all.
   */
  static async open(path: string, logger?: GeoCountryLogger): Promise<GeoCountry> {
    if (path === "") return GeoCountry.none;
    try {
      if (!existsSync(path)) {
        logger?.warn({ path }, "GeoIP database not found; country rules match nobody");
        return GeoCountry.none;
      }
      const open = (file: string): Promise<Db> => maxmind.open(file, { watchForUpdates: false });
      if (!statSync(path).isDirectory()) {
        const reader = await open(path);
        return new GeoCountry(reader, reader);
      }
      const files = readdirSync(path);
      const pick = (suffix: string) => files.find((f) => f.endsWith(suffix));
      const v4 = pick("-ipv4.mmdb");
      const v6 = pick("-ipv6.mmdb");
      if (!v4 && !v6) {
        const single = pick(".mmdb");
        if (!single) throw new Error("no .mmdb file in the directory");
        const reader = await open(join(path, single));
        return new GeoCountry(reader, reader);
      }
      return new GeoCountry(v4 ? await open(join(path, v4)) : null, v6 ? await open(join(path, v6)) : null);
    } catch (err) {
      logger?.warn(
        { path, err: err instanceof Error ? err.message : String(err) },
        "GeoIP database could not be opened; country rules match nobody",
      );
      return GeoCountry.none;
    }
  }

  get enabled(): boolean {
    return this.v4 !== null || this.v6 !== null;
  }

  /** ISO 3166-1 alpha-2 of a public address; null for anything else, or when unknown. */
  country(ip: string | null): string | null {
    if (ip === null || !this.enabled) return null;
    const family = isIP(ip);
    const reader = family === 4 ? this.v4 : family === 6 ? this.v6 : null;
    if (reader === null) return null;
    let record: CountryRecord | null;
    try {
      record = reader.get(ip) as CountryRecord | null;
    } catch {
      return null;
    }
    const code = record?.country_code ?? record?.country?.iso_code;
    if (typeof code !== "string" || code.length !== 2) return null;
    const upper = code.toUpperCase();
    return /^[A-Z]{2}$/.test(upper) ? upper : null;
  }
}
