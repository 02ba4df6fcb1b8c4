// Write-through of link records into Redis for the redirect service. Redis is a cache, never the only
// copy: a failed write here is healed by the redirect's miss path (internal resolve).
//
// Every write also deletes the code's shared negative entry (`miss:<code>`, set by the redirect when
// this service answered 404), in the same transaction: a code created just after a visitor's miss
// redirects at once, on every instance.
import { INVALIDATION_CHANNEL, type RedirectRecord, redirectKey, redirectMissKey } from "@kurz/contracts";
import type { Link } from "@kurz/db";
import type { Redis } from "ioredis";

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

/** put's writes: the record, the shared miss entry dropped, the redirects told (KEYS: record, miss). */
const PUT_SCRIPT = `redis.call('SET', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1`;

type PutCommand = (
  record: string,
  miss: string,
  json: string,
  channel: string,
  code: string,
) => Promise<unknown>;

export class RedirectRecords {
  constructor(
    private readonly redis: Redis,
    private readonly logger: { warn(o: object, m?: string): void },
  ) {
    // ioredis sends it by SHA and falls back to the script itself when Redis does not know it.
    redis.defineCommand("kurzPutRedirect", { numberOfKeys: 2, lua: PUT_SCRIPT });
  }

  async put(link: Link): Promise<void> {
    try {
      // One script, as atomic as the MULTI it replaces (decision 0039): a MULTI of three commands is
      // five for ioredis to build and Redis to answer, and it was 6% of management's CPU on creates.
      // The keys get the client's prefix; the channel is passed as it was to PUBLISH, without it.
      await (this.redis as unknown as { kurzPutRedirect: PutCommand }).kurzPutRedirect(
        redirectKey(link.shortCode),
        redirectMissKey(link.shortCode),
        JSON.stringify(toRedirectRecord(link)),
        INVALIDATION_CHANNEL,
        link.shortCode,
      );
    } catch (err) {
      this.logger.warn(
        { err: String(err), code: link.shortCode },
        "redirect record write failed; the miss path will heal it",
      );
    }
  }

  /** Many records in one round trip (an import batch); same healing as put on failure. */
  async putMany(links: readonly Link[]): Promise<void> {
    if (links.length === 0) return;
    try {
      const multi = this.redis.multi();
      for (const link of links) {
        multi
          .set(redirectKey(link.shortCode), JSON.stringify(toRedirectRecord(link)))
          .del(redirectMissKey(link.shortCode))
          .publish(INVALIDATION_CHANNEL, link.shortCode);
      }
      await multi.exec();
    } catch (err) {
      this.logger.warn(
        { err: String(err), count: links.length },
        "redirect record writes failed; the miss path will heal them",
      );
    }
  }

  /** Many codes in one round trip (a branded domain's links deleted with it). */
  async removeMany(shortCodes: readonly string[]): Promise<void> {
    if (shortCodes.length === 0) return;
    try {
      const multi = this.redis.multi();
      for (const code of shortCodes) multi.del(redirectKey(code)).publish(INVALIDATION_CHANNEL, code);
      await multi.exec();
    } catch (err) {
      this.logger.warn({ err: String(err), count: shortCodes.length }, "redirect record deletes failed");
    }
  }

  async remove(shortCode: string): Promise<void> {
    try {
      await this.redis.multi().del(redirectKey(shortCode)).publish(INVALIDATION_CHANNEL, shortCode).exec();
    } catch (err) {
      this.logger.warn({ err: String(err), code: shortCode }, "redirect record delete failed");
    }
  }
}
