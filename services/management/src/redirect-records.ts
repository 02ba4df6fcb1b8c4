// Write-through of link records into Redis for the redirect service. Redis is a cache, never the only
// copy: a failed write here is healed by the redirect's miss path (internal resolve).
//
// Every write also deletes the code's shared negative entry (`miss:<code>`, set by the redirect when
// this service answered 404), in the same transaction: a code created just after a visitor's miss
// redirects at once, on every instance.
import {
  INVALIDATION_CHANNEL,
  invalidationMessages,
  type RedirectRecord,
  redirectKey,
  redirectMissKey,
} from "@kurz/contracts";
import type { Link } from "@kurz/db";
import type { Redis } from "ioredis";
import { CallBatcher } from "./call-batcher.ts";

export function toRedirectRecord(link: Link): RedirectRecord {
  return {
    id: link.id,
    account_id: link.accountId,
    url: link.originalUrl,
    active: link.isActive,
    expires_at: link.expiresAt ? link.expiresAt.getTime() : null,
    password_hash: link.passwordHash,
    overlay_id: link.overlayId,
    frameable: link.frameable,
    domain_id: link.domainId,
  };
}

/**
 * The writes of put and putMany for n records (KEYS: each record's key and its miss entry's; ARGV: each
 * record's JSON, then the channel and one message naming every code): the records written, their
 * shared miss entries dropped, the redirects told once. One script, as atomic as a MULTI (decision
 * 0039), for any number of records (decision 0045).
 */
const PUT_SCRIPT = `local n = #KEYS / 2
for i = 1, n do
  redis.call('SET', KEYS[2 * i - 1], ARGV[i])
  redis.call('DEL', KEYS[2 * i])
end
redis.call('PUBLISH', ARGV[n + 1], ARGV[n + 2])
return n`;

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
  ) {
    // ioredis sends it by SHA and falls back to the script itself when Redis does not know it.
    redis.defineCommand("kurzPutRedirects", { lua: PUT_SCRIPT });
  }

  /**
   * Writes one link's record. The puts that arrive in one turn of the event loop (the creates that one
   * database call committed together, decision 0044) go out as one script call with one message to the
   * redirects (decision 0045): every redirect instance handles every message, so a message per create
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
      const records = chunk.map((link) => JSON.stringify(toRedirectRecord(link)));
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

  /** Many codes in one round trip (a branded domain's links deleted with it), announced in one message. */
  async removeMany(shortCodes: readonly string[]): Promise<void> {
    if (shortCodes.length === 0) return;
    try {
      await this.redis
        .multi()
        .del(...shortCodes.map(redirectKey))
        .publish(INVALIDATION_CHANNEL, invalidationMessages(shortCodes))
        .exec();
    } catch (err) {
      this.logger.warn(
        { err: String(err), count: shortCodes.length, code: shortCodes[0] },
        "redirect record deletes failed",
      );
    }
  }
}
