// Write-through of link records into Redis for the redirect service. Redis is a cache, never the only
// copy: a failed write here is healed by the redirect's miss path (internal resolve).
//
// Every write also deletes the code's shared negative entry (`miss:<code>`, set by the redirect when
// this service answered 404), in the same transaction: a code created just after a visitor's miss
// redirects at once, on every instance.
//
// Writes happen after the commit, so two writes of one link can reach Redis in either order: two edits
// on two instances, an edit and the miss path's read, a delete and any write that committed or read
// before it. Each record carries the row's version and Redis keeps the highest; a delete leaves a
// tombstone that refuses every later write of that link (decision 0052).
//
// A smart link's record carries its smart members compiled (`s`, links/smart-fields.ts); a link with a
// click limit also has a counter the redirect increments (clickLimitKey) and the set of replayed click
// ids a snapshot replay counted in it (clickLimitReplayedKey), both removed with the link.
import {
  clickLimitKey,
  clickLimitReplayedKey,
  INVALIDATION_CHANNEL,
  invalidationMessages,
  type RedirectRecord,
  redirectKey,
  redirectMissKey,
  toLocation,
} from "@kurz/contracts";
import type { Link } from "@kurz/db";
import type { Redis } from "ioredis";
import { CallBatcher } from "../db/call-batcher.ts";
import { compileSmart } from "../links/smart-fields.ts";
import { TOMBSTONE_TTL_SECONDS, tombstone } from "./versioned-writes.ts";

/**
 * The record the redirect reads for `link`. `baseUrl` is the service's public origin, which a preview
 * image's absolute URL is made from.
 */
export function toRedirectRecord(link: Link, baseUrl?: string): RedirectRecord {
  const record: RedirectRecord = {
    id: link.id,
    account_id: link.accountId,
    // The Location the redirect sends as it is (a valid URI); the link keeps the URL as it was given.
    url: toLocation(link.originalUrl),
    active: link.isActive,
    expires_at: link.expiresAt ? link.expiresAt.getTime() : null,
    password_hash: link.passwordHash,
    overlay_id: link.overlayId,
    frameable: link.frameable,
    domain_id: link.domainId,
    v: Number(link.version),
    c: link.createdAt.getTime(),
  };
  const s = compileSmart(link, baseUrl);
  if (s !== undefined) record.s = s;
  // Only while broken: a healthy link's record stays as it was, and old redirects ignore the member.
  if (link.brokenSince !== null && link.brokenUrl !== null) record.b = toLocation(link.brokenUrl);
  return record;
}

/**
 * The writes of put and putMany for n records (KEYS: each record's key and its miss entry's; ARGV: each
 * record's JSON, link id, version and creation time, then the channel and one message naming every
 * code): each record written unless its key holds the same link at a higher version or as deleted, or
 * holds another link created after this one (decision 0052), the shared miss entries of those written
 * dropped, the redirects told once. One script, as atomic as a MULTI (decision 0044), for any number of
 * records (decision 0052).
 *
 * Of two links that held one code, the later-created one is the live one: the code is unique in
 * Postgres, so the earlier link was deleted before the later was made, and its writes are late ones. A
 * value that is not JSON, or a record from before `c` (read as 0), is overwritten. The new record's id,
 * version and creation come as arguments of their own, though its JSON holds them: Redis runs a script
 * alone, so it decodes only the value it holds, not each value it is given.
 */
const PUT_SCRIPT = `local n = #KEYS / 2
local written = 0
for i = 1, n do
  local key = KEYS[2 * i - 1]
  local write = true
  local current = redis.call('GET', key)
  if current then
    local ok, held = pcall(cjson.decode, current)
    if ok and type(held) == 'table' then
      if held.id == ARGV[4 * i - 2] then
        if held.deleted == true or (tonumber(held.v) or 0) > (tonumber(ARGV[4 * i - 1]) or 0) then write = false end
      elseif (tonumber(held.c) or 0) > (tonumber(ARGV[4 * i]) or 0) then
        write = false
      end
    end
  end
  if write then
    redis.call('SET', key, ARGV[4 * i - 3])
    redis.call('DEL', KEYS[2 * i])
    written = written + 1
  end
end
redis.call('PUBLISH', ARGV[4 * n + 1], ARGV[4 * n + 2])
return written`;

/** Records per script call: a record is a few hundred bytes, and Redis runs a script alone. */
const RECORDS_PER_CALL = 100;

type PutCommand = (numberOfKeys: number, ...keysThenArgs: string[]) => Promise<unknown>;

export class RedirectRecords {
  // putMany never throws (a failed write is a warning), so every put resolves once its call is done.
  private readonly puts = new CallBatcher<Link, true>((links) =>
    this.putMany(links).then(() => links.map(() => true as const)),
  );

  constructor(
    private readonly redis: Redis,
    private readonly logger: { warn(o: object, m?: string): void },
    /** The service's public origin (PUBLIC_BASE_URL): preview images are served under it. */
    readonly baseUrl?: string,
  ) {
    // ioredis sends it by SHA and falls back to the script itself when Redis does not know it.
    redis.defineCommand("kurzPutRedirects", { lua: PUT_SCRIPT });
  }

  /**
   * Writes one link's record. The puts that arrive in one turn of the event loop (the creates that one
   * database call committed together, decision 0044) go out as one script call with one message to the
   * redirects (decision 0052): every redirect instance handles every message, so a message per create
   * cost each instance a message per create.
   */
  async put(link: Link): Promise<void> {
    await this.puts.submit(link);
  }

  /** Many records in few round trips (an import batch, puts of one turn); a failure is healed as put's. */
  async putMany(links: readonly Link[]): Promise<void> {
    for (let start = 0; start < links.length; start += RECORDS_PER_CALL) {
      const chunk = links.slice(start, start + RECORDS_PER_CALL);
      const keys = chunk.flatMap((link) => [redirectKey(link.shortCode), redirectMissKey(link.shortCode)]);
      const records = chunk.flatMap((link) => [
        JSON.stringify(toRedirectRecord(link, this.baseUrl)),
        link.id,
        String(link.version),
        String(link.createdAt.getTime()),
      ]);
      const message = invalidationMessages(chunk.map((link) => link.shortCode));
      try {
        // The keys get the client's prefix; the channel is passed as it was to PUBLISH, without it.
        await (this.redis as unknown as { kurzPutRedirects: PutCommand }).kurzPutRedirects(
          keys.length,
          ...keys,
          ...records,
          INVALIDATION_CHANNEL,
          message,
        );
      } catch (err) {
        this.logger.warn(
          { err: String(err), count: chunk.length, code: chunk[0]?.shortCode },
          "redirect record writes failed; the miss path will heal them",
        );
      }
    }
  }

  /**
   * Deleted links' records replaced by tombstones (decision 0052), many in one round trip (a branded
   * domain's links deleted with it), announced in one message.
   */
  async removeMany(links: readonly Pick<Link, "id" | "shortCode" | "createdAt">[]): Promise<void> {
    if (links.length === 0) return;
    const codes = links.map((link) => link.shortCode);
    try {
      const multi = this.redis.multi();
      for (const link of links) {
        const value = tombstone({ id: link.id, c: link.createdAt.getTime() });
        multi.set(redirectKey(link.shortCode), value, "EX", TOMBSTONE_TTL_SECONDS);
        multi.del(clickLimitKey(link.id), clickLimitReplayedKey(link.id));
      }
      await multi.publish(INVALIDATION_CHANNEL, invalidationMessages(codes)).exec();
    } catch (err) {
      this.logger.warn(
        { err: String(err), count: links.length, code: codes[0] },
        "redirect record deletes failed",
      );
    }
  }

  /**
   * The click counters of links whose limit was removed. A failure is only a warning: a counter left
   * behind counts again from where it stood if the link gets a limit again.
   */
  async clearClickLimits(links: readonly Pick<Link, "id">[]): Promise<void> {
    if (links.length === 0) return;
    try {
      await this.redis.del(
        ...links.flatMap((link) => [clickLimitKey(link.id), clickLimitReplayedKey(link.id)]),
      );
    } catch (err) {
      this.logger.warn({ err: String(err), count: links.length }, "click counter deletes failed");
    }
  }
}
