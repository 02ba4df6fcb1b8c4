import { decodeValue } from "../codec.ts";
import type { Delivery } from "../deliver-batch.ts";

// Entry layout written by RedisBus.publish: k = key, v = JSON value, h = JSON headers.

export type RawEntry = [id: string, fields: string[] | null];

export function toDelivery<T>(topic: string, [id, fields]: RawEntry, deliveryAttempt: number): Delivery<T> {
  const f = new Map<string, string>();
  for (let i = 0; fields && i + 1 < fields.length; i += 2) f.set(fields[i]!, fields[i + 1]!);
  const base = { topic, id, key: f.get("k") ?? "", deliveryAttempt };
  let headers: Record<string, string> = {};
  try {
    headers = f.has("h") ? (JSON.parse(f.get("h")!) as Record<string, string>) : {};
  } catch {
    // Undecodable headers do not make the value unusable; the value check below decides.
  }
  try {
    if (!f.has("v")) throw new Error("entry has no v field");
    return { message: { ...base, headers, value: decodeValue<T>(f.get("v")) } };
  } catch (e) {
    return {
      message: { ...base, headers, value: (f.get("v") ?? null) as T },
      rejected: `undecodable entry: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
}

/** An entry's size as read: the characters of its fields (the JSON of its key, value and headers). */
export function entryChars([, fields]: RawEntry): number {
  let n = 0;
  for (const f of fields ?? []) n += f.length;
  return n;
}

/** XREADGROUP reply → entries of the one stream read. */
export function entriesOfRead(reply: unknown): RawEntry[] {
  if (!Array.isArray(reply) || reply.length === 0) return [];
  const [, entries] = reply[0] as [string, RawEntry[]];
  return entries ?? [];
}

/** Stream ids compare as (milliseconds, sequence) pairs, not as strings. */
export function compareStreamIds(a: string, b: string): number {
  const [am = "0", as = "0"] = a.split("-");
  const [bm = "0", bs = "0"] = b.split("-");
  const ms = BigInt(am) - BigInt(bm);
  if (ms !== 0n) return ms < 0n ? -1 : 1;
  const seq = BigInt(as) - BigInt(bs);
  return seq === 0n ? 0 : seq < 0n ? -1 : 1;
}
