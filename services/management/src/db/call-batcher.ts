// Database calls batched per process (decision 0044): the requests that reach a management process
// together share one statement (and, for writes, one commit) instead of one each. Under load most of
// Postgres's CPU per request was the statement and its commit, not the request's own work.
//
// A call starts as soon as the event loop has taken in what arrived with its first item (the requests
// of one poll phase), and while calls run the next items gather: a lone request waits for nothing. A
// call that fails as a whole commits nothing, so it may be sent again: as it was after a deadlock or a
// serialization failure, one item at a time after any other error (it came from what one item carried,
// and one request must not fail another's, which may be another account's), and not at all when the
// database is unavailable (each item fails with that, as it would alone).
import { isDatabaseUnavailable, type PrismaClient, poolOf, sqlStateOf } from "@kurz/db";

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (err: unknown) => void;
}

/** Attempts of a call that Postgres broke off as a deadlock's victim or a serialization failure. */
const ATTEMPTS = 3;
const RETRYABLE = new Set(["40P01", "40001"]);
/**
 * Items per call at most (a create's JSON is under a kilobyte), and calls of one kind at once per
 * process: two, so that a call waiting on a lock (an alias another transaction is inserting) does not
 * hold up every item behind it (docs/benchmarks/2026-11.md, 2026-11-27 20:01: one or two made no difference).
 */
const LIMITS = { maxBatch: 100, maxInFlight: 2 };

/** The node-postgres pool under a Prisma client (decision 0044's plain prepared statements). */
export type Pool = ReturnType<typeof poolOf>;

/**
 * `call` batched on the pool under each Prisma client (one batcher per client, so one per process in a
 * service): the returned function takes one item and resolves to its result.
 */
export function batchedOnPool<I, O>(
  call: (pool: Pool, items: readonly I[]) => Promise<readonly (O | Error)[]>,
): (prisma: PrismaClient, item: I) => Promise<O> {
  const batchers = new WeakMap<PrismaClient, CallBatcher<I, O>>();
  return (prisma, item) => {
    let batcher = batchers.get(prisma);
    if (!batcher) {
      const pool = poolOf(prisma);
      batcher = new CallBatcher<I, O>((items) => call(pool, items));
      batchers.set(prisma, batcher);
    }
    return batcher.submit(item);
  };
}

/**
 * The batching itself, for a call that is not a database's (the redirect records' Redis writes): the
 * items of one turn go out together, at most LIMITS.maxBatch a call and LIMITS.maxInFlight calls at once.
 */
export class CallBatcher<I, O> {
  private queue: Pending<I, O>[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    /**
     * One database call for `items`: each item's result, in order, or the Error to reject it with
     * (undefined for an item is an error too: results never are).
     */
    private readonly call: (items: readonly I[]) => Promise<readonly (O | Error)[]>,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= LIMITS.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < LIMITS.maxInFlight && this.queue.length > 0) {
        const batch = this.queue.splice(0, LIMITS.maxBatch);
        this.inFlight++;
        void this.run(batch).finally(() => {
          this.inFlight--;
          this.schedule();
        });
      }
    });
  }

  private async run(batch: Pending<I, O>[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      let results: readonly (O | Error)[];
      try {
        results = await this.call(batch.map((p) => p.item));
      } catch (err) {
        if (attempt < ATTEMPTS && RETRYABLE.has(sqlStateOf(err) ?? "")) continue;
        if (batch.length > 1 && !isDatabaseUnavailable(err)) {
          for (const p of batch) await this.run([p]);
          return;
        }
        for (const p of batch) p.reject(err);
        return;
      }
      batch.forEach((p, i) => {
        const result = results[i];
        if (result === undefined) p.reject(new Error("a batched call returned no result for an item"));
        else if (result instanceof Error) p.reject(result);
        else p.resolve(result);
      });
      return;
    }
  }
}
