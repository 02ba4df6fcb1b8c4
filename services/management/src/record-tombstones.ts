// Tombstones in Redis for the redirect's records (decision 0051). Management writes a record after its
// commit, so a write that committed or read before a delete can reach Redis after it; a tombstone in the
// deleted record's place refuses it, where a deleted key would let it in. The link records' own rules
// (versions, creation times) are in redirect-records.ts' put script; these are the other records'.
import type { RecordTombstone } from "@kurz/contracts";
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
 * The API's write of a domain, rotator or overlay record (KEYS: its key; ARGV: the record, the row's
 * id): written unless the key holds that row's tombstone (decision 0051).
 */
const GUARDED_SET_SCRIPT = `local current = redis.call('GET', KEYS[1])
if current then
  local ok, held = pcall(cjson.decode, current)
  if ok and type(held) == 'table' and held.deleted == true and held.id ~= nil and tostring(held.id) == ARGV[2] then
    return 0
  end
end
redis.call('SET', KEYS[1], ARGV[1])
return 1`;

/** The guarded write as a command of the client, and of its MULTIs. */
export type GuardedSet = { kurzGuardedSet(key: string, value: string, rowId: string): unknown };

/** Once per client: the domain, rotator and overlay writers share management's Redis client. */
export function defineGuardedSet(redis: Redis): void {
  if ("kurzGuardedSet" in redis) return;
  redis.defineCommand("kurzGuardedSet", { numberOfKeys: 1, lua: GUARDED_SET_SCRIPT });
}
