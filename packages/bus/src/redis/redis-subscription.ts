import type { Redis } from "ioredis";
import { backoffDelay, sleep } from "../backoff.ts";
import { type CrashLedger, type Delivery, deliverBatch } from "../deliver-batch.ts";
import { errorInfo } from "../logger.ts";
import { StopControl } from "../stop-control.ts";
import type { ResolvedSubscribeOptions } from "../subscribe-options.ts";
import type { BusLogger, IncomingMessage, Subscription } from "../types.ts";
import { redisCrashLedger } from "./crash-ledger.ts";
import { entriesOfRead, entryChars, type RawEntry, toDelivery } from "./stream-entries.ts";
import { trimConsumed } from "./trim-stream.ts";

export interface RedisSubscriptionDeps {
  /** Shared connection: acks, claims, trims, unblocking. Never used for blocking reads. */
  redis: Redis;
  stream: string;
  consumerName: string;
  claimIdleMs: number;
  maxLen: number;
  logger: BusLogger;
  deadLetter: (message: IncomingMessage, why: { error: string; attempts: number }) => Promise<void>;
  onStopped: () => void;
}

const TRIM_CHECK_INTERVAL_MS = 10_000;

/**
 * One consumer of a group. Reads new entries with a blocking XREADGROUP on its own connection,
 * periodically reclaims entries left pending by dead consumers (XAUTOCLAIM), handles one batch at a
 * time and acknowledges only what the handler (or the dead-letter topic) accepted.
 */
export class RedisSubscription<T> implements Subscription {
  private readonly control: StopControl;
  private readonly blocking: Redis;
  private blockingId: number | undefined;
  private claimCursor = "0-0";
  private lastClaimAt = 0;
  private lastTrimCheckAt = 0;
  private loop: Promise<void> | undefined;
  private readonly blockMs: number;
  private readonly log: object;
  /** The mean size of the entries of the last read that returned any (characters); 0 before one. */
  private entrySize = 0;
  private readonly crashes: CrashLedger;

  constructor(
    private readonly opts: ResolvedSubscribeOptions<T>,
    private readonly deps: RedisSubscriptionDeps,
  ) {
    this.control = new StopControl(opts.drainTimeoutMs);
    // Blocking reads would stall every other command queued on a shared connection.
    this.blocking = deps.redis.duplicate({ lazyConnect: true, maxRetriesPerRequest: null });
    this.blocking.on("error", () => {
      // Reported by the read loop, which sees the failed command.
    });
    this.blocking.on("close", () => {
      this.blockingId = undefined;
    });
    // Short enough that stop() and reclaiming never wait long, even if an unblock is missed.
    this.blockMs = Math.max(100, Math.min(2000, Math.floor(deps.claimIdleMs / 2)));
    this.log = { topic: opts.topic, group: opts.group, consumer: deps.consumerName };
    this.crashes = redisCrashLedger(deps.redis, deps.stream, opts.group);
  }

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.control.requestStop();
    const id = this.blockingId;
    if (id !== undefined && this.blocking.status === "ready") {
      await this.deps.redis.call("CLIENT", "UNBLOCK", id).catch(() => {});
    } else {
      // Not connected: a read may sit in the offline queue until Redis returns; fail it now.
      this.blocking.disconnect();
    }
    await this.loop;
  }

  private async run(): Promise<void> {
    let failures = 0;
    try {
      while (!this.control.stopping.aborted) {
        try {
          const batch = await this.nextBatch();
          if (batch.length > 0) await this.process(batch);
          failures = 0;
        } catch (e) {
          if (this.control.stopping.aborted) break;
          failures++;
          this.deps.logger.warn(
            { ...this.log, ...errorInfo(e), failures },
            "bus: redis consumer error, retrying",
          );
          await sleep(backoffDelay(failures, { initial: 100, max: 5000 }), this.control.stopping);
        }
      }
    } finally {
      this.control.dispose();
      this.blocking.disconnect();
      this.deps.onStopped();
    }
  }

  private async nextBatch(): Promise<Delivery<T>[]> {
    const claimDue = Date.now() - this.lastClaimAt >= this.blockMs;
    if (this.claimCursor !== "0-0" || claimDue) {
      this.lastClaimAt = Date.now();
      const reclaimed = await this.reclaim();
      if (reclaimed.length > 0) return reclaimed;
    }
    return this.readNew();
  }

  private async reclaim(): Promise<Delivery<T>[]> {
    const { redis, stream, consumerName, claimIdleMs } = this.deps;
    const reply = (await redis.call(
      "XAUTOCLAIM",
      stream,
      this.opts.group,
      consumerName,
      claimIdleMs,
      this.claimCursor,
      "COUNT",
      this.readCount(0, 0),
    )) as [string, RawEntry[], string[]?];
    this.claimCursor = reply[0];
    // Redis 6.2 returns entries trimmed while pending with null fields and leaves them pending.
    const gone = reply[1].filter((e) => e[1] === null).map((e) => e[0]);
    if (gone.length > 0) await redis.call("XACK", stream, this.opts.group, ...gone);
    const entries = reply[1].filter((e) => e[1] !== null);
    if (entries.length === 0) return [];
    this.measure(entries);
    // XAUTOCLAIM counted this delivery; XPENDING tells how many came before it.
    const counts = new Map<string, number>();
    const pending = (await redis.call(
      "XPENDING",
      stream,
      this.opts.group,
      entries[0]![0],
      entries.at(-1)![0],
      entries.length + 100,
      consumerName,
    )) as [string, string, number, number][];
    for (const [id, , , delivered] of pending) counts.set(id, Number(delivered));
    this.deps.logger.info({ ...this.log, count: entries.length }, "bus: reclaimed idle pending entries");
    return entries.map((e) => toDelivery<T>(this.opts.topic, e, counts.get(e[0]) ?? 2));
  }

  private async readNew(): Promise<Delivery<T>[]> {
    if (this.blockingId === undefined) {
      if (this.blocking.status === "wait") await this.blocking.connect();
      this.blockingId = Number(await this.blocking.call("CLIENT", "ID"));
    }
    if (this.control.stopping.aborted) return [];
    const entries = entriesOfRead(await this.read(this.readCount(0, 0), this.blockMs));
    let chars = this.measure(entries);
    // A first entry is there: wait up to maxWaitMs for the batch to fill, up to its bytes.
    const deadline = Date.now() + this.opts.maxWaitMs;
    while (
      entries.length > 0 &&
      entries.length < this.opts.maxBatchSize &&
      chars < this.opts.maxFetchBytes &&
      !this.control.stopping.aborted
    ) {
      const remaining = deadline - Date.now();
      const count = this.readCount(entries.length, chars);
      if (remaining < 1 || count < 1) break;
      const more = entriesOfRead(await this.read(count, remaining));
      if (more.length === 0) break;
      chars += this.measure(more);
      entries.push(...more);
    }
    return entries.map((e) => toDelivery<T>(this.opts.topic, e, 1));
  }

  /**
   * Entries the next read asks for, a batch holding `held` entries of `chars` characters already: the
   * batch's room, and no more than fit in maxFetchBytes at the size entries have had (0 when none
   * does). Redis bounds a read by entries only, and a read's reply is all in the heap at once. A
   * batch's first read asks for one at least, and for one only before any entry has been seen.
   */
  private readCount(held: number, chars: number): number {
    const room = this.opts.maxBatchSize - held;
    if (this.entrySize === 0) return Math.min(room, 1);
    const fit = Math.min(room, Math.floor((this.opts.maxFetchBytes - chars) / this.entrySize));
    return held === 0 ? Math.max(1, fit) : Math.max(0, fit);
  }

  /** The characters of `entries`, remembered as the size of the next ones. */
  private measure(entries: RawEntry[]): number {
    let chars = 0;
    for (const e of entries) chars += entryChars(e);
    if (entries.length > 0) this.entrySize = Math.max(1, chars / entries.length);
    return chars;
  }

  private read(count: number, blockMs: number): Promise<unknown> {
    return this.blocking.call(
      "XREADGROUP",
      "GROUP",
      this.opts.group,
      this.deps.consumerName,
      "COUNT",
      count,
      "BLOCK",
      blockMs,
      "STREAMS",
      this.deps.stream,
      ">",
    );
  }

  private async process(batch: Delivery<T>[]): Promise<void> {
    const { redis, stream, consumerName, claimIdleMs } = this.deps;
    const ids = batch.map((d) => d.message.id);
    // Keep the entries' idle time low while the handler (and its retries) run, so that other
    // consumers do not reclaim a batch that is still being worked on.
    const keepAlive = setInterval(
      () => {
        redis.call("XCLAIM", stream, this.opts.group, consumerName, 0, ...ids, "JUSTID").catch(() => {});
      },
      Math.max(50, Math.floor(claimIdleMs / 3)),
    );
    let result: Awaited<ReturnType<typeof deliverBatch<T>>>;
    try {
      result = await deliverBatch(batch, {
        handler: this.opts.handler,
        maxAttempts: this.opts.maxAttempts,
        backoff: this.opts.retryBackoffMs,
        stopping: this.control.stopping,
        abandoned: this.control.abandoned,
        deadLetter: (m, why) => this.deps.deadLetter(m, why),
        crashes: this.crashes,
        logger: this.deps.logger,
        logContext: this.log,
      });
    } finally {
      clearInterval(keepAlive);
    }
    if (result.completed.length > 0) {
      await redis.call("XACK", stream, this.opts.group, ...result.completed.map((m) => m.id));
    }
    if (!result.finished) {
      this.deps.logger.warn(
        { ...this.log, unacknowledged: batch.length - result.completed.length },
        "bus: stopped mid-batch; unacknowledged entries will be redelivered",
      );
    }
    await this.maybeTrim();
  }

  private async maybeTrim(): Promise<void> {
    if (Date.now() - this.lastTrimCheckAt < TRIM_CHECK_INTERVAL_MS) return;
    this.lastTrimCheckAt = Date.now();
    try {
      await trimConsumed(this.deps.redis, this.deps.stream, this.deps.maxLen);
    } catch (e) {
      this.deps.logger.warn({ ...this.log, ...errorInfo(e) }, "bus: stream trim failed");
    }
  }
}
