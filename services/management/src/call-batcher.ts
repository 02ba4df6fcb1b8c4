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
import { isDatabaseUnavailable, sqlStateOf } from "@kurz/db";

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (err: unknown) => void;
}

/** Attempts of a call that Postgres broke off as a deadlock's victim or a serialization failure. */
const ATTEMPTS = 3;
const RETRYABLE = new Set(["40P01", "40001"]);

export class CallBatcher<I, O> {
  private queue: Pending<I, O>[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    /** One database call for `items`: each item's result, in order, or the Error to reject it with. */
    private readonly call: (items: readonly I[]) => Promise<readonly (O | Error)[]>,
    private readonly limits: { maxBatch: number; maxInFlight: number },
  ) {}

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.limits.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < this.limits.maxInFlight && this.queue.length > 0) {
        const batch = this.queue.splice(0, this.limits.maxBatch);
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
        if (result instanceof Error) p.reject(result);
        else if (i < results.length) p.resolve(result as O);
        else p.reject(new Error("a batched call returned no result for an item"));
      });
      return;
    }
  }
}
