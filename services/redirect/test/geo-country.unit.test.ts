import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Reader, type Response } from "maxmind";
import { describe, expect, it } from "vitest";
import { bundledCountryDb } from "../src/config.ts";
import { GeoCountry } from "../src/geo-country.ts";

const warnings = () => {
  const seen: string[] = [];
  return { seen, logger: { warn: (_o: object, m?: string) => void seen.push(m ?? "") } };
};

describe("the country database is read per address family, when first asked", () => {
  it("reads nothing at open, the IPv4 file for an IPv4 visitor, the IPv6 file for an IPv6 one", () => {
    const geo = GeoCountry.open(bundledCountryDb());
    expect(geo.enabled).toBe(true);
    expect(geo.loaded).toEqual({ v4: false, v6: false });
    expect(geo.country(null)).toBeNull();
    expect(geo.country("not an address")).toBeNull();
    expect(geo.loaded).toEqual({ v4: false, v6: false });

    expect(geo.country("8.8.8.8")).toBe("US");
    expect(geo.loaded).toEqual({ v4: true, v6: false });
    expect(geo.country("2a00:1450:4001:80b::200e")).toBe("DE");
    expect(geo.loaded).toEqual({ v4: true, v6: true });
  });

  it("one file for both families answers both", () => {
    const geo = GeoCountry.open(join(bundledCountryDb(), "dbip-country.mmdb"));
    expect(geo.country("1.1.1.1")).toMatch(/^[A-Z]{2}$/);
    expect(geo.loaded).toEqual({ v4: true, v6: true });
  });

  it("a file that is not a database is logged once and every country is unknown", () => {
    const dir = mkdtempSync(join(tmpdir(), "kurz-geo-"));
    writeFileSync(join(dir, "bad-ipv4.mmdb"), "not a database");
    const { seen, logger } = warnings();
    const geo = GeoCountry.open(dir, logger);
    expect(geo.enabled).toBe(true);
    expect(geo.country("8.8.8.8")).toBeNull();
    expect(geo.country("9.9.9.9")).toBeNull();
    expect(seen).toEqual(["GeoIP database could not be read; country rules match nobody"]);
    // No IPv6 file in the directory: IPv6 visitors have no country, without a warning.
    expect(geo.country("2001:4860:4860::8888")).toBeNull();
    expect(seen).toHaveLength(1);
  });

  it("a missing path and an empty one mean no database", () => {
    const { seen, logger } = warnings();
    expect(GeoCountry.open("/nonexistent/kurz.mmdb", logger).enabled).toBe(false);
    expect(seen).toEqual(["GeoIP database not found; country rules match nobody"]);
    expect(GeoCountry.open("").enabled).toBe(false);
  });
});

describe("the IPv4 walk answers as the database's own reader", () => {
  // Fixed addresses, no randomness: every /8, the edges of every /16 step, and a spread of others.
  const addresses: string[] = [];
  for (let a = 0; a < 256; a++)
    for (let b = 0; b < 256; b += 17)
      addresses.push(`${a}.${b}.${(a * 7 + b) % 256}.${(a * 13 + b * 3) % 256}`);
  for (const edge of ["0.0.0.0", "255.255.255.255", "10.0.0.1", "127.0.0.1", "192.168.1.1", "100.64.0.1"])
    addresses.push(edge);

  for (const file of ["dbip-country-ipv4.mmdb", "dbip-country.mmdb"])
    it(`${file}: ${addresses.length} addresses`, () => {
      const path = join(bundledCountryDb(), file);
      const reader = new Reader<Response>(readFileSync(path));
      const geo = GeoCountry.open(path);
      const expected = (ip: string) => {
        const r = reader.get(ip) as { country_code?: string } | null;
        return r?.country_code ?? null;
      };
      const differ = addresses.filter((ip) => geo.country(ip) !== expected(ip));
      expect(differ).toEqual([]);
    });
});
