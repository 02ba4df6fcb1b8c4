// Tombstones and versions in Redis for the redirect's records (decision 0052). Management writes
// a record after its commit, so a write that committed or read before another can reach Redis after
// it: each record carries a version and Redis keeps the highest, and a removed record leaves a tombstone
// in its place, where a deleted key would let a late write in. The link records' own rules (versions,
// creation times) are in projections/link-records.ts' put script; these are the other records'.
import { INVALIDATION_CHANNEL, type RecordTombstone } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import type { Redis } from "ioredis";

/**
 * How long a tombstone (a deleted link's, or a removed domain's, rotator's or overlay's) refuses late
 * writes: milliseconds after the delete, or as long as ioredis holds a command while Redis is away. A
 * day covers both; after it the key is gone and the redirect's miss path answers from Postgres, which
 * no longer has the row.
 */
export const TOMBSTONE_TTL_SECONDS = 86_400;

/** A tombstone's JSON: `{"deleted":true}` and what it names (contracts' RecordTombstone). */
export function tombstone(names: Omit<RecordTombstone, "deleted"> = {}): string {
  const value: RecordTombstone = { deleted: true, ...names };
  return JSON.stringify(value);
}

/**
 * Every write of a domain, rotator or overlay record or of its tombstone (KEYS: its key; ARGV: the value,
 * the row's id, the version, the tombstone's TTL in seconds or 0 for none): written unless the key holds
 * that row's tombstone (the row was deleted, decision 0052) or a value of the same or a higher version
 * (decision 0052). Versions come from one Postgres sequence: a domain's and an overlay's are the row's,
 * drawn anew by each UPDATE under the row's lock; a rotator's is drawn before it is read. So of two
 * writes that cross, the later state wins, whichever reaches Redis first; the miss path's heal is one
 * more such write. A value without a version (written before them) is replaced.
 */
const VERSIONED_SET_SCRIPT = `local current = redis.call('GET', KEYS[1])
if current then
  local ok, held = pcall(cjson.decode, current)
  if ok and type(held) == 'table' then
    if held.deleted == true and held.id ~= nil and tostring(held.id) == ARGV[2] then return 0 end
    if (tonumber(held.v) or 0) >= (tonumber(ARGV[3]) or 0) then return 0 end
  end
end
if ARGV[4] == '0' then
  redis.call('SET', KEYS[1], ARGV[1])
else
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[4])
end
return 1`;

type VersionedSet = {
  kurzVersionedSet(key: string, value: string, rowId: string, version: string, ttlSeconds: string): unknown;
};

/** A record or a tombstone to write, its row and version, and how long it lasts. */
export interface VersionedValue {
  value: string;
  rowId: string | number;
  version: bigint | number;
  /** A tombstone's TTL_SECONDS; a record lasts. */
  ttlSeconds?: number;
}

/**
 * Writes `v` at `key` by the versioned script and announces `invalidation` to the redirects, in one
 * MULTI; throws what Redis throws (the callers log it: the miss path heals a write that failed).
 */
export async function writeVersioned(
  redis: Redis,
  key: string,
  v: VersionedValue,
  invalidation: string,
): Promise<void> {
  // Defined on first use, once per client (ioredis sends it by SHA, and the script itself when unknown).
  if (!("kurzVersionedSet" in redis)) {
    redis.defineCommand("kurzVersionedSet", { numberOfKeys: 1, lua: VERSIONED_SET_SCRIPT });
  }
  const tx = redis.multi();
  (tx as unknown as VersionedSet).kurzVersionedSet(
    key,
    v.value,
    String(v.rowId),
    String(v.version),
    String(v.ttlSeconds ?? 0),
  );
  await tx.publish(INVALIDATION_CHANNEL, invalidation).exec();
}

/**
 * A rotator's version (decision 0052): drawn before its read, as a separate statement, so a read that
 * sees more was drawn later. A rotator has no row of its own to carry one.
 */
export async function drawRecordVersion(prisma: PrismaClient): Promise<bigint> {
  const [row] = await prisma.$queryRaw<{ v: bigint }[]>`SELECT kurz_new_record_version() AS v`;
  return row!.v;
}
