// Moves API key last-use times from Redis (written by the gateway on every request) to Postgres in
// one statement per interval, so using a key never costs a database write. Reads merge the unflushed
// values (recentKeyUse), so last_used_at is current even between flushes; the usage answer also counts
// the request being answered (routes/account.ts), which the gateway may not have written yet.
import { API_KEY_USAGE_HASH } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import type { Redis } from "ioredis";

// Read and clear in one step: with several management instances each use is flushed exactly once.
const TAKE_ALL = `
local v = redis.call('HGETALL', KEYS[1])
if #v > 0 then redis.call('DEL', KEYS[1]) end
return v`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Unflushed last-use times (epoch ms) of the given keys. */
export async function recentKeyUse(redis: Redis, keyIds: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (keyIds.length === 0) return out;
  const values = await redis.hmget(API_KEY_USAGE_HASH, ...keyIds);
  keyIds.forEach((id, i) => {
    const ms = Number(values[i]);
    if (values[i] !== null && Number.isFinite(ms)) out.set(id, ms);
  });
  return out;
}

export class KeyUsageFlusher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly redis: Redis,
    private readonly opts: { intervalMs: number; logger: { warn(o: object, m?: string): void } },
  ) {
    redis.defineCommand("kurzTakeKeyUsage", { numberOfKeys: 1, lua: TAKE_ALL });
  }

  start(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.flush().finally(() => (this.running = null));
    }, this.opts.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await this.flush();
  }

  /** Returns the number of keys updated. Never throws: a failed flush is retried next interval. */
  async flush(): Promise<number> {
    let flat: string[];
    try {
      flat = await (
        this.redis as unknown as { kurzTakeKeyUsage(key: string): Promise<string[]> }
      ).kurzTakeKeyUsage(API_KEY_USAGE_HASH);
    } catch (err) {
      this.opts.logger.warn({ err: String(err) }, "key usage read failed; retrying next interval");
      return 0;
    }
    const ids: string[] = [];
    const times: Date[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const ms = Number(flat[i + 1]);
      // Only the gateway writes this hash, but a malformed entry must not block every other key.
      if (UUID.test(flat[i]!) && Number.isFinite(ms) && ms > 0) {
        ids.push(flat[i]!);
        times.push(new Date(ms));
      }
    }
    if (ids.length === 0) return 0;
    try {
      // GREATEST ignores NULL and keeps the later time when an older value arrives late.
      return await this.prisma.$executeRaw`
        UPDATE api_keys AS k SET last_used_at = GREATEST(k.last_used_at, u.t)
        FROM unnest(${ids}::uuid[], ${times}::timestamptz[]) AS u(id, t)
        WHERE k.id = u.id`;
    } catch (err) {
      this.opts.logger.warn({ err: String(err) }, "key usage flush failed; retrying next interval");
      await this.putBack(ids, times);
      return 0;
    }
  }

  // HSETNX: a newer use the gateway recorded meanwhile wins over the value being put back.
  private async putBack(ids: string[], times: Date[]): Promise<void> {
    const pipeline = this.redis.pipeline();
    ids.forEach((id, i) => {
      pipeline.hsetnx(API_KEY_USAGE_HASH, id, String(times[i]!.getTime()));
    });
    await pipeline.exec().catch(() => {});
  }
}
