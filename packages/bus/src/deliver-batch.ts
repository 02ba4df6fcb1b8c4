import { backoffDelay, sleep } from "./backoff.ts";
import { errorInfo } from "./logger.ts";
import type { BusLogger, IncomingMessage } from "./types.ts";

/** A fetched message; `rejected` is set when it cannot be handed to the handler at all (e.g. bad JSON). */
export interface Delivery<T> {
  message: IncomingMessage<T>;
  rejected?: string;
}

export interface DeliveryPolicy<T> {
  handler: (batch: IncomingMessage<T>[]) => Promise<void>;
  maxAttempts: number;
  backoff: { initial: number; max: number };
  /** No new attempt starts once this aborts; a running one may still finish. */
  stopping: AbortSignal;
  /** The running handler call is given up on; its messages count as not completed. */
  abandoned: AbortSignal;
  deadLetter: (message: IncomingMessage<T>, why: { error: string; attempts: number }) => Promise<void>;
  logger: BusLogger;
  logContext: object;
}

export interface DeliveryResult<T> {
  /** Messages handled or dead-lettered: safe to commit. In fetch order. */
  completed: IncomingMessage<T>[];
  /** False when the run was cut short by stop(); the rest must stay uncommitted. */
  finished: boolean;
}

type Outcome = { kind: "ok" } | { kind: "failed"; error: unknown } | { kind: "abandoned" };

/**
 * Runs the handler over a batch with the retry policy of the port: the whole batch is retried with
 * exponential backoff; when it keeps failing, messages are retried one by one so that the culprit
 * is found, dead-lettered after `maxAttempts` handler calls, and the others proceed.
 *
 * Each message keeps at least one solo attempt: the batch phase stops before any message reaches
 * its last allowed attempt, so an innocent message is never dead-lettered for its neighbour's fault.
 */
export async function deliverBatch<T>(
  deliveries: Delivery<T>[],
  policy: DeliveryPolicy<T>,
): Promise<DeliveryResult<T>> {
  const completed: IncomingMessage<T>[] = [];
  const live: IncomingMessage<T>[] = [];

  for (const { message, rejected } of deliveries) {
    // Redelivered past the limit without ever being acknowledged: the message most likely kills its
    // consumer outright, so calling the handler again would only repeat that.
    const reason =
      rejected ??
      (message.deliveryAttempt > policy.maxAttempts
        ? `redelivered ${message.deliveryAttempt - 1} times without being acknowledged`
        : undefined);
    if (reason === undefined) {
      live.push(message);
      continue;
    }
    if (!(await deadLetter(message, reason, message.deliveryAttempt - 1, policy))) {
      return { completed, finished: false };
    }
    completed.push(message);
  }
  if (live.length === 0) return { completed, finished: true };

  let batchCalls = 0;
  if (live.length > 1) {
    for (;;) {
      const outcome = await callHandler(
        live.map((m) => ({ ...m, deliveryAttempt: m.deliveryAttempt + batchCalls })),
        policy,
      );
      batchCalls++;
      if (outcome.kind === "ok") {
        completed.push(...live);
        return { completed, finished: true };
      }
      if (outcome.kind === "abandoned" || policy.stopping.aborted) return { completed, finished: false };
      const lastBatchAttemptLeft = live.some((m) => m.deliveryAttempt + batchCalls >= policy.maxAttempts);
      policy.logger.warn(
        { ...policy.logContext, ...errorInfo(outcome.error), batchSize: live.length, attempt: batchCalls },
        lastBatchAttemptLeft
          ? "bus: batch keeps failing, retrying messages one by one"
          : "bus: batch failed, retrying",
      );
      if (lastBatchAttemptLeft) break;
      await sleep(backoffDelay(batchCalls, policy.backoff), policy.stopping);
      if (policy.stopping.aborted) return { completed, finished: false };
    }
  }

  for (const message of live) {
    if (policy.stopping.aborted) return { completed, finished: false };
    let soloCalls = 0;
    for (;;) {
      const attempt = message.deliveryAttempt + batchCalls + soloCalls;
      const outcome = await callHandler([{ ...message, deliveryAttempt: attempt }], policy);
      soloCalls++;
      if (outcome.kind === "ok") break;
      if (outcome.kind === "abandoned") return { completed, finished: false };
      if (attempt >= policy.maxAttempts) {
        const error = errorInfo(outcome.error).error;
        if (!(await deadLetter(message, error, attempt, policy))) return { completed, finished: false };
        break;
      }
      if (policy.stopping.aborted) return { completed, finished: false };
      await sleep(backoffDelay(soloCalls, policy.backoff), policy.stopping);
      if (policy.stopping.aborted) return { completed, finished: false };
    }
    completed.push(message);
  }
  return { completed, finished: true };
}

async function callHandler<T>(batch: IncomingMessage<T>[], policy: DeliveryPolicy<T>): Promise<Outcome> {
  if (policy.abandoned.aborted) return { kind: "abandoned" };
  let onAbandon: (() => void) | undefined;
  const abandoned = new Promise<Outcome>((resolve) => {
    onAbandon = () => resolve({ kind: "abandoned" });
    policy.abandoned.addEventListener("abort", onAbandon, { once: true });
  });
  const run = (async () => policy.handler(batch))().then(
    (): Outcome => ({ kind: "ok" }),
    (error: unknown): Outcome => ({ kind: "failed", error }),
  );
  try {
    return await Promise.race([run, abandoned]);
  } finally {
    if (onAbandon) policy.abandoned.removeEventListener("abort", onAbandon);
  }
}

/** Retries until the dead-letter topic accepts the message: dropping it would lose data. */
async function deadLetter<T>(
  message: IncomingMessage<T>,
  error: string,
  attempts: number,
  policy: DeliveryPolicy<T>,
): Promise<boolean> {
  for (let failures = 0; ; ) {
    try {
      await policy.deadLetter(message, { error, attempts });
      policy.logger.warn(
        { ...policy.logContext, id: message.id, attempts, error },
        "bus: message moved to the dead-letter topic",
      );
      return true;
    } catch (e) {
      failures++;
      policy.logger.error({ ...policy.logContext, ...errorInfo(e) }, "bus: dead-lettering failed, retrying");
      if (policy.stopping.aborted) return false;
      await sleep(backoffDelay(failures, policy.backoff), policy.stopping);
      if (policy.stopping.aborted) return false;
    }
  }
}
