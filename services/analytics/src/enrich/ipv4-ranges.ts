// An IPv4 MaxMind database as a sorted table of address ranges and the places they are in: the only
// part of a record Kurz stores is its country and city, and a table of ranges holds those in about
// half the memory of the database's search tree (DB-IP's city file: 63 MB read whole, 29 MB as a
// table) and answers a look-up in a binary search of typed arrays. The table is made from the
// database once per version of it on a machine (a slice of the tree at a time, so the event loop stays
// free) and kept in a file among the system's temporary files, which every later process reads instead.
import { randomUUID } from "node:crypto";
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { setImmediate as yieldToEvents } from "node:timers/promises";
import { ipv4Number, mmdbRecord } from "@kurz/service-kit";
import { LRUCache } from "lru-cache";
import type { Location } from "./geoip.ts";

/** The parts of an IPv4 MaxMind database the table is made from. */
export interface Ipv4Database {
  /** The database file's bytes: its search tree starts at byte 0. */
  bytes: Buffer;
  metadata: { nodeCount: number; recordSize: number; ipVersion: number };
  /** The place of an address, from the database's own reader. */
  locate(ip: string): Location;
}

/** A range that holds no place: outside the database, or a record without a country. */
const NOWHERE = 0xffffffff;
const MAGIC = "KURZIP4\u0001";
const HEADER_BYTES = 24;
/** Places decoded from the table's names, kept (the database reader's own default). */
const PLACES_CACHED = 10_000;
/** Tree nodes walked between two yields to the event loop: a few ms of work. */
const NODES_PER_SLICE = 50_000;
const RIGHT_THEN_LEFT = [1, 0] as const;
/** Records read through the database's reader between two yields. */
const PLACES_PER_SLICE = 5_000;

export class Ipv4Ranges {
  private readonly places = new LRUCache<number, Location>({ max: PLACES_CACHED });

  private constructor(
    /** First address of each range, ascending; the first is 0. */
    private readonly starts: Uint32Array,
    /** The place of each range: an index into the names, or NOWHERE. */
    private readonly placeOf: Uint32Array,
    /** Where each place's name ends in `names`: country (2 bytes) then city (UTF-8). */
    private readonly nameEnds: Uint32Array,
    private readonly names: Buffer,
  ) {}

  get size(): number {
    return this.starts.length;
  }

  /** The place of a dotted-quad IPv4 address; null when the database has none for it. */
  lookup(ip: string): Location | null {
    const address = ipv4Number(ip);
    if (address < 0) return null;
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.starts[mid]! <= address) lo = mid;
      else hi = mid - 1;
    }
    const place = this.placeOf[lo]!;
    if (place === NOWHERE) return null;
    let found = this.places.get(place);
    if (!found) {
      const start = place === 0 ? 0 : this.nameEnds[place - 1]!;
      found = {
        country: this.names.toString("latin1", start, start + 2),
        city: this.names.toString("utf8", start + 2, this.nameEnds[place]!),
      };
      this.places.set(place, found);
    }
    return found;
  }

  /**
   * The table of `db`, made a slice at a time. The tree is walked in address order into ranges by
   * data record; each record is then read once, through the database's reader, at the first address
   * that reaches it, and neighbouring ranges in the same place are joined. It runs before the service
   * takes clicks (GeoIp.open), so its maps of records and places (~20 MB) share the heap with nothing.
   */
  static async build(db: Ipv4Database): Promise<Ipv4Ranges> {
    const { nodeCount, recordSize, ipVersion } = db.metadata;
    if (ipVersion !== 4) throw new Error(`an IPv4 database is needed, this one is IPv${ipVersion}`);
    // Checked here, not on each of the walk's millions of reads.
    mmdbRecord(db.bytes, recordSize, 0, 0);
    // 1. Ranges by data pointer (NOWHERE for "no data"), neighbours with the same pointer joined.
    let starts: Uint32Array<ArrayBuffer> = new Uint32Array(1 << 22);
    let pointers: Uint32Array<ArrayBuffer> = new Uint32Array(1 << 22);
    let count = 0;
    const values = [0];
    const firsts = [0];
    const depths = [0];
    let walked = 0;
    while (values.length > 0) {
      const value = values.pop()!;
      const first = firsts.pop()!;
      const depth = depths.pop()!;
      if (depth < 0) {
        const pointer = value === nodeCount ? NOWHERE : value;
        if (count > 0 && pointers[count - 1] === pointer) continue;
        if (count === starts.length) {
          starts = grow(starts);
          pointers = grow(pointers);
        }
        starts[count] = first;
        pointers[count] = pointer;
        count++;
        continue;
      }
      // Right pushed before left, so that ranges come off the stack in address order. A child that
      // is not a node is a leaf (depth -1): a data pointer or "no data".
      for (const side of RIGHT_THEN_LEFT) {
        const child = mmdbRecord(db.bytes, recordSize, value, side);
        values.push(child);
        firsts.push(side === 1 ? first + 2 ** (31 - depth) : first);
        depths.push(child < nodeCount ? depth + 1 : -1);
      }
      if (++walked % NODES_PER_SLICE === 0) await yieldToEvents();
    }
    // 2. Each distinct pointer's place, read at the first range that has it.
    const placeOfPointer = new Map<number, number>();
    const placeIndex = new Map<string, number>();
    let names = Buffer.alloc(1 << 20);
    let nameEnds: Uint32Array<ArrayBuffer> = new Uint32Array(1 << 16);
    let places = 0;
    let nameBytes = 0;
    let joined = 0;
    for (let i = 0; i < count; i++) {
      let place = NOWHERE;
      const pointer = pointers[i]!;
      if (pointer !== NOWHERE) {
        const known = placeOfPointer.get(pointer);
        if (known !== undefined) place = known;
        else {
          const where = db.locate(formatIpv4(starts[i]!));
          if (where.country !== "") {
            const key = `${where.country}${where.city}`;
            place = placeIndex.get(key) ?? places;
            if (place === places) {
              placeIndex.set(key, place);
              const length = Buffer.byteLength(key);
              if (nameBytes + length > names.length)
                names = Buffer.concat([names, Buffer.alloc(names.length)]);
              names.write(key, nameBytes);
              nameBytes += length;
              if (places === nameEnds.length) nameEnds = grow(nameEnds);
              nameEnds[places++] = nameBytes;
            }
          }
          placeOfPointer.set(pointer, place);
          if (placeOfPointer.size % PLACES_PER_SLICE === 0) await yieldToEvents();
        }
      }
      // 3. Joined in place: the output never runs ahead of the input.
      if (joined > 0 && pointers[joined - 1] === place) continue;
      starts[joined] = starts[i]!;
      pointers[joined] = place;
      joined++;
    }
    return new Ipv4Ranges(
      starts.slice(0, joined),
      pointers.slice(0, joined),
      nameEnds.slice(0, places),
      Buffer.from(names.subarray(0, nameBytes)),
    );
  }

  /** The table kept for `source` (a database file, by its identity), or null when none is or it is unreadable. */
  static read(source: FileIdentity, dir = defaultDir()): Ipv4Ranges | null {
    let bytes: Buffer;
    try {
      if (!ownDirectory(dir)) return null;
      bytes = readFileSync(tableFile(source, dir));
    } catch {
      return null;
    }
    if (bytes.length < HEADER_BYTES || bytes.toString("latin1", 0, 8) !== MAGIC) return null;
    const ranges = bytes.readUInt32LE(8);
    const places = bytes.readUInt32LE(12);
    const nameBytes = bytes.readUInt32LE(16);
    if (bytes.length !== HEADER_BYTES + 8 * ranges + 4 * places + nameBytes || ranges === 0) return null;
    // Typed arrays over the file's own bytes need 4-byte alignment; a copy of one that is not.
    const aligned = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(bytes);
    const view = (offset: number, length: number) =>
      new Uint32Array(aligned.buffer, aligned.byteOffset + offset, length);
    const starts = view(HEADER_BYTES, ranges);
    const placeOf = view(HEADER_BYTES + 4 * ranges, ranges);
    const nameEnds = view(HEADER_BYTES + 8 * ranges, places);
    const names = aligned.subarray(HEADER_BYTES + 8 * ranges + 4 * places);
    if (!wellFormed(starts, placeOf, nameEnds, nameBytes)) return null;
    return new Ipv4Ranges(starts, placeOf, nameEnds, names);
  }

  /** Whether a table of the right size is kept for `source` (read() checks the rest). */
  static kept(source: FileIdentity, dir = defaultDir()): boolean {
    const header = Buffer.alloc(HEADER_BYTES);
    let fd: number | undefined;
    try {
      if (!ownDirectory(dir)) return false;
      fd = openSync(tableFile(source, dir), "r");
      if (readSync(fd, header, 0, HEADER_BYTES, 0) !== HEADER_BYTES) return false;
      const expected =
        HEADER_BYTES + 8 * header.readUInt32LE(8) + 4 * header.readUInt32LE(12) + header.readUInt32LE(16);
      return header.toString("latin1", 0, 8) === MAGIC && fstatSync(fd).size === expected;
    } catch {
      return false;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /** Keeps this table for `source`; a failure only means the next process makes it again. */
  write(source: FileIdentity, dir = defaultDir()): boolean {
    const header = Buffer.alloc(HEADER_BYTES);
    header.write(MAGIC, 0, "latin1");
    header.writeUInt32LE(this.starts.length, 8);
    header.writeUInt32LE(this.nameEnds.length, 12);
    header.writeUInt32LE(this.names.length, 16);
    const file = tableFile(source, dir);
    // Written whole under another name, then renamed: a reader sees the whole table or none.
    const partial = `${file}.${randomUUID()}.partial`;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (!ownDirectory(dir)) return false;
      writeFileSync(
        partial,
        Buffer.concat([
          header,
          bytesOf(this.starts),
          bytesOf(this.placeOf),
          bytesOf(this.nameEnds),
          this.names,
        ]),
      );
      renameSync(partial, file);
      return true;
    } catch {
      rmSync(partial, { force: true });
      return false;
    }
  }
}

/** Which version of a database file a table was made from. */
export interface FileIdentity {
  path: string;
  size: number;
  mtimeMs: number;
}

/**
 * Whether `dir` is this user's alone: the default sits in the shared temporary directory, where another
 * user could have made it first and put tables of their own in it.
 */
function ownDirectory(dir: string): boolean {
  try {
    const { uid, mode } = statSync(dir);
    return (process.getuid === undefined || uid === process.getuid()) && (mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** Every range starts after the one before, from 0; every place is a name; names end in order. */
function wellFormed(
  starts: Uint32Array,
  placeOf: Uint32Array,
  nameEnds: Uint32Array,
  nameBytes: number,
): boolean {
  if (starts[0] !== 0) return false;
  for (let i = 1; i < starts.length; i++) if (starts[i]! <= starts[i - 1]!) return false;
  for (let i = 0; i < placeOf.length; i++)
    if (placeOf[i] !== NOWHERE && placeOf[i]! >= nameEnds.length) return false;
  let end = 0;
  for (let i = 0; i < nameEnds.length; i++) {
    // A place is its 2-letter country and a city of any length.
    if (nameEnds[i]! < end + 2) return false;
    end = nameEnds[i]!;
  }
  return end === nameBytes;
}

function defaultDir(): string {
  return join(tmpdir(), "kurz-geoip");
}

function tableFile(source: FileIdentity, dir: string): string {
  const name = basename(source.path).replace(/[^A-Za-z0-9._-]/g, "_");
  return join(dir, `${name}.${source.size}.${Math.trunc(source.mtimeMs)}.ipv4-ranges`);
}

const bytesOf = (a: Uint32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

function grow(a: Uint32Array): Uint32Array<ArrayBuffer> {
  const larger = new Uint32Array(Math.ceil(a.length * 1.5));
  larger.set(a);
  return larger;
}

function formatIpv4(address: number): string {
  return `${address >>> 24}.${(address >>> 16) & 255}.${(address >>> 8) & 255}.${address & 255}`;
}
