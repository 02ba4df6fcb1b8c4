// Country and city of a client address, from a MaxMind-format database (DB-IP's city database from
// npm by default). Opened once, on first use; without a database every location is unknown, which
// must never stop clicks from being stored.
import { existsSync, readdirSync, statSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import maxmind from "maxmind";

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

export class GeoIp {
  private opening: Promise<{ v4: Db | null; v6: Db | null }> | null = null;
  private readers: { v4: Db | null; v6: Db | null } | null = null;

  constructor(
    private readonly path: string,
    private readonly logger?: GeoIpLogger,
  ) {}

  /** Opens the database now (the first lookup would otherwise pay for it). Never throws. */
  async open(): Promise<void> {
    if (this.readers) return;
    this.opening ??= this.load();
    this.readers = await this.opening;
  }

  get enabled(): boolean {
    return Boolean(this.readers?.v4 || this.readers?.v6);
  }

  /** Call after open(); before that, or for anything but a public address, the location is unknown. */
  lookup(ip: string | null): Location {
    if (!ip || !this.readers) return UNKNOWN;
    const family = isIP(ip);
    const reader = family === 4 ? this.readers.v4 : family === 6 ? this.readers.v6 : null;
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

  private async load(): Promise<{ v4: Db | null; v6: Db | null }> {
    const none = { v4: null, v6: null };
    if (this.path === "") return none;
    try {
      if (!existsSync(this.path)) {
        this.logger?.warn({ path: this.path }, "GeoIP database not found; countries and cities stay unknown");
        return none;
      }
      // Read whole into memory (no file watching): lookups are then a few microseconds.
      const open = (file: string): Promise<Db> => maxmind.open(file, { watchForUpdates: false });
      if (!statSync(this.path).isDirectory()) {
        const reader = await open(this.path);
        return { v4: reader, v6: reader };
      }
      const files = readdirSync(this.path);
      const pick = (suffix: string) => files.find((f) => f.endsWith(suffix));
      const v4 = pick("-ipv4.mmdb");
      const v6 = pick("-ipv6.mmdb");
      const single = !v4 && !v6 ? pick(".mmdb") : undefined;
      if (single) {
        const reader = await open(join(this.path, single));
        return { v4: reader, v6: reader };
      }
      return {
        v4: v4 ? await open(join(this.path, v4)) : null,
        v6: v6 ? await open(join(this.path, v6)) : null,
      };
    } catch (err) {
      this.logger?.warn(
        { path: this.path, err: (err as Error).message },
        "GeoIP database could not be opened; countries and cities stay unknown",
      );
      return none;
    }
  }
}
